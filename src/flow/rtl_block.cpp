#include "flow/rtl_block.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <regex>
#include <sstream>

#include "core/error.h"
#include "core/folder_lock.h"
#include "core/write_file.h"
#include "flow/tools.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

constexpr const char* kLibrary = "libfsgen_block.so";
constexpr const char* kPortsFile = "ports.txt";  // name width direction, one port a line

std::string interface_source() { return std::string(FSGEN_SOURCE_DIR) + "/validation/harness/rtl_block.cpp"; }

// The ports Verilator declared in the block's class header (VL_IN8(&clk,0,0); ...).
std::vector<RtlPorts::PortInfo> ports_of_header(const std::string& header, const std::string& source) {
  static const std::regex decl(R"(VL_(IN|OUT|INOUT)(8|16|64|W)?\(&(\w+),(\d+),(\d+))");
  std::vector<RtlPorts::PortInfo> ports;
  const std::string text = read_text_file(header);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator(); ++it) {
    const std::smatch& m = *it;
    if (m[1] == "INOUT") fail(source, "port " + m[3].str() + " is inout; a mixed-level block has inputs and outputs");
    ports.push_back({m[3], uint32_t(std::stoul(m[4]) - std::stoul(m[5]) + 1), m[1] == "OUT"});
  }
  if (ports.empty()) fail(source, "the verilated module has no ports");
  return ports;
}

// fsgen_block_ports.h for the interface: X(index, name) per input, then per output.
std::string ports_header(const std::vector<RtlPorts::PortInfo>& ports) {
  std::string in = "#define FSGEN_BLOCK_INPUTS(X)", out = "#define FSGEN_BLOCK_OUTPUTS(X)";
  for (size_t i = 0; i < ports.size(); ++i)
    (ports[i].output ? out : in) += " X(" + std::to_string(i) + ", " + ports[i].name + ")";
  return in + "\n" + out + "\n";
}

std::string ports_text(const std::vector<RtlPorts::PortInfo>& ports) {
  std::string s;
  for (const auto& p : ports) s += p.name + " " + std::to_string(p.width_bits) + (p.output ? " out\n" : " in\n");
  return s;
}

std::vector<RtlPorts::PortInfo> parse_ports_text(const std::string& path) {
  std::vector<RtlPorts::PortInfo> ports;
  std::istringstream in(read_text_file(path));
  std::string name, dir;
  uint32_t width = 0;
  while (in >> name >> width >> dir) ports.push_back({name, width, dir == "out"});
  return ports;
}

void fail_build(const RtlBlockSource& s, const std::string& step, const CommandResult& r) {
  const std::string tail = r.output.size() > 2000 ? r.output.substr(r.output.size() - 2000) : r.output;
  fail(s.verilog.front(), step + " of module " + s.module + " failed:\n" + tail);
}

void build_library(const RtlBlockSource& s, const fs::path& dir) {
  const std::string verilator = require_tool("verilator");
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string cmd = shell_quote(verilator) + " --cc --exe --top-module " + shell_quote(s.module) +
                    " --prefix Vfsgen_block -Wno-fatal -Wno-lint -Wno-style -Mdir " + shell_quote(dir.string()) +
                    " -o " + kLibrary + " -LDFLAGS " + shell_quote("-shared -Wl,-Bsymbolic") + " -CFLAGS " +
                    shell_quote("-fPIC -std=c++17 -O2");
  if (!s.probes_header.empty()) {
    fs::copy_file(s.probes_header, dir / "probes.h");  // found by the interface through the build folder's -I.
    cmd += " -CFLAGS -DFSGEN_BLOCK_PROBES";
  }
  if (!s.include_dir.empty()) cmd += " -I" + shell_quote(s.include_dir);
  for (const auto& [name, value] : s.params) cmd += " -G" + name + "=" + std::to_string(value);
  for (const auto& f : s.verilog) cmd += " " + shell_quote(f);
  cmd += " " + shell_quote(interface_source());
  const CommandResult v = run_command(cmd);
  if (v.status != 0) fail_build(s, "verilator", v);
  const auto ports = ports_of_header((dir / "Vfsgen_block.h").string(), s.verilog.front());
  write_text_file((dir / "fsgen_block_ports.h").string(), ports_header(ports), "port list");
  const CommandResult m =
      run_command("make -s -C " + shell_quote(dir.string()) + " -f Vfsgen_block.mk -j2 OPT_FAST=-O2 OPT_GLOBAL=-O2" +
                  verilator_objcache() + " " + kLibrary);
  if (m.status != 0 || !fs::exists(dir / kLibrary)) fail_build(s, "the C++ build", m);
  write_text_file((dir / kPortsFile).string(), ports_text(ports), "port list");
}

