// Output-stationary PE array: R x C INT8 MACs, each holding an INT32 accumulator.
// Each enabled cycle PE(i,j) adds x * w to its accumulator; clr restarts the
// accumulation. rd_row selects the row of accumulators driven on rd_data (for
// draining). With RESCALE = 1, sc first multiplies row i's accumulators by alpha[i]
// (Q0.15, rounded: (acc * alpha + 2^14) >> 15) before adding the product.
//   SYSTOLIC = 0 (broadcast): x[i] reaches every PE of row i and w[j] every PE of
//     column j in the same cycle; clr / sc apply to every PE.
//   SYSTOLIC = 1: x moves one PE right and w one PE down per cycle through operand
//     registers, so PE(i,j) sees them i + j cycles after they enter (the feeder skews
//     row i by i cycles and column j by j cycles). clr and sc travel with x, so each PE
//     clears or rescales when its first operand pair arrives. Fan-out is one PE.
// Lanes (value networks of a sparse array): with LN column lanes, x carries LN values per
// row and PE(i,j) reads row i's value of lane j / (C / LN); with LM row lanes, w carries
// LM values per column and PE(i,j) reads lane i / (R / LM). One lane each is the plain
// array. A systolic array forwards all of a row's (column's) lanes PE to PE: the lanes
// are the copies of the paper's systolic networks.
module fsgen_array_os #(
    parameter R = 8,
    parameter C = 8,
    parameter RESCALE = 0,  // 1: sc rescales each row's accumulators by alpha (online softmax)
    parameter SYSTOLIC = 0,
    parameter LM = 1,       // row lanes on w
    parameter LN = 1        // column lanes on x
) (
    input  wire            clk,
    input  wire            rst_n,
    input  wire            en,
    input  wire            clr,
    /* verilator lint_off UNUSEDSIGNAL */  // used only with RESCALE = 1
    input  wire            sc,
    input  wire [R*32-1:0] alpha,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [R*LN*8-1:0] x,
    input  wire [C*LM*8-1:0] w,
    input  wire [7:0]      rd_row,
    output wire [C*32-1:0] rd_data
);
  /* verilator inline_module */  // probes address its registers by their flat names
  `include "fsgen_rescale.vh"
  // base + x * w, INT8 x INT8 into INT32 (modulo 2^32), each PE's accumulate. Simulation reads
  // it as written; synthesis (Yosys defines SYNTHESIS) gets it as one carry-save sum, as a
  // datapath generator would build it: w's radix-4 Booth digits select four partial products
  // of x (0, x or 2x, inverted when the digit is negative, the negation's +1 at the digit's
  // bit), each sign extension folded into one constant (-(2^9 + 2^11 + 2^13 + 2^15), its bits
  // beside the +1s'), and these six terms with base reduce 6 -> 4 -> 3 -> 2 in full adders
  // before one prefix-tree add. Given `base + x * w`, Yosys and ABC map the product's own
  // carry chain ahead of a rippling accumulate: an 8x8 array's PE path on fsgen45 is 1.85 ns
  // written so and 1.48 ns written out, in less area (67,000 against 76,000 um^2). Verilator
  // runs the written-out form 12x slower on an 8x8 array, hence the two readings; the check
  // that they agree is PeArrayOs.SynthesisAccumulateEqualsTheWrittenOne. The rescaling array
  // (RESCALE = 1) keeps the written form in synthesis too: its path is the rescale's multiply
  // (2.29 ns at 8x8), and its netlist stays the one its power rows were characterised on.
  function [31:0] mac_written;
    input [31:0] base;
    input [7:0] ax, aw;
    reg signed [15:0] prod;
    begin
      prod = $signed(ax) * $signed(aw);
      mac_written = base + {{16{prod[15]}}, prod};
    end
  endfunction
`ifdef SYNTHESIS
  function [31:0] booth_pp;  // digit k of w, bits (2k+1, 2k, 2k-1), applied to x, at bit 2k
    input [7:0] bx;
    input [2:0] digit;
    input integer k;
    reg [9:0] m;
    begin
      m = (digit[0] ^ digit[1]) ? {{2{bx[7]}}, bx} : (digit == 3'b011 || digit == 3'b100) ? {bx[7], bx, 1'b0} : 10'd0;
      if (booth_neg(digit)) m = ~m;
      booth_pp = {22'd0, ~m[9], m[8:0]} << (2 * k);
    end
  endfunction
  function booth_neg;  // the digit is -1 or -2
    input [2:0] digit;
    booth_neg = digit[2] & ~(digit[1] & digit[0]);
  endfunction
  function [31:0] full_add_sum;
    input [31:0] fa, fb, fc;
    full_add_sum = fa ^ fb ^ fc;
  endfunction
  function [31:0] full_add_carry;  // the carries, at their weights
    input [31:0] fa, fb, fc;
    full_add_carry = ((fa & fb) | (fa & fc) | (fb & fc)) << 1;
  endfunction
  function [31:0] add_prefix;  // a + b, the carries by a Sklansky prefix tree (5 levels)
    input [31:0] pa, pb;
    reg [31:0] g, p, g_next, p_next;
    integer level, bit_i;
    /* verilator lint_off UNUSEDSIGNAL */
    integer below;  // 0..30
    /* verilator lint_on UNUSEDSIGNAL */
    begin
      g = pa & pb; p = pa ^ pb;
      for (level = 0; level < 5; level = level + 1) begin
        g_next = g; p_next = p;
        for (bit_i = 0; bit_i < 32; bit_i = bit_i + 1)
          if (((bit_i >> level) & 1) != 0) begin
            below = ((bit_i >> level) << level) - 1;  // the top bit of the group below
            g_next[bit_i] = g[bit_i] | (p[bit_i] & g[below]);
            p_next[bit_i] = p[bit_i] & p[below];
          end
        g = g_next; p = p_next;
      end
      add_prefix = pa ^ pb ^ {g[30:0], 1'b0};
    end
  endfunction
  function [31:0] accumulate;
    input [31:0] base;
    input [7:0] mx, mw;
    reg [2:0] d0, d1, d2, d3;
    reg [31:0] q0, q1, q2, q3, ones, s1, c1, s2, c2, s3, c3, s4, c4;
    begin
      d0 = {mw[1:0], 1'b0}; d1 = mw[3:1]; d2 = mw[5:3]; d3 = mw[7:5];
      q0 = booth_pp(mx, d0, 0); q1 = booth_pp(mx, d1, 1); q2 = booth_pp(mx, d2, 2); q3 = booth_pp(mx, d3, 3);
      ones = 32'hffff5600 | {25'd0, booth_neg(d3), 1'b0, booth_neg(d2), 1'b0, booth_neg(d1), 1'b0, booth_neg(d0)};
      s1 = full_add_sum(base, q0, q1); c1 = full_add_carry(base, q0, q1);
      s2 = full_add_sum(q2, q3, ones); c2 = full_add_carry(q2, q3, ones);
      s3 = full_add_sum(s1, c1, s2);   c3 = full_add_carry(s1, c1, s2);
      s4 = full_add_sum(s3, c3, c2);   c4 = full_add_carry(s3, c3, c2);
      accumulate = add_prefix(s4, c4);
    end
  endfunction
`else
  function [31:0] accumulate;
    input [31:0] base;
    input [7:0] ax, aw;
    accumulate = mac_written(base, ax, aw);
  endfunction
`endif
  wire [C*32-1:0] acc_rows [0:R-1];
  // The operand pair and tokens each PE of a systolic array sees this cycle (a broadcast
  // array's PEs read the ports directly, so these stay unused there).
  /* verilator lint_off UNUSEDSIGNAL */
  /* verilator lint_off UNDRIVEN */
  wire [LN*8-1:0] pe_x [0:R-1][0:C-1];
  wire [LM*8-1:0] pe_w [0:R-1][0:C-1];
  wire       pe_clr [0:R-1][0:C-1];
  wire       pe_sc [0:R-1][0:C-1];
  /* verilator lint_on UNDRIVEN */
  /* verilator lint_on UNUSEDSIGNAL */
  genvar i, j;
  generate
    if (SYSTOLIC) begin : sys
      // Operand and token registers: PE(i,j) passes x, clr and sc right and w down; the
      // tokens enter row i at column 0 one cycle after row i - 1.
      reg [LN*8-1:0] x_r [0:R-1][0:C-1];
      reg [LM*8-1:0] w_r [0:R-1][0:C-1];
      reg       clr_r [0:R-1][0:C-1];
      reg       sc_r [0:R-1][0:C-1];
      reg       clr_down [0:R-1];
      reg       sc_down [0:R-1];
      for (i = 0; i < R; i = i + 1) begin : row
        if (i == 0) begin : top
          always @* begin clr_down[0] = clr; sc_down[0] = sc; end
        end else begin : skew
          always @(posedge clk) begin
            if (!rst_n) begin clr_down[i] <= 1'b0; sc_down[i] <= 1'b0; end
            else begin clr_down[i] <= clr_down[i-1]; sc_down[i] <= sc_down[i-1]; end
          end
        end
        for (j = 0; j < C; j = j + 1) begin : col
          assign pe_x[i][j] = (j == 0) ? x[i*LN*8 +: LN*8] : x_r[i][(j == 0) ? 0 : j-1];
          assign pe_w[i][j] = (i == 0) ? w[j*LM*8 +: LM*8] : w_r[(i == 0) ? 0 : i-1][j];
          assign pe_clr[i][j] = (j == 0) ? clr_down[i] : clr_r[i][(j == 0) ? 0 : j-1];
          assign pe_sc[i][j] = (j == 0) ? sc_down[i] : sc_r[i][(j == 0) ? 0 : j-1];
          always @(posedge clk) begin
            if (!rst_n) begin x_r[i][j] <= {LN*8{1'b0}}; w_r[i][j] <= {LM*8{1'b0}}; clr_r[i][j] <= 1'b0; sc_r[i][j] <= 1'b0; end
            else begin
              x_r[i][j] <= pe_x[i][j]; w_r[i][j] <= pe_w[i][j];
              clr_r[i][j] <= pe_clr[i][j]; sc_r[i][j] <= pe_sc[i][j];
            end
          end
        end
      end
    end
    for (i = 0; i < R; i = i + 1) begin : row
      for (j = 0; j < C; j = j + 1) begin : pe
        reg  [31:0]        acc;
        wire [7:0]         xv = SYSTOLIC ? pe_x[i][j][(j/(C/LN))*8 +: 8] : x[(i*LN + j/(C/LN))*8 +: 8];
        wire [7:0]         wv = SYSTOLIC ? pe_w[i][j][(i/(R/LM))*8 +: 8] : w[(j*LM + i/(R/LM))*8 +: 8];
        wire               cl = SYSTOLIC ? pe_clr[i][j] : clr;
        /* verilator lint_off UNUSEDSIGNAL */  // read only with RESCALE = 1
        wire               sv = SYSTOLIC ? pe_sc[i][j] : sc;
        /* verilator lint_on UNUSEDSIGNAL */
        wire [31:0]        base;
        wire [31:0]        acc_next;
        if (RESCALE) begin : rs
          assign base = cl ? 32'd0 : sv ? rescale_q15(acc, alpha[i*32 +: 17]) : acc;
          assign acc_next = mac_written(base, xv, wv);
        end else begin : plain
          assign base = cl ? 32'd0 : acc;
          assign acc_next = accumulate(base, xv, wv);
        end
        always @(posedge clk) begin
          if (!rst_n) acc <= 32'd0;
          else if (en) acc <= acc_next;
        end
        assign acc_rows[i][j*32 +: 32] = acc;
      end
    end
  endgenerate
  // Never select outside the array; rr < R, so only its low log2(R) bits matter.
  /* verilator lint_off WIDTH */
  /* verilator lint_off UNUSEDSIGNAL */
  wire [7:0] rr = ({24'd0, rd_row} < R) ? rd_row : 8'd0;
  assign rd_data = acc_rows[rr];
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_on WIDTH */
endmodule
