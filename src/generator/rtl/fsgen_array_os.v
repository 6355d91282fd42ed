// Output-stationary PE array: R x C INT8 MACs, each holding an INT32 accumulator.
// Each enabled cycle PE(i,j) adds x[i] * w[j] (x: a column of A broadcast along the
// row, w: a row of B broadcast down the column); clr restarts the accumulation.
// rd_row selects the row of accumulators driven on rd_data (for draining). With
// RESCALE = 1, sc first multiplies row i's accumulators by alpha[i] (Q0.15, rounded:
// (acc * alpha + 2^14) >> 15) before adding the product.
module fsgen_array_os #(
    parameter R = 8,
    parameter C = 8,
    parameter RESCALE = 0  // 1: sc rescales each row's accumulators by alpha (online softmax)
) (
    input  wire            clk,
    input  wire            rst_n,
    input  wire            en,
    input  wire            clr,
    /* verilator lint_off UNUSEDSIGNAL */  // used only with RESCALE = 1
    input  wire            sc,
    input  wire [R*32-1:0] alpha,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [R*8-1:0]  x,
    input  wire [C*8-1:0]  w,
    input  wire [7:0]      rd_row,
    output wire [C*32-1:0] rd_data
);
  /* verilator inline_module */  // probes address its registers by their flat names
  wire [C*32-1:0] acc_rows [0:R-1];
  genvar i, j;
  generate
    for (i = 0; i < R; i = i + 1) begin : row
      for (j = 0; j < C; j = j + 1) begin : pe
        reg  [31:0]        acc;
        wire signed [15:0] prod = $signed(x[i*8 +: 8]) * $signed(w[j*8 +: 8]);
        wire [31:0]        base;
        if (RESCALE) begin : rs
          // alpha <= 2^15 (Q0.15): a 32 x 17-bit product
          wire signed [49:0] scaled = $signed(acc) * $signed({1'b0, alpha[i*32 +: 17]}) + 50'sd16384;
          /* verilator lint_off UNUSEDSIGNAL */
          wire [49:0] shifted = scaled >>> 15;
          /* verilator lint_on UNUSEDSIGNAL */
          assign base = clr ? 32'd0 : sc ? shifted[31:0] : acc;
        end else begin : plain
          assign base = clr ? 32'd0 : acc;
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