// The library's C interface (validation/harness/rtl_block.cpp), loaded once per process and
// never unloaded (Verilator's runtime keeps statics).
struct BlockLibrary {
  void* (*create)() = nullptr;
  void (*destroy)(void*) = nullptr;
  void (*eval)(void*) = nullptr;
  void (*set)(void*, int, const uint32_t*) = nullptr;
  void (*get)(void*, int, uint32_t*) = nullptr;
  // A whole core's (FSGEN_BLOCK_PROBES): its probed registers; null for a block.
  int (*probe_count)() = nullptr;
  void (*probe)(void*, int, uint32_t*) = nullptr;
};

const BlockLibrary& load_library(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, BlockLibrary> loaded;
  const std::lock_guard<std::mutex> hold(mutex);
  auto it = loaded.find(path);
  if (it != loaded.end()) return it->second;
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) fail(path, std::string("cannot load the block's library: ") + dlerror());
  BlockLibrary lib;
  auto symbol = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    if (!fn) fail(path, std::string("the block's library has no ") + name);
  };
  symbol(lib.create, "fsgen_rtl_new");
  symbol(lib.destroy, "fsgen_rtl_delete");
  symbol(lib.eval, "fsgen_rtl_eval");
  symbol(lib.set, "fsgen_rtl_set");
  symbol(lib.get, "fsgen_rtl_get");
  lib.probe_count = reinterpret_cast<int (*)()>(dlsym(h, "fsgen_rtl_probe_count"));
  lib.probe = reinterpret_cast<void (*)(void*, int, uint32_t*)>(dlsym(h, "fsgen_rtl_probe"));
  return loaded.emplace(path, lib).first->second;
}

class VerilatedBlock : public RtlPorts {
 public:
  VerilatedBlock(const BlockLibrary& lib, std::vector<PortInfo> ports, std::string source)
      : lib_(lib), ports_(std::move(ports)), source_(std::move(source)), instance_(lib.create()) {
    size_t words = 2;
    for (const auto& p : ports_) words = std::max<size_t>(words, (p.width_bits + 31) / 32 + 1);
    words_.assign(words, 0);
    for (size_t i = 0; i < ports_.size(); ++i) {  // every input starts at 0, as held_ says
      held_.emplace_back(ports_[i].output ? 0 : (ports_[i].width_bits + 31) / 32, 0);
      if (!ports_[i].output) lib_.set(instance_, int(i), words_.data());
    }
    clk_ = find("clk");
    rst_n_ = find("rst_n");
  }
  ~VerilatedBlock() override { lib_.destroy(instance_); }

