// Accumulator cache: SLOTS output tiles of TM x TN INT32 partial sums kept on chip
// while the reduction over k runs outside them. A write adds a vector of lanes
// (or overwrites on the first k tile): with ROWWISE = 1 a row wr_idx of TN lanes,
// otherwise a column wr_idx of TM lanes. rd_data is row rd_row of slot rd_slot.
module fsgen_acc_cache #(
    parameter TM = 8,
    parameter TN = 8,
    parameter SLOTS = 1,
    parameter ROWWISE = 1,
    parameter LANES = ROWWISE ? TN : TM
) (
    input  wire               clk,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire               rst_n,  // contents need no reset: the first k tile overwrites
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire               wr,
    input  wire               first,
    input  wire [15:0]        wr_slot,
    input  wire [7:0]         wr_idx,
    input  wire [LANES*32-1:0] wr_data,
    input  wire [15:0]        rd_slot,
    input  wire [7:0]         rd_row,
    output wire [TN*32-1:0]   rd_data
);
  reg [31:0] mem [0:SLOTS*TM*TN-1];
  // Out-of-range indices address slot 0 / row 0 rather than leaving the array.
  wire [15:0] ws = ({16'd0, wr_slot} < SLOTS) ? wr_slot : 16'd0;
  wire [15:0] rs = ({16'd0, rd_slot} < SLOTS) ? rd_slot : 16'd0;
  wire [7:0]  rr = ({24'd0, rd_row} < TM) ? rd_row : 8'd0;
  integer l;
  always @(posedge clk) begin
    if (wr)
      for (l = 0; l < LANES; l = l + 1)
        if (ROWWISE)
          mem[(ws*TM + {24'd0, wr_idx})*TN + l] <= (first ? 32'd0 : mem[(ws*TM + {24'd0, wr_idx})*TN + l]) + wr_data[l*32 +: 32];
        else
          mem[(ws*TM + l)*TN + {24'd0, wr_idx}] <= (first ? 32'd0 : mem[(ws*TM + l)*TN + {24'd0, wr_idx}]) + wr_data[l*32 +: 32];
  end
  genvar j;
  generate
    for (j = 0; j < TN; j = j + 1) begin : rd
      assign rd_data[j*32 +: 32] = mem[(rs*TM + {8'd0, rr})*TN + j];
    end
  endgenerate
endmodule
