// FSGEN_GATED_ALWAYS(GROUP, WRITE): the head of an always block whose registers (a group)
// take a value only at the rising edges of clk where WRITE is high, and hold otherwise:
//
//   `FSGEN_GATED_ALWAYS(out_row, !rst_n || out_row_we) out_row_q <= ...;
//
// With FSGEN_CLOCK_GATES defined (synthesis onto a liberty that has an integrated clock-gating
// cell: src/power/techmap.cpp) the group is clocked by gclk_<GROUP>, the output of an
// fsgen_clock_gate u_gate_<GROUP> enabled by WRITE, so that a held register does not pay its
// clock pins. Otherwise (Verilator, a library without a clock-gating cell) the group is
// clocked by clk with WRITE as its write enable: the same values at every edge, without a
// derived clock, which Verilator's scheduler would settle in a second pass at every edge.
// WRITE must not hold a comma (it is a macro argument); the module must have a clk.
`ifndef FSGEN_CLOCK_GATE_VH
`define FSGEN_CLOCK_GATE_VH
`ifdef FSGEN_CLOCK_GATES
`define FSGEN_GATED_ALWAYS(GROUP, WRITE) \
  wire gclk_``GROUP; \
  fsgen_clock_gate u_gate_``GROUP (.clk(clk), .en(WRITE), .gclk(gclk_``GROUP)); \
  always @(posedge gclk_``GROUP)
`else
`define FSGEN_GATED_ALWAYS(GROUP, WRITE) always @(posedge clk) if (WRITE)
`endif
`endif