  const std::vector<PortInfo>& ports() const override { return ports_; }
  uint32_t port(const std::string& name) const override {
    const int i = find(name);
    if (i < 0) fail(source_, "the module has no port " + name + " (the block's model drives it)");
    return uint32_t(i);
  }
  void set_bytes(uint32_t port, const void* bytes) override {
    const PortInfo& p = input(port);
    std::fill(words_.begin(), words_.end(), 0);
    std::memcpy(words_.data(), bytes, (p.width_bits + 7) / 8);
    if (p.width_bits % 32) words_[p.width_bits / 32] &= (uint32_t{1} << (p.width_bits % 32)) - 1;
    // An input keeps what it was set to: setting the same value again is skipped (most of a
    // bus's inputs hold from one cycle to the next).
    std::vector<uint32_t>& held = held_[port];
    if (std::equal(held.begin(), held.end(), words_.begin())) return;
    std::copy(words_.begin(), words_.begin() + std::ptrdiff_t(held.size()), held.begin());
    lib_.set(instance_, int(port), words_.data());
  }
  void set(uint32_t port, uint64_t value) override {
    uint8_t bytes[8];
    std::memcpy(bytes, &value, 8);
    const PortInfo& p = input(port);
    FSGEN_ASSERT(p.width_bits <= 64, "a wide port set from a 64-bit value");
    set_bytes(port, bytes);
  }
  void get(uint32_t port, void* bytes) override {
    lib_.get(instance_, int(port), words_.data());
    std::memcpy(bytes, words_.data(), (ports_[port].width_bits + 7) / 8);
  }
  uint32_t probe_count() const override { return lib_.probe_count ? uint32_t(lib_.probe_count()) : 0; }
  void read_probe(uint32_t index, uint32_t* words) override {
    FSGEN_ASSERT(index < probe_count(), "a probe the module was not built with");
    lib_.probe(instance_, int(index), words);
  }
  void eval() override { lib_.eval(instance_); }
  void clock() override {
    if (clk_ < 0) fail(source_, "the module has no clk input");
    set(uint32_t(clk_), uint64_t{1});
    eval();
    set(uint32_t(clk_), uint64_t{0});
    eval();
  }
  void reset(uint32_t cycles) override {
    if (rst_n_ < 0) return;  // a block without a reset starts from its initial values
    set(uint32_t(rst_n_), uint64_t{0});
    for (uint32_t i = 0; i < cycles; ++i) clock();
    set(uint32_t(rst_n_), uint64_t{1});
    eval();
  }
  const std::string& source() const override { return source_; }

 private:
  int find(const std::string& name) const {
    for (size_t i = 0; i < ports_.size(); ++i)
      if (ports_[i].name == name) return int(i);
    return -1;
  }
  const PortInfo& input(uint32_t port) const {
    FSGEN_ASSERT(port < ports_.size() && !ports_[port].output, "set on an output or an unknown port");
    return ports_[port];
  }
  const BlockLibrary& lib_;
  std::vector<PortInfo> ports_;
  std::string source_;
  void* instance_;
  std::vector<uint32_t> words_;
  std::vector<std::vector<uint32_t>> held_;  // each input's value as last set
  int clk_ = -1, rst_n_ = -1;
};

}  // namespace

RtlPortsMaker build_rtl_block(const RtlBlockSource& s, const std::string& work_dir) {
  FSGEN_ASSERT(!s.verilog.empty(), "an RTL block without Verilog");
  for (const auto& f : s.verilog)
    if (!fs::exists(f)) fail(f, "no such Verilog file (--rtl)");
  std::string fingerprint = s.module + "|" + interface_source();
  for (const auto& [name, value] : s.params) fingerprint += "|" + name + "=" + std::to_string(value);
  for (const auto& f : s.verilog) fingerprint += "|" + f + "\n" + read_text_file(f);
  if (!s.probes_header.empty()) fingerprint += "|probes\n" + read_text_file(s.probes_header);
  if (!s.include_dir.empty())
    for (const auto& e : fs::directory_iterator(s.include_dir))
      if (e.path().extension() == ".vh") fingerprint += "|" + read_text_file(e.path().string());
  fingerprint += read_text_file(interface_source());
  fs::create_directories(work_dir);
  const fs::path dir = fs::path(work_dir) / (s.module + "_" + fingerprint_key(fingerprint));
  {
    const FolderLock building(work_dir, "RTL block build", WhenLocked::kWait, "." + dir.filename().string() + ".lock");
    const std::string stamp = (dir / "build.stamp").string();
    if (!fs::exists(dir / kLibrary) || !stamp_matches(stamp, fingerprint)) {
      build_library(s, dir);
      write_stamp(stamp, fingerprint);
    }
  }
  const std::string library = fs::absolute(dir / kLibrary).string();
  const std::vector<RtlPorts::PortInfo> ports = parse_ports_text((dir / kPortsFile).string());
  const std::string source = s.verilog.front();
  return [library, ports, source]() -> std::unique_ptr<RtlPorts> {
    return std::make_unique<VerilatedBlock>(load_library(library), ports, source);
  };
}

}  // namespace fsgen
