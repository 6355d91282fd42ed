// Row transfers of the controller (fsgen_ctrl.v), one sequencer for every load and store of
// every kernel: a transfer moves `rows` rows, one DMA command per row. A loaded row takes
// ISSUE (its command) and WAIT (until the DMA's cmd_done); a stored row is prepared first,
// READ (its source row is read) and CONV (converted: requantised or normalised). A row the
// caller marks `skip` in its ISSUE cycle (a compressed operand's all-zero row) issues no
// command and leaves WAIT in the next cycle. The caller owns what moves (addresses, beats,
// buffer writes) and reads the phase strobes. The models' counterpart: the executors' row
// loads and stores (src/blocks/ctrl/sequencer.h), timed by MemoryTiming::row_load_cycles
// and row_store_cycles (src/core/memory_timing.h).
// A transfer starts in the first cycle of a state that moves rows at the row the counter
// holds (0: the controller clears it before); the counter returns to 0 when a load ends and
// holds its last value when a store ends (the rows a store read stay addressed until the
// controller clears it).
module fsgen_ctrl_rows (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       active,     // the controller is in a state that moves rows; its first cycle starts at row 0
    input  wire       store,      // the transfer stores: its rows are prepared (READ, CONV) before their command
    input  wire       clear,      // the row counter returns to 0 (a tile begins)
    input  wire [7:0] rows,       // rows of the running transfer, held while it runs
    input  wire       skip,       // in ISSUE: this row is not moved
    input  wire       cmd_done,
    output wire       read,       // READ cycle of a stored row
    output wire       conv,       // CONV cycle of a stored row
    output wire       issue,      // ISSUE cycle of a row
    output wire       waiting,    // WAIT cycles of a row
    output wire       last,       // the transfer's last row completes in this cycle
    output reg  [7:0] row
);
  localparam [1:0] P_READ = 2'd0, P_CONV = 2'd1, P_ISSUE = 2'd2, P_WAIT = 2'd3;
  reg  [1:0] phase;
  reg        busy, skip_q;  // busy: past the transfer's first cycle
  wire [1:0] ph = busy ? phase : store ? P_READ : P_ISSUE;
  wire       row_done = waiting && (cmd_done || skip_q);
  assign read = active && ph == P_READ;
  assign conv = active && ph == P_CONV;
  assign issue = active && ph == P_ISSUE;
  assign waiting = active && ph == P_WAIT;
  assign last = row_done && row == rows - 8'd1;

  always @(posedge clk) begin
    if (!rst_n) begin
      phase <= P_ISSUE; busy <= 1'b0; skip_q <= 1'b0; row <= 8'd0;
    end else begin
      if (clear) row <= 8'd0;
      if (active) begin
        busy <= !last;
        if (read) phase <= P_CONV;
        if (conv) phase <= P_ISSUE;
        if (issue) begin skip_q <= skip; phase <= P_WAIT; end
        if (last) begin
          if (!store) row <= 8'd0;
        end else if (row_done) begin
          row <= row + 8'd1;
          phase <= store ? P_READ : P_ISSUE;
        end
      end
    end
  end
endmodule
