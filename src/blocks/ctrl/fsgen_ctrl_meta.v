// Compressed matmul operands (memory-value sparsity, fsgen_ctrl.v with CMP_A / CMP_B = 1):
// before an operand tile the controller reads the tile's metadata record (MA_BEATS / MB_BEATS
// beats at meta_a_addr / meta_b_addr, one bit per tile row, src/core/compression.h) into
// this unit, then fetches only the rows marked non-zero: skip_a_row / skip_b_row say the
// current row is all zero (cleared in the buffer without the DMA). The models' counterpart is
// TileSequencer::load_operand_tile (src/blocks/ctrl/sequencer_matmul.cpp).
module fsgen_ctrl_meta #(
    parameter W = 8,                             // bytes per DMA beat
    parameter CMP_A = 0,                         // 1: A is compressed
    parameter CMP_B = 0,                         // 1: B is compressed
    parameter MA_BEATS = 1,                      // beats of one A tile's metadata record
    parameter MB_BEATS = 1,                      // beats of one B tile's metadata record
    parameter MD_BEATS = (MA_BEATS > MB_BEATS) ? MA_BEATS : MB_BEATS
) (
    input  wire            clk,
    input  wire            rst_n,
    input  wire            we,                   // a beat of the record arrives
    input  wire [7:0]      beat,
    input  wire [W*8-1:0]  data,
    /* verilator lint_off UNUSEDSIGNAL */         // a record's bits cover the tile's rows only
    input  wire [7:0]      row,                  // the operand row being loaded
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [15:0]     mt, nt, kt,           // the tile's indices
    input  wire [15:0]     tiles_n, tiles_k,
    input  wire [31:0]     addr_meta_a,
    input  wire [31:0]     addr_meta_b,
    output wire            skip_a_row,
    output wire            skip_b_row,
    output wire [31:0]     meta_a_addr,
    output wire [31:0]     meta_b_addr
);
  reg  [MD_BEATS*W*8-1:0] meta_q;               // bit r: tile row r is non-zero
  wire [7:0] md_beat = ({24'd0, beat} < MD_BEATS) ? beat : 8'd0;
  /* verilator lint_off WIDTH */
  assign skip_a_row = (CMP_A != 0) && !meta_q[row];
  assign skip_b_row = (CMP_B != 0) && !meta_q[row];
  /* verilator lint_on WIDTH */
  assign meta_a_addr = addr_meta_a + ({16'd0, mt} * tiles_k + {16'd0, kt}) * (MA_BEATS * W);
  assign meta_b_addr = addr_meta_b + ({16'd0, kt} * tiles_n + {16'd0, nt}) * (MB_BEATS * W);
  always @(posedge clk) begin
    if (!rst_n) meta_q <= {MD_BEATS*W*8{1'b0}};
    else if (we) meta_q[md_beat*W*8 +: W*8] <= data;
  end
endmodule
