// One pass of a PE array (fsgen_ctrl.v), one sequencer for both arrays and every kernel: a
// matmul tile or a score tile on array a, an O update (or one sub-tile of it) on array b.
// A pass may start by loading the array's stationary operand (LOAD, LOAD_ROWS cycles: a dot
// array's weights or inputs), then streams (STREAM cycles, or, with SPARSE = 1, until the
// window scheduler's stream_end) and ends with the array's pipeline tail (TAIL cycles, the
// last of which is `last`). `k` is the step the caller feeds: the row loaded in LOAD, the
// stream step in STREAM. The caller owns what each step carries. The models' counterpart
// is tile_cycles() (src/models/pe_array_model.h) and the executors' array phases
// (src/blocks/ctrl/sequencer.h).
// A pass starts in the first cycle of a state that runs one (`active`), with LOAD when
// `load` says so; a state that stays after `last` runs the next pass.
module fsgen_ctrl_pass #(
    parameter LOAD_ROWS = 1,   // stationary rows loaded when the pass loads
    parameter STREAM = 1,      // stream cycles (SPARSE = 0)
    parameter TAIL = 1,        // tail cycles, 1..4
    parameter SPARSE = 0       // 1: the stream ends on stream_end
) (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       active,
    input  wire       load,        // read in a pass's first cycle: it starts with LOAD
    /* verilator lint_off UNUSEDSIGNAL */  // read only with SPARSE = 1
    input  wire       stream_end,  // the stream's last cycle (SPARSE = 1)
    /* verilator lint_on UNUSEDSIGNAL */
    output wire       loading,
    output wire       streaming,
    output wire       tailing,
    output wire       last,
    output reg  [7:0] k
);
  localparam [1:0] P_LOAD = 2'd0, P_STREAM = 2'd1, P_TAIL = 2'd2;
  localparam integer LOAD_LAST_I = LOAD_ROWS - 1;
  localparam integer STREAM_LAST_I = STREAM - 1;
  localparam integer TAIL_LAST_I = TAIL - 1;
  localparam [7:0] LOAD_LAST = LOAD_LAST_I[7:0];
  localparam [7:0] STREAM_LAST = STREAM_LAST_I[7:0];
  localparam [1:0] TAIL_LAST = TAIL_LAST_I[1:0];
  reg  [1:0] phase;
  reg  [1:0] t;
  reg        busy;  // past the pass's first cycle
  wire [1:0] ph = busy ? phase : load ? P_LOAD : P_STREAM;
  assign loading = active && ph == P_LOAD;
  assign streaming = active && ph == P_STREAM;
  assign tailing = active && ph == P_TAIL;
  assign last = tailing && t == TAIL_LAST;
  wire load_end = loading && k == LOAD_LAST;
  wire stream_done = streaming && ((SPARSE != 0) ? stream_end : k == STREAM_LAST);

  always @(posedge clk) begin
    if (!rst_n) begin
      phase <= P_STREAM; t <= 2'd0; busy <= 1'b0; k <= 8'd0;
    end else if (active) begin
      busy <= !last;
      if (loading) begin
        k <= load_end ? 8'd0 : k + 8'd1;
        phase <= load_end ? P_STREAM : P_LOAD;
      end
      if (streaming) begin
        t <= 2'd0;
        k <= stream_done ? 8'd0 : k + 8'd1;
        phase <= stream_done ? P_TAIL : P_STREAM;
      end
      if (tailing) t <= t + 2'd1;
    end
  end
endmodule
