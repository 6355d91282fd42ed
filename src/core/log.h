// The tool's one logger (spdlog): messages about a run's progress and its warnings, on
// stderr and optionally into a file. Results go to stdout through the printers, never here.
#pragma once
#include <spdlog/spdlog.h>

#include <string>

namespace fsgen {

enum class Verbosity { kQuiet, kNormal, kVerbose };

// Sets the level of every message from here on (quiet: warnings and errors only; verbose:
// debug messages too) and, when log_file is not empty, also writes every message there.
void configure_logging(Verbosity verbosity, const std::string& log_file = "");

// The logger; usable before configure_logging (normal verbosity, stderr only).
spdlog::logger& logger();

// Whether progress bars may draw: stderr is a terminal and the run is not quiet.
bool progress_shown();

}  // namespace fsgen
