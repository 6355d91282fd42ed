// One block's Verilated RTL inside the calling process, for mixed-level runs (fsgen simulate
// --rtl): the module is verilated with its parameters into a shared library (its C interface:
// validation/harness/rtl_block.cpp), which the simulation process loads; each instance is
// then driven through the RtlPorts interface (models/rtl_ports.h) by the block kind's RTL
// model.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/rtl_ports.h"

namespace fsgen {

struct RtlBlockSource {
  std::string module;                     // the top module
  std::map<std::string, int64_t> params;  // its parameters
  std::vector<std::string> verilog;       // the files to read; the module's own first
  std::string include_dir;                // where `include finds its headers
  // A whole core's probes.h (its design folder's): the library then reads the design's
  // probed registers (RtlPorts::read_probe). Empty for a block.
  std::string probes_header;
};

// Builds the block's shared library under <work_dir>/<module>_<key> (reused while its
// sources, parameters and the interface are unchanged; parallel runs take turns) and
// returns a maker of its instances. A module that does not verilate: UserError with
// Verilator's first error.
RtlPortsMaker build_rtl_block(const RtlBlockSource& source, const std::string& work_dir);

}  // namespace fsgen
