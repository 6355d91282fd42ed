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
        wire signed [15:0] prod = $signed(xv) * $signed(wv);
        wire [31:0]        base;
        if (RESCALE) begin : rs
          assign base = cl ? 32'd0 : sv ? rescale_q15(acc, alpha[i*32 +: 17]) : acc;
        end else begin : plain
          assign base = cl ? 32'd0 : acc;
        end
        always @(posedge clk) begin
          if (!rst_n) acc <= 32'd0;
          else if (en) acc <= base + {{16{prod[15]}}, prod};
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
