// Window scheduler of compute-value sparsity (fsgen_ctrl.v with SPARSE = 1, beside the value
// networks of fsgen_sparse_net.v): the k tile (a score tile's head dim) is cut into windows
// of SK steps, the PE grid into LM x LN blocks (row lanes x column lanes). A block needs step
// t of the window when its x rows (XSP = 1) and its w columns (WSP = 1) hold a non-zero at
// that step; each stream cycle (`step`) every block issues its lowest needed step (sel, has)
// and the networks route the window (xwin, wwin, which the controller reads from its buffers
// at window start kb) to the array's lanes. A window lasts as many cycles as its busiest
// block needs, at least one. A systolic array takes the lanes through skew registers: after
// the last window the stream drains for TM + TN - 2 cycles (SYS = 1), the networks issuing
// nothing. tile_end marks the tile's last stream cycle. The models' counterpart is
// src/blocks/sparse_net/model.cpp.
module fsgen_ctrl_window #(
    parameter TM = 8,
    parameter TN = 8,
    parameter TK = 8,
    parameter SK = 1,                            // window: k steps offered per cycle
    parameter LM = 1,                            // row lanes
    parameter LN = 1,                            // column lanes
    parameter XSP = 0,                           // 1: skip steps whose x rows are zero
    parameter WSP = 0,                           // 1: skip steps whose w columns are zero
    parameter SYS = 0,                           // 1: the array is systolic (drains after the windows)
    parameter SELW = (SK > 1) ? $clog2(SK) : 1
) (
    input  wire                   clk,
    input  wire                   rst_n,
    input  wire                   step,          // a stream cycle
    /* verilator lint_off UNUSEDSIGNAL */        // read only where XSP / WSP = 1
    input  wire [TM*SK*8-1:0]     xwin,          // x row r, window step t at (r*SK + t)*8
    input  wire [TN*SK*8-1:0]     wwin,          // w column c, window step t at (c*SK + t)*8
    /* verilator lint_on UNUSEDSIGNAL */
    output reg  [7:0]             kb,            // first k step of the current window
    output wire [LM*LN*SELW-1:0]  sel,
    output wire [LM*LN-1:0]       has,
    output wire                   tile_end
);
  localparam integer RPL = TM / LM, CPL = TN / LN;  // rows per row lane, columns per column lane
  localparam integer SK_LAST_I = TK - SK;
  localparam [7:0]   SK8 = SK[7:0], KB_LAST = SK_LAST_I[7:0];
  reg                 drain;           // the windows are done; the systolic feeders drain
  reg  [LM*LN*SK-1:0] done;            // window steps each block has issued
  reg  [LM*SK-1:0]    xnz;             // row lane a has a non-zero x at window step t
  reg  [LN*SK-1:0]    wnz;             // column lane b has a non-zero w at window step t
  wire [LM*LN*SK-1:0] need_all;
  wire [LM*LN*SK-1:0] left;            // still needed after this cycle's issue
  wire                win_last = ~|left;
  integer za, zb, zt, zr;
  always @* begin
    xnz = {LM*SK{1'b1}};
    wnz = {LN*SK{1'b1}};
    if (XSP != 0) begin
      xnz = {LM*SK{1'b0}};
      for (za = 0; za < LM; za = za + 1)
        for (zt = 0; zt < SK; zt = zt + 1)
          for (zr = 0; zr < RPL; zr = zr + 1)
            if (xwin[((za*RPL + zr)*SK + zt)*8 +: 8] != 8'd0) xnz[za*SK + zt] = 1'b1;
    end
    if (WSP != 0) begin
      wnz = {LN*SK{1'b0}};
      for (zb = 0; zb < LN; zb = zb + 1)
        for (zt = 0; zt < SK; zt = zt + 1)
          for (zr = 0; zr < CPL; zr = zr + 1)
            if (wwin[((zb*CPL + zr)*SK + zt)*8 +: 8] != 8'd0) wnz[zb*SK + zt] = 1'b1;
    end
  end
  genvar ga, gb;
  generate
    for (ga = 0; ga < LM; ga = ga + 1) begin : sp_row
      for (gb = 0; gb < LN; gb = gb + 1) begin : sp_col
        localparam integer BLK = ga*LN + gb;
        wire [SK-1:0] need = xnz[ga*SK +: SK] & wnz[gb*SK +: SK] & ~done[BLK*SK +: SK];
        // Lowest needed step: isolate the lowest set bit, then encode it.
        wire [SK-1:0] low = need & (~need + {{(SK-1){1'b0}}, 1'b1});
        reg  [SELW-1:0] enc;
        integer e;
        always @* begin
          enc = {SELW{1'b0}};
          for (e = 0; e < SK; e = e + 1) if (low[e]) enc = e[SELW-1:0];
        end
        assign need_all[BLK*SK +: SK] = need;
        assign left[BLK*SK +: SK] = need & ~low;
        assign sel[BLK*SELW +: SELW] = enc;
        assign has[BLK] = |need & ~drain;
      end
    end
  endgenerate
  // After this cycle: the blocks' issued steps, the next window, the end of the tile's stream.
  wire [LM*LN*SK-1:0] done_next = win_last ? {LM*LN*SK{1'b0}} : done | (need_all & ~left);
  wire [7:0]          kb_next = (kb == KB_LAST) ? 8'd0 : kb + SK8;
  wire                stream_end = win_last && (kb == KB_LAST);
  localparam integer DRAIN = (SYS != 0) ? TM + TN - 2 : 0;
  localparam integer DRAIN_LAST_I = (DRAIN > 0) ? DRAIN - 1 : 0;
  localparam [7:0]   DRAIN_LAST = DRAIN_LAST_I[7:0];
  reg  [7:0]          drain_n;
  assign tile_end = drain ? (drain_n == DRAIN_LAST) : (stream_end && DRAIN == 0);
  always @(posedge clk) begin
    if (!rst_n) begin
      kb <= 8'd0; done <= {LM*LN*SK{1'b0}}; drain <= 1'b0; drain_n <= 8'd0;
    end else if (step && drain) begin
      drain_n <= drain_n + 8'd1;
      if (drain_n == DRAIN_LAST) drain <= 1'b0;
    end else if (step) begin
      done <= done_next;
      if (win_last) kb <= kb_next;
      if (stream_end && DRAIN != 0) begin drain <= 1'b1; drain_n <= 8'd0; end
    end
  end
endmodule
