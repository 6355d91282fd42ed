#include "flow/tools.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/error.h"
#include "core/write_file.h"

namespace fsgen {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string find_tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    fs::path p = fs::path(dir) / name;
    if (fs::exists(p)) return p.string();
  }
  return "";
}

std::string require_tool(const std::string& name) {
  const std::string path = find_tool(name);
  if (path.empty()) fail(name, "tool not found on PATH: install it with scripts/install-deps.sh");
  return path;
}

CommandResult run_command(const std::string& command) {
  CommandResult r{0, ""};
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) fail(command, "cannot start command");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string verilator_objcache() { return find_tool("ccache").empty() ? "" : " OBJCACHE=ccache"; }

std::string fingerprint_key(const std::string& fingerprint) {
  return std::to_string(std::hash<std::string>{}(fingerprint));
}

namespace {
std::string stamp_of(const std::string& fingerprint) { return fingerprint_key(fingerprint); }
}  // namespace

bool stamp_matches(const std::string& stamp_file, const std::string& fingerprint) {
  return fs::exists(stamp_file) && read_text_file(stamp_file) == stamp_of(fingerprint);
}

void write_stamp(const std::string& stamp_file, const std::string& fingerprint) {
  write_text_file(stamp_file, stamp_of(fingerprint), "build stamp");
}

}  // namespace fsgen
