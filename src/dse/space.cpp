#include "dse/space.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "generator/yaml_reader.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

std::string place_of(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
}

// The axes map: spec paths to non-empty lists of values.
void read_axes(YamlMap& top, DesignSpace& s) {
  top.get_map("axes");  // a map, no path given twice
  for (const auto& kv : top.get_node("axes")) {
    SpaceAxis a;
    a.path = kv.first.as<std::string>();
    if (!kv.second.IsSequence() || kv.second.size() == 0)
      fail(place_of(s.file, kv.second) + ": axis '" + a.path + "'", "expected a non-empty list of values");
    for (const auto& v : kv.second) {
      if (a.path[0] == '@' && !v.IsMap())
        fail(place_of(s.file, v) + ": axis '" + a.path + "'", "expected each value a map of spec paths to values");
      if (a.path[0] != '@' && a.path.find('+') != std::string::npos && !v.IsSequence())
        fail(place_of(s.file, v) + ": axis '" + a.path + "'", "expected each value a list of items to append");
      a.values.push_back(YAML::Clone(v));
    }
    s.axes.push_back(std::move(a));
  }
}

void read_benchmarks(YamlMap& top, DesignSpace& s) {
  const YAML::Node list = top.get_node("benchmarks");
  if (!list.IsSequence() || list.size() == 0)
    fail(top.place("benchmarks"), "expected a non-empty list of {model, stage, context, layers, part, zeros}");
  for (size_t i = 0; i < list.size(); ++i) {
    YamlMap b(list[i], "benchmarks[" + std::to_string(i) + "]", s.file);
    SpaceBenchmark r;
    r.model = b.get_string("model");
    r.stage = b.get_choice("stage", {"prefill", "decode"}, r.stage);
    r.context = uint32_t(b.get_int_or("context", r.context, 0, UINT32_MAX));
    r.layers = uint32_t(b.get_int_or("layers", r.layers, 0, UINT32_MAX));
    if (b.has("zeros")) r.zeros = b.get_fraction("zeros");
    r.attention_only = b.get_choice("part", {"layer", "attention"}, "layer") == "attention";
    b.finish();
    s.benchmarks.push_back(r);
  }
}

// Sets `value` at the dotted `path` of `root`, creating maps on the way; `path+label`
// appends the value's items to the list at `path` instead (several axes adding mappings).
void set_path(YAML::Node root, std::string path, const YAML::Node& value) {
  const bool append = path.find('+') != std::string::npos;
  if (append) path.erase(path.find('+'));
  std::vector<std::string> keys;
  std::stringstream in(path);
  for (std::string k; std::getline(in, k, '.');) keys.push_back(k);
  YAML::Node n = root;
  for (size_t i = 0; i + 1 < keys.size(); ++i) {
    if (!n[keys[i]] || !n[keys[i]].IsMap()) n[keys[i]] = YAML::Node(YAML::NodeType::Map);
    n.reset(n[keys[i]]);
  }
  if (!append) {
    n[keys.back()] = YAML::Clone(value);
    return;
  }
  YAML::Node list =
      n[keys.back()] && n[keys.back()].IsSequence() ? n[keys.back()] : YAML::Node(YAML::NodeType::Sequence);
  for (const auto& item : value) list.push_back(YAML::Clone(item));
  n[keys.back()] = list;
}

