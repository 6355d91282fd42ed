// Fan-out buffer trees of a delay-mapped netlist.
//
// ABC times a flip-flop's output as a primary input, an ideal driver, so its `buffer` pass
// leaves a register that feeds hundreds of pins on the flip-flop's own output (an 8x8
// matmul controller's pass counter bit drives 473 pins, 0.9 pF, 3.7 ns on fsgen45's
// DFF_X1); and where it does buffer a large fan-out it builds chains (a fused controller's
// req_mult bit reached the requantiser's last lane through 30 buffers in series, 3.6 ns). A
// timing-driven flow buffers after placement; this pass does it structurally: the
// synthesis' buffers are taken out (those whose output only cell pins read) and every net
// with more than `max_fanout` cell inputs gets a balanced tree of the library's buffer, at
// most `max_fanout` pins per driver.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "power/liberty.h"

namespace fsgen {

struct FanoutBuffers {
  std::string buffer_cell;                  // the library's buffer the trees are built of
  uint64_t nets = 0;                        // nets given a tree
  uint64_t buffers = 0;                     // buffer cells inserted
  double area_um2 = 0;                      // their area
  std::map<std::string, uint64_t> removed;  // the synthesis' buffers taken out, by cell
  double removed_area_um2 = 0;              // their area
};

// The library's buffer for fan-out trees: of the cells whose one output follows their one
// input, the one with the least delay into `max_fanout` typical input pins (a leaf) plus
// into `max_fanout` of its own inputs (a level above). UserError if the library has none.
const LibertyCell& fanout_buffer_cell(const LibertyLibrary& lib, size_t max_fanout);

// Reads the Yosys-written netlist `in_v` (write_verilog -noattr -simple-lhs: one pin per
// line), rebuilds its fan-out and writes the result to `out_v`. A buffer whose output is a
// port's bit, or a net an assign or a black box names, stays, as does the net it drives.
FanoutBuffers rebuild_fanout_trees(const std::string& in_v, const std::string& out_v, const LibertyLibrary& lib,
                                   size_t max_fanout);

}  // namespace fsgen
