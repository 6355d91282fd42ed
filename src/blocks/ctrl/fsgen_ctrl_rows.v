// Row transfers of the controller (fsgen_ctrl.v): a transfer moves `rows` rows, one DMA
// command per row (fsgen_dma.v). The controller has two: one for the loads on the DMA's read
// port, one for the stores on its write port.
//  - A load offers its rows' commands back to back: a row is in ISSUE until the DMA takes
//    its command (cmd_ready), so up to the DMA's OUT bursts are in flight while the next
//    rows issue; the data comes back tagged with its row. A row the caller marks `skip` in
//    its ISSUE cycle (a compressed operand's all-zero row) issues no command and takes that
//    one cycle.
//  - A stored row is prepared first, READ (its source row is read) and CONV (converted:
//    requantised or normalised; a conversion in two stages finishes in the first ISSUE cycle,
//    as the DMA reads a row's data from the cycle after it takes the command), then ISSUE
//    until the DMA takes it, then WDATA until the DMA has sent its data (w_free), so that the
//    next row may be prepared in the same register.
//  - After the last row, DRAIN until the DMA has no burst of the transfer left (rd_idle for
//    a load, wr_idle for a store); `last` is that cycle. A load that does not drain (the
//    matmul loader's, whose data the caller tracks by burst counts) ends in the cycle its
//    last row is taken.
// The caller owns what moves (addresses, beats, buffer writes) and reads the phase strobes;
// `offset` is the row's distance from the transfer's first (row x stride), kept by adding the
// stride as the row advances so that an address is a base plus an offset (no multiplier).
// The models' counterpart: the executors' row loads and stores (src/blocks/ctrl/sequencer.h),
// timed by DmaReads / DmaWrites (src/core/memory_timing.h).
// A transfer starts in the first cycle of a state that moves rows, at row 0: the counter
// returns to 0 when a load ends and holds its last value when a store ends (the rows a store
// read stay addressed until the controller clears it, which it does before the next store).
module fsgen_ctrl_rows (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       active,     // the controller is in a state that moves rows; its first cycle starts at row 0
    input  wire       store,      // the transfer stores: its rows are prepared (READ, CONV) before their command
    input  wire       drain,      // the transfer ends when its bursts are done (else when the last row is taken)
    input  wire       clear,      // the row counter returns to 0 (a tile begins)
    input  wire [7:0] rows,       // rows of the running transfer, held while it runs
    input  wire [31:0] stride,    // bytes between the transfer's rows in memory, held while it runs
    input  wire       skip,       // in ISSUE: this row is not moved
    input  wire       cmd_ready,  // the DMA takes the command offered
    input  wire       w_free,     // the DMA has sent the last write's data
    input  wire       idle,       // the DMA has no burst in flight in the transfer's direction
    output wire       read,       // READ cycle of a stored row
    output wire       conv,       // CONV cycle of a stored row
    output wire       issue,      // ISSUE cycles of a row
    output wire       last,       // the transfer's last cycle
    output reg  [7:0] row,
    output reg  [31:0] offset     // row x stride
);
  localparam [2:0] P_READ = 3'd0, P_CONV = 3'd1, P_ISSUE = 3'd2, P_WDATA = 3'd3, P_DRAIN = 3'd4;
  reg  [2:0] phase;
  reg        busy;  // past the transfer's first cycle
  reg        at_last;  // (busy) the row is the transfer's last: set as the row advances, so
                       // that no cycle compares the row with the count on the way to the counter
  wire [2:0] ph = busy ? phase : store ? P_READ : P_ISSUE;
  wire       last_row = busy ? at_last : rows == 8'd1;  // a transfer starts at row 0
  wire       issued = issue && (skip || cmd_ready);
  // A row is done when its command is taken (a load) or its data sent (a store).
  wire       row_done = store ? (active && ph == P_WDATA && w_free) : issued;
  assign read = active && ph == P_READ;
  assign conv = active && ph == P_CONV;
  assign issue = active && ph == P_ISSUE;
  assign last = active && (drain ? ph == P_DRAIN && idle : row_done && last_row);

  always @(posedge clk) begin
    if (!rst_n) begin
      phase <= P_ISSUE; busy <= 1'b0; at_last <= 1'b0; row <= 8'd0; offset <= 32'd0;
    end else begin
      if (clear) begin row <= 8'd0; offset <= 32'd0; end
      if (active) begin
        busy <= !last;
        at_last <= (row_done && !last_row) ? row + 8'd2 == rows : row + 8'd1 == rows;
        if (read) phase <= P_CONV;
        if (conv) phase <= P_ISSUE;
        if (issued && store) phase <= P_WDATA;
        if (last) begin
          if (!store) begin row <= 8'd0; offset <= 32'd0; end
        end else if (row_done) begin
          if (last_row) phase <= P_DRAIN;
          else begin
            row <= row + 8'd1;
            offset <= offset + stride;
            phase <= store ? P_READ : P_ISSUE;
          end
        end
      end
    end
  end
endmodule