std::string fnv1a_hex(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace

std::string SpaceBenchmark::key() const {
  std::string k = model + "/" + stage + "/" + std::to_string(context) + "/" + (layers ? std::to_string(layers) : "all");
  if (attention_only) k += "/attention";
  if (zeros > 0) {
    std::ostringstream z;
    z << zeros;
    k += "/zeros=" + z.str();
  }
  return k;
}

SpaceBenchmark benchmark_of_key(const std::string& key) {
  // model/stage/context/layers[/attention][/zeros=Z]; the model (a path, maybe) may hold '/'.
  std::vector<std::string> parts;
  std::stringstream in(key);
  for (std::string p; std::getline(in, p, '/');) parts.push_back(p);
  SpaceBenchmark b;
  auto bad = [&] { fail("benchmark '" + key + "'", "expected model/stage/context/layers[/attention][/zeros=Z]"); };
  // A number of the key, or the one-line error (std::sto* would throw their own).
  auto number = [&](const std::string& text) {
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0') bad();
    return v;
  };
  if (parts.size() < 4) bad();
  if (parts.back().rfind("zeros=", 0) == 0) {
    b.zeros = number(parts.back().substr(6));
    parts.pop_back();
  }
  if (parts.back() == "attention") {
    b.attention_only = true;
    parts.pop_back();
  }
  if (parts.size() < 4) bad();
  b.layers = parts.back() == "all" ? 0 : uint32_t(number(parts.back()));
  parts.pop_back();
  b.context = uint32_t(number(parts.back()));
  parts.pop_back();
  b.stage = parts.back();
  parts.pop_back();
  b.model = parts.front();
  for (size_t i = 1; i < parts.size(); ++i) b.model += "/" + parts[i];
  if (b.key() != key) bad();
  return b;
}

uint64_t DesignSpace::points() const {
  uint64_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

DesignSpace read_design_space(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open design space file");
  YAML::Node root;
  try {
    root = YAML::Load(in);
  } catch (const YAML::Exception& e) {
    fail(path + ":" + std::to_string(e.mark.line + 1), "malformed YAML: " + e.msg);
  }
  YamlMap top(root, "", path);
  DesignSpace s;
  s.file = path;
  s.name = top.get_string("name");
  const fs::path base = fs::path(path).parent_path() / top.get_string("base");
  std::ifstream b(base);
  if (!b) fail(top.place("base"), "cannot open the base spec " + base.string());
  s.base_text.assign(std::istreambuf_iterator<char>(b), std::istreambuf_iterator<char>());
  read_axes(top, s);
  if (top.has("constraints")) {
    YamlMap c = top.get_map("constraints");
    s.constraints.max_pes = uint32_t(c.get_int_or("max_pes", 0, 0, UINT32_MAX));
    if (c.has("max_tops")) s.constraints.max_tops = c.get_double("max_tops", 0);
    if (c.has("max_bandwidth_gbps")) s.constraints.max_bandwidth_gbps = c.get_double("max_bandwidth_gbps", 0);
    if (c.has("max_clock_mhz")) s.constraints.max_clock_mhz = c.get_double("max_clock_mhz", 0);
    if (c.has("max_area_mm2")) s.constraints.max_area_mm2 = c.get_double("max_area_mm2", 0);
    if (c.has("max_power_mw")) s.constraints.max_power_mw = c.get_double("max_power_mw", 0);
    c.finish();
  }
  read_benchmarks(top, s);
  if (top.has("comparisons")) {
    YamlMap c = top.get_map("comparisons");
    if (c.has("power_cap_mw")) s.comparisons.power_cap_mw = c.get_double("power_cap_mw", 0);
    if (c.has("cycle_cap")) s.comparisons.cycle_cap = c.get_double("cycle_cap", 0);
    c.finish();
  }
  top.finish();
  return s;
}

DesignPoint design_point(const DesignSpace& s, uint64_t index) {
  YAML::Node spec = YAML::Load(s.base_text);
  DesignPoint p;
  p.index = index;
  p.name = s.name + "_" + std::to_string(index);
  spec["name"] = p.name;
  std::vector<size_t> choice(s.axes.size());
  uint64_t rest = index;
  for (size_t i = s.axes.size(); i-- > 0;) {  // the last axis varies fastest
    choice[i] = rest % s.axes[i].values.size();
    rest /= s.axes[i].values.size();
  }
  for (size_t i = 0; i < s.axes.size(); ++i) {  // set in the file's order: appended items keep it
    const SpaceAxis& a = s.axes[i];
    const YAML::Node& v = a.values[choice[i]];
    if (a.path[0] == '@') {  // a bundle: each value sets several paths
      for (const auto& kv : v) set_path(spec, kv.first.as<std::string>(), kv.second);
    } else {
      set_path(spec, a.path, v);
    }
  }
  YAML::Emitter out;
  out << spec;
  p.spec_text = std::string(out.c_str()) + "\n";
  YAML::Node anon = YAML::Load(p.spec_text);
  anon.remove("name");
  YAML::Emitter a;
  a << anon;
  p.hash = fnv1a_hex(a.c_str());  // the design's, whatever its name
  return p;
}

}  // namespace fsgen
