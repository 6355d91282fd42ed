// fsgen_clock_gate: an integrated clock gate. gclk pulses with clk in the cycles whose en is
// high at the rising edge: en is latched while clk is low, so a glitch of en in the cycle
// cannot reach gclk. A register clocked by gclk holds without paying its clock pins.
//
// Registers reach it through FSGEN_GATED_ALWAYS (fsgen_clock_gate.vh) with FSGEN_CLOCK_GATES
// defined. Synthesis onto a liberty (src/power/techmap.cpp) writes this module as the
// library's integrated clock-gating cell instead; this text is the gate's behaviour, for a
// simulation of the gated registers (tests/flow/rtl_block_test.cpp holds it equal to the
// enabled registers Verilator runs by default).
module fsgen_clock_gate (
    input  wire clk,
    input  wire en,
    output wire gclk
);
  reg en_latched;
  /* verilator lint_off LATCH */
  always @(*)
    if (!clk) en_latched = en;
  /* verilator lint_on LATCH */
  assign gclk = clk & en_latched;
endmodule
