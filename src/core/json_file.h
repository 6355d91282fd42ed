// Reading a JSON file with located errors: "<path>: cannot open <what> file[: hint]" or
// "<path>: malformed <what> JSON: <parser message>".
#pragma once
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "core/error.h"

namespace fsgen {

inline nlohmann::json read_json_file(const std::string& path, const std::string& what, const std::string& hint = "") {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open " + what + " file" + (hint.empty() ? "" : ": " + hint));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    fail(path, "malformed " + what + " JSON: " + e.what());
  }
}

}  // namespace fsgen
