// Dot-product PE array for weight- and input-stationary dataflows: P lanes of K
// INT8 MACs. The stationary operand is loaded one vector per cycle (ld): with
// LOAD_COL = 1 vector ld_idx becomes column ld_idx (s[p][ld_idx] = w[p], P wide),
// otherwise row ld_idx (s[ld_idx][r] = w[r], K wide). Each valid cycle (v) every
// lane reduces y[p] = sum_r s[p][r] * x[r] through an adder chain into a register.
module fsgen_array_dot #(
    parameter P = 8,
    parameter K = 8,
    parameter LOAD_COL = 1,
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
  genvar p, r;
  generate
    for (p = 0; p < P; p = p + 1) begin : lane
      wire [K*16-1:0] prods;
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
      // Reduction over the K products (wraps modulo 2^32 like every INT32 adder here).
      reg [31:0] sum;
      integer t;
      always @* begin
        sum = 32'd0;
        for (t = 0; t < K; t = t + 1) sum = sum + {{16{prods[t*16 + 15]}}, prods[t*16 +: 16]};
      end
      always @(posedge clk) begin
        if (!rst_n) y[p*32 +: 32] <= 32'd0;
        else if (v) y[p*32 +: 32] <= sum;
      end
    end
  endgenerate
endmodule
