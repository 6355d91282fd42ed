// External tools: locating them, running them, and keying their builds by their inputs.
#pragma once
#include <string>
#include <vector>

namespace fsgen {

// Path of an executable on PATH; UserError naming the tool and the install script if absent.
std::string require_tool(const std::string& name);
// The same, "" when absent (tools that only speed things up).
std::string find_tool(const std::string& name);
// A Verilator makefile setting that compiles its objects through ccache when it is installed
// (" OBJCACHE=ccache"), else "": the runtime's objects then compile once for every build.
std::string verilator_objcache();

struct CommandResult {
  int status;
  std::string output;  // stdout and stderr, interleaved
};
CommandResult run_command(const std::string& command);
// The first line a tool prints for `flag` ("yosys -V"): a dataset's provenance.
std::string tool_version(const std::string& tool, const std::string& flag);

std::string read_text_file(const std::string& path);

// Builds keyed by their inputs: a stamp file beside a build holds the hash of everything it
// was made from (sources, flags, tool script); the build is reused while that matches.
bool stamp_matches(const std::string& stamp_file, const std::string& fingerprint);
void write_stamp(const std::string& stamp_file, const std::string& fingerprint);
// The hash a stamp holds, as text: a key for builds shared between folders.
std::string fingerprint_key(const std::string& fingerprint);
std::string shell_quote(const std::string& s);

}  // namespace fsgen
