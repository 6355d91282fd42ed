#include "compiler/program.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/json_file.h"
#include "core/write_file.h"

namespace fsgen {

uint64_t Program::memory_bytes() const {
  uint64_t end = 0;
  for (const auto& r : inputs) end = std::max(end, r.addr + r.bytes.size());
  for (const auto& r : outputs) end = std::max(end, r.addr + r.bytes);
  return end;
}

uint32_t Program::reserve(uint64_t bytes, const std::string& name) {
  constexpr uint64_t kAlign = 4096;
  const uint64_t addr = next_free_;
  next_free_ = (addr + bytes + kAlign - 1) / kAlign * kAlign;
  if (next_free_ > 0xFFFFFFFFull) fail("program " + kernel, "region " + name + " does not fit the 32-bit address space");
  return static_cast<uint32_t>(addr);
}

uint32_t Program::add_input(const std::string& name, const std::vector<int8_t>& values) {
  const uint32_t addr = reserve(values.size(), name);
  inputs.push_back({name, addr, std::vector<uint8_t>(values.begin(), values.end())});
  return addr;
}

uint32_t Program::add_output(const std::string& name, uint64_t bytes) {
  const uint32_t addr = reserve(bytes, name);
  outputs.push_back({name, addr, bytes});
  return addr;
}

namespace {
std::string to_hex(const std::vector<uint8_t>& b) {
  static const char* d = "0123456789abcdef";
  std::string s(b.size() * 2, '0');
  for (size_t i = 0; i < b.size(); ++i) {
    s[2 * i] = d[b[i] >> 4];
    s[2 * i + 1] = d[b[i] & 15];
  }
  return s;
}

std::vector<uint8_t> from_hex(const std::string& s, const std::string& place) {
  if (s.size() % 2) fail(place, "expected an even number of hex digits");
  auto nib = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    fail(place, std::string("expected hex digits, got '") + c + "'");
  };
  std::vector<uint8_t> b(s.size() / 2);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(nib(s[2 * i]) << 4 | nib(s[2 * i + 1]));
  return b;
}
}  // namespace

void save_program(const Program& p, const std::string& path) {
  nlohmann::ordered_json j;
  j["format"] = "fsgen-program";
  j["version"] = Program::kVersion;
  j["design"] = p.design;
  j["kernel"] = p.kernel;
  for (const auto& r : p.inputs) j["inputs"].push_back({{"name", r.name}, {"addr", r.addr}, {"hex", to_hex(r.bytes)}});
  for (const auto& w : p.writes) j["writes"].push_back({{"offset", w.offset}, {"value", w.value}});
  for (const auto& o : p.outputs) j["outputs"].push_back({{"name", o.name}, {"addr", o.addr}, {"bytes", o.bytes}});
  write_file_atomically(path, "program", [&](std::ostream& out) { out << j.dump(1) << "\n"; });
}

namespace {
// A non-negative integer field of at most `max` (a JSON number outside it, a float or a
// negative one, would convert with undefined behaviour or wrap).
uint64_t unsigned_field(const nlohmann::json& v, const std::string& path, const char* name, uint64_t max) {
  if (!v.is_number_unsigned() || v.get<uint64_t>() > max)
    fail(path, std::string("field '") + name + "': expected an integer from 0 to " + std::to_string(max) + ", got " +
                   v.dump());
  return v.get<uint64_t>();
}
}  // namespace

Program load_program(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "program");
  try {
    if (j.value("format", "") != "fsgen-program") fail(path, "expected \"format\": \"fsgen-program\"");
    if (!j.contains("version") || !j["version"].is_number_unsigned() ||
        j["version"].get<uint64_t>() != Program::kVersion)
      fail(path, "expected program version " + std::to_string(Program::kVersion));
    Program p;
    p.design = j.at("design").get<std::string>();
    p.kernel = j.at("kernel").get<std::string>();
    constexpr uint64_t k32 = UINT32_MAX;
    for (const auto& r : j.value("inputs", nlohmann::json::array()))
      p.inputs.push_back({r.at("name"), uint32_t(unsigned_field(r.at("addr"), path, "addr", k32)),
                          from_hex(r.at("hex"), path + ": input " + r.at("name").get<std::string>())});
    for (const auto& w : j.at("writes"))
      p.writes.push_back({uint32_t(unsigned_field(w.at("offset"), path, "offset", k32)),
                          uint32_t(unsigned_field(w.at("value"), path, "value", k32))});
    for (const auto& o : j.value("outputs", nlohmann::json::array()))
      p.outputs.push_back({o.at("name"), uint32_t(unsigned_field(o.at("addr"), path, "addr", k32)),
                           unsigned_field(o.at("bytes"), path, "bytes", k32)});
    return p;
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("program field missing or of the wrong type: ") + e.what());
  }
}

}  // namespace fsgen
