// Operand buffer of the tile sequencer (fsgen_ctrl.v's buf_a and buf_b): BYTES bytes read by
// RL byte lanes at addresses of their own (the array feeds, the window scheduler, the
// normaliser's residual) and written through four beat ports of W byte lanes and a clear
// port of CL lanes, each lane at its own address, in this order (a later port wins a byte
// two write in one cycle, which the sequencer never does):
//   wr[0]: a read beat along a row;  wr[1]: a read beat down a column (a transposed B);
//   clr:   a row the metadata says is zero;
//   wr[2], wr[3]: the fused kernels' V rows and loads.
// A write decodes only the address bits that index the buffer (AW): the sequencer never
// writes outside it, and a full 32-bit compare per lane and byte was the buffer's slowest
// path. Reads are combinational. A design whose buffer reaches the memory-macro threshold has it
// as an SRAM macro (a black box in synthesis, priced by the SRAM model: docs/POWER.md,
// "Memory macros"); below it, flip-flops inside the controller.
module fsgen_ctrl_buffer #(
    parameter BYTES = 64,
    parameter RL = 1,
    parameter W = 8,
    parameter CL = 8
) (
    input  wire              clk,
    input  wire [3:0]        wr,
    input  wire [4*W*32-1:0] wr_addr,  // port p's lane b at [(p*W + b)*32 +: 32]
    input  wire [4*W*8-1:0]  wr_data,
    input  wire              clr,
    input  wire [CL*32-1:0]  clr_addr,
    input  wire [RL*32-1:0]  rd_addr,
    output wire [RL*8-1:0]   rd_data
);
  localparam integer AW = (BYTES > 1) ? $clog2(BYTES) : 1;
  reg [7:0] mem [0:BYTES-1];
  integer b;
  always @(posedge clk) begin
    if (wr[0])
      for (b = 0; b < W; b = b + 1) mem[wr_addr[b*32 +: AW]] <= wr_data[b*8 +: 8];
    if (wr[1])
      for (b = 0; b < W; b = b + 1) mem[wr_addr[(W + b)*32 +: AW]] <= wr_data[(W + b)*8 +: 8];
    if (clr)
      for (b = 0; b < CL; b = b + 1) mem[clr_addr[b*32 +: AW]] <= 8'd0;
    if (wr[2])
      for (b = 0; b < W; b = b + 1) mem[wr_addr[(2*W + b)*32 +: AW]] <= wr_data[(2*W + b)*8 +: 8];
    if (wr[3])
      for (b = 0; b < W; b = b + 1) mem[wr_addr[(3*W + b)*32 +: AW]] <= wr_data[(3*W + b)*8 +: 8];
  end
  genvar g;
  generate
    for (g = 0; g < RL; g = g + 1) begin : rd
      assign rd_data[g*8 +: 8] = mem[rd_addr[g*32 +: 32]];
    end
  endgenerate
endmodule
