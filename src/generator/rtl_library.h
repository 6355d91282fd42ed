// The Verilog module library (src/generator/rtl/*.v), embedded at build time.
#pragma once
#include <map>
#include <string>

namespace fsgen {
// File name -> Verilog text.
const std::map<std::string, std::string>& rtl_library();
}  // namespace fsgen
