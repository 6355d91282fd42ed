// The sources a characterisation testbench is compiled with (power/gate_engine.h), embedded
// at build time, keyed by file name.
#pragma once
#include <map>
#include <string>

namespace fsgen {
// File name -> C++ text.
const std::map<std::string, std::string>& testbench_sources();
}  // namespace fsgen
