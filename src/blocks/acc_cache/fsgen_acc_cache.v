// Accumulator cache: SLOTS output tiles of TM x TN INT32 partial sums kept on chip
// while the reduction over k runs outside them. A write adds a vector of lanes to
// its cells (or overwrites them, with first): with ROWWISE = 1 row wr_idx from column
// wr_off on, otherwise column wr_idx from row wr_off on (LANES cells; an array smaller
// than the tile writes a sub-tile). With RESCALE = 1, sc first multiplies
// each written cell by its row's alpha (Q0.15, rounded: (acc * alpha + 2^14) >> 15),
// the online-softmax update of O. rd_data is row rd_row of slot rd_slot.
module fsgen_acc_cache #(
    parameter TM = 8,
    parameter TN = 8,
    parameter SLOTS = 1,
    parameter ROWWISE = 1,
    parameter RESCALE = 0,
    parameter LANES = ROWWISE ? TN : TM
) (
    input  wire               clk,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire               rst_n,  // contents need no reset: the first k tile overwrites
    input  wire               sc,     // used only with RESCALE = 1
    input  wire [TM*32-1:0]   alpha,  // 17 bits per row are used, only with RESCALE = 1
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire               wr,
    input  wire               first,
    input  wire [15:0]        wr_slot,
    input  wire [7:0]         wr_idx,
    input  wire [7:0]         wr_off,
    input  wire [LANES*32-1:0] wr_data,
    input  wire [15:0]        rd_slot,
    input  wire [7:0]         rd_row,
    output wire [TN*32-1:0]   rd_data
);
  /* verilator inline_module */  // probes address its registers by their flat names
  reg [31:0] mem [0:SLOTS*TM*TN-1];
  // Out-of-range indices address slot 0 / row 0 rather than leaving the array.
  wire [15:0] ws = ({16'd0, wr_slot} < SLOTS) ? wr_slot : 16'd0;
  wire [15:0] rs = ({16'd0, rd_slot} < SLOTS) ? rd_slot : 16'd0;
  wire [7:0]  rr = ({24'd0, rd_row} < TM) ? rd_row : 8'd0;
  wire [7:0]  wi = ({24'd0, wr_idx} < (ROWWISE ? TM : TN)) ? wr_idx : 8'd0;
  wire [7:0]  wo = ({24'd0, wr_off} + LANES <= (ROWWISE ? TN : TM)) ? wr_off : 8'd0;

  `include "fsgen_rescale.vh"

  function [31:0] base;  // the partial sum a write adds to
    input [31:0] old;
    input [16:0] a;
    begin
      base = first ? 32'd0 : (RESCALE != 0 && sc) ? rescale_q15(old, a) : old;
    end
  endfunction

  integer l;
  always @(posedge clk) begin
    if (wr)
      for (l = 0; l < LANES; l = l + 1)
        if (ROWWISE != 0)
          mem[(ws*TM + {24'd0, wi})*TN + {24'd0, wo} + l] <=
              base(mem[(ws*TM + {24'd0, wi})*TN + {24'd0, wo} + l], alpha[wi*32 +: 17]) + wr_data[l*32 +: 32];
        else
          mem[(ws*TM + {24'd0, wo} + l)*TN + {24'd0, wi}] <=
              base(mem[(ws*TM + {24'd0, wo} + l)*TN + {24'd0, wi}], alpha[({24'd0, wo} + l)*32 +: 17]) +
              wr_data[l*32 +: 32];
  end
  genvar j;
  generate
    for (j = 0; j < TN; j = j + 1) begin : rd
      assign rd_data[j*32 +: 32] = mem[(rs*TM + {8'd0, rr})*TN + j];
    end
  endgenerate
endmodule
