// Dot-product PE array for weight- and input-stationary dataflows: P lanes of K
// INT8 MACs. The stationary operand is loaded one vector per cycle (ld): with
// LOAD_COL = 1 vector ld_idx becomes column ld_idx (s[p][ld_idx] = w[p], P wide),
// otherwise row ld_idx (s[ld_idx][r] = w[r], K wide). Each valid cycle (v) every
// lane reduces y[p] = sum_r s[p][r] * x[r] through an adder chain into a register.
//
// Compressed lanes (SLOTS < K, LOAD_COL = 1: compute-value sparsity on the weights,
// docs/SPARSITY.md): a lane has SLOTS MACs in CG groups of SLOTS / CG; group q keeps the
// non-zero weights of rows [q K / CG, (q + 1) K / CG) with their row offsets, packed in
// load order (the w network: a load of row 0 clears the lane, each non-zero takes its
// group's next slot). Each MAC picks its x from the K streamed values by that offset
// (the x network: CG copies of a K / CG-input crossbar per MAC). A group receiving more
// non-zeros than slots keeps the first ones; the compiler refuses such weights.
module fsgen_array_dot #(
    parameter P = 8,
    parameter K = 8,
    parameter LOAD_COL = 1,
    parameter SLOTS = K,             // MACs per lane
    parameter CG = 1,                // slot groups (copies of the x network)
    parameter LW = LOAD_COL ? P : K  // bytes on the load bus
) (
    input  wire            clk,
    input  wire            rst_n,
    input  wire            ld,
    input  wire [7:0]      ld_idx,
    input  wire [LW*8-1:0] w,
    input  wire            v,
    input  wire [K*8-1:0]  x,
    output reg  [P*32-1:0] y /*verilator public_flat_rd*/
);
  /* verilator inline_module */  // probes address its registers by their flat names
  localparam integer ROWS_G = K / CG;      // k rows per slot group
  localparam integer SLOTS_G = SLOTS / CG; // slots per group
  localparam integer OFFW = (ROWS_G > 1) ? $clog2(ROWS_G) : 1;
  localparam integer CNTW = $clog2(SLOTS_G + 1);
  genvar p, r;
  generate
    for (p = 0; p < P; p = p + 1) begin : lane
      wire [SLOTS*16-1:0] prods;
      if (SLOTS == K) begin : dense
        for (r = 0; r < K; r = r + 1) begin : pe
          reg  [7:0]         s;
          wire [7:0]         ld_val;  // only the bus bytes this load direction reads
          wire signed [15:0] prod = $signed(s) * $signed(x[r*8 +: 8]);
          if (LOAD_COL) begin : by_col
            assign ld_val = w[p*8 +: 8];
          end else begin : by_row
            assign ld_val = w[r*8 +: 8];
          end
          always @(posedge clk) begin
            if (!rst_n) s <= 8'd0;
            else if (ld && (LOAD_COL ? (ld_idx == r) : (ld_idx == p))) s <= ld_val;
          end
          assign prods[r*16 +: 16] = prod;
        end
      end else begin : packed_lane
        reg [7:0]      s   [0:SLOTS-1];
        reg [OFFW-1:0] off [0:SLOTS-1];
        reg [CNTW-1:0] cnt [0:CG-1];
        wire [7:0] ld_val = w[p*8 +: 8];
        /* verilator lint_off WIDTH */
        wire [7:0] ld_grp = ld_idx / ROWS_G;
        wire [OFFW-1:0] ld_off = ld_idx % ROWS_G;
        wire            first = ld_idx == 8'd0;  // row 0 starts a new stationary tile
        wire [CNTW-1:0] used = first ? {CNTW{1'b0}} : cnt[ld_grp];  // slots of the group already taken
        /* verilator lint_on WIDTH */
        integer t, q;
        always @(posedge clk) begin
          if (!rst_n) begin
            for (t = 0; t < SLOTS; t = t + 1) begin s[t] <= 8'd0; off[t] <= {OFFW{1'b0}}; end
            for (q = 0; q < CG; q = q + 1) cnt[q] <= {CNTW{1'b0}};
          end else if (ld) begin
            if (first) begin
              for (t = 0; t < SLOTS; t = t + 1) begin s[t] <= 8'd0; off[t] <= {OFFW{1'b0}}; end
              for (q = 0; q < CG; q = q + 1) cnt[q] <= {CNTW{1'b0}};
            end
            /* verilator lint_off WIDTH */
            if (ld_val != 8'd0 && used < SLOTS_G) begin
              s[ld_grp * SLOTS_G + used] <= ld_val;
              off[ld_grp * SLOTS_G + used] <= ld_off;
              cnt[ld_grp] <= used + 1'b1;
            end
            /* verilator lint_on WIDTH */
          end
        end
        for (r = 0; r < SLOTS; r = r + 1) begin : mac
          localparam integer BASE = (r / SLOTS_G) * ROWS_G;  // first k row of the slot's group
          /* verilator lint_off WIDTH */
          wire [7:0] xv = x[(BASE + off[r])*8 +: 8];
          /* verilator lint_on WIDTH */
          assign prods[r*16 +: 16] = $signed(s[r]) * $signed(xv);
        end
      end
      // Reduction over the products (wraps modulo 2^32 like every INT32 adder here).
      reg [31:0] sum;
      integer u;
      always @* begin
        sum = 32'd0;
        for (u = 0; u < SLOTS; u = u + 1) sum = sum + {{16{prods[u*16 + 15]}}, prods[u*16 +: 16]};
      end
      always @(posedge clk) begin
        if (!rst_n) y[p*32 +: 32] <= 32'd0;
        else if (v) y[p*32 +: 32] <= sum;
      end
    end
  endgenerate
endmodule
