// The technology libraries that ship with fsgen (tech/*.lib), embedded at build time.
#pragma once
#include <map>
#include <string>

namespace fsgen {
// File name -> liberty text.
const std::map<std::string, std::string>& tech_library();
}  // namespace fsgen
