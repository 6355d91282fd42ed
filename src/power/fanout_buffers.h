// Buffer trees on the flip-flops' fan-out of a delay-mapped netlist.
//
// ABC times a flip-flop's output as a primary input, an ideal driver, so its `buffer` pass
// leaves a register that feeds hundreds of pins on the flip-flop's own output (an 8x8
// matmul controller's pass counter bit drives 473 pins, 0.9 pF, 3.7 ns on fsgen45's
// DFF_X1). A timing-driven flow buffers such nets after placement; this pass does it
// structurally: every net a sequential cell drives with more than `max_fanout` cell inputs
// gets a balanced tree of the library's buffer, at most `max_fanout` pins per driver.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "power/liberty.h"

namespace fsgen {

struct FanoutBuffers {
  std::string buffer_cell;  // the library's buffer the trees are built of
  uint64_t nets = 0;        // nets given a tree
  uint64_t buffers = 0;     // buffer cells inserted
  double area_um2 = 0;      // their area
};

// The library's buffer for fan-out trees: of the cells whose one output follows their one
// input, the one whose output transitions fastest into `max_fanout` typical input pins (a
// leaf) plus into `max_fanout` of its own inputs (a level above).
// UserError if the library has none.
const LibertyCell& fanout_buffer_cell(const LibertyLibrary& lib, size_t max_fanout);

// Reads the Yosys-written netlist `in_v` (write_verilog -noattr -simple-lhs: one pin per
// line), inserts the trees and writes the result to `out_v`. A pin connected to an
// expression other than the net itself (a concatenation on a black box) and an assign's
// right-hand side stay on the flip-flop.
FanoutBuffers buffer_register_fanout(const std::string& in_v, const std::string& out_v, const LibertyLibrary& lib,
                                     size_t max_fanout);

}  // namespace fsgen
