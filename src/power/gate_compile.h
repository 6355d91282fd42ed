// A mapped netlist made ready for fsgen's gate-level simulator (power/gate_engine.h): each
// cell's liberty functions as truth tables (a flip-flop's ff group too), the flip-flops
// first and the combinational cells ordered so that one pass settles them.
#pragma once
#include <string>
#include <vector>

#include "power/gate_engine.h"
#include "power/gate_power.h"
#include "power/liberty.h"

namespace fsgen {

// The truth table of a liberty boolean function (`!` and postfix `'` negate, `^` xor, `&`,
// `*` or a space and, `|` or `+` or; in that order of precedence) of `vars`. UserError
// naming `where` on a malformed function or a name that is not one of vars.
fsgen_gates::Table liberty_function_table(const std::string& function, const std::vector<std::string>& vars,
                                          const std::string& where);

// An integrated clock-gating cell (LibertyClockGate) is modelled by its role, not by its
// statetable. UserError naming the cell for a cell the simulator cannot model (a latch, a
// cell without a function on an output) or a loop of combinational cells.
fsgen_gates::Netlist compile_gate_netlist(const GateNetlist& netlist, const LibertyLibrary& lib);

}  // namespace fsgen
