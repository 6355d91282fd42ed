// Value network of one operand (compute-value sparsity, docs/SPARSITY.md). Each cycle
// of a sparse stream (step), every operand row r and every lane l takes one of the SK
// values of its window, win[r][sel], where sel and has come from the block the (row,
// lane) pair belongs to (blocks are row lanes x column lanes of the PE grid; the row's
// own lane is r / (ROWS / OWN_LANES)); a block that issues nothing drives 0. The picks
// are registered, so the array sees them in the next cycle like a dense controller's
// operand register. The rows are built as GROUPS separate crossbars (the paper's g:
// smaller networks, shorter paths). C, M, I, O and S record the topology Algorithm 1
// gave (src/generator/sparsity.h) for reports; M, the fan-out of each output, is
// realised by the array's lane wiring.
module fsgen_sparse_net #(
    parameter ROWS = 8,        // operand rows along its own iterator (x: PE rows, w: PE columns)
    parameter SK = 4,          // window values per row (i)
    parameter LANES = 1,       // lanes along the partner iterator: outputs per row
    parameter OWN_LANES = 1,   // lanes along the own iterator (the other network's LANES)
    parameter OWN_MAJOR = 1,   // 1: block of (own lane a, lane b) is a * LANES + b; 0: b * OWN_LANES + a
    parameter GROUPS = 1,      // crossbar groups along the rows
    parameter SELW = 2,        // bits of a window select
    /* verilator lint_off UNUSEDPARAM */
    parameter C = 1, M = 1, I = SK, O = 1, S = 1
    /* verilator lint_on UNUSEDPARAM */
) (
    input  wire                          clk,
    input  wire                          rst_n,
    input  wire                          step,
    input  wire [ROWS*SK*8-1:0]          win,
    input  wire [OWN_LANES*LANES*SELW-1:0] sel,
    input  wire [OWN_LANES*LANES-1:0]    has,
    output reg  [ROWS*LANES*8-1:0]       out_q /*verilator public_flat_rd*/
);
  /* verilator inline_module */  // probes address out_q by its flat name
  localparam integer RPG = ROWS / GROUPS;     // rows per crossbar group
  localparam integer RPL = ROWS / OWN_LANES;  // rows per own lane
  genvar g, r, l;
  generate
    for (g = 0; g < GROUPS; g = g + 1) begin : grp
      for (r = g*RPG; r < (g+1)*RPG; r = r + 1) begin : row
        for (l = 0; l < LANES; l = l + 1) begin : lane
          localparam integer BLK = OWN_MAJOR ? (r / RPL) * LANES + l : l * OWN_LANES + r / RPL;
          wire [SELW-1:0] s = sel[BLK*SELW +: SELW];
          wire [7:0] pick = has[BLK] ? win[(r*SK + {{(32-SELW){1'b0}}, s})*8 +: 8] : 8'd0;
          always @(posedge clk) begin
            if (!rst_n) out_q[(r*LANES + l)*8 +: 8] <= 8'd0;
            else if (step) out_q[(r*LANES + l)*8 +: 8] <= pick;
          end
        end
      end
    end
  endgenerate
endmodule
