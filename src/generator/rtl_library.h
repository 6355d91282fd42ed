// The Verilog module library (src/blocks/<kind>/*.v and *.vh), embedded at build time, keyed by file name.
#pragma once
#include <map>
#include <string>

namespace fsgen {
// File name -> Verilog text.
const std::map<std::string, std::string>& rtl_library();
}  // namespace fsgen
