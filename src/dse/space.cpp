#include "dse/space.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

std::string place_of(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1) + ":" + std::to_string(n.Mark().column + 1);
}

uint32_t count_at(const YAML::Node& map, const std::string& key, uint32_t fallback, const std::string& file) {
  if (!map[key]) return fallback;
  try {
    const int64_t v = map[key].as<int64_t>();
    if (v >= 0 && v <= int64_t(UINT32_MAX)) return uint32_t(v);
  } catch (const YAML::Exception&) {
  }
  fail(place_of(file, map[key]) + ": field '" + key + "'", "expected a count from 0 up to 4294967295");
}

void read_axes(const YAML::Node& axes, DesignSpace& s) {
  if (!axes || !axes.IsMap()) fail(s.file, "field 'axes': expected a map of spec paths to lists of values");
  for (const auto& kv : axes) {
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

void read_benchmarks(const YAML::Node& list, DesignSpace& s) {
  if (!list || !list.IsSequence() || list.size() == 0)
    fail(s.file, "field 'benchmarks': expected a non-empty list of {model, stage, context, layers}");
  for (const auto& b : list) {
    const std::string where = place_of(s.file, b) + ": benchmark";
    if (!b.IsMap() || !b["model"]) fail(where, "expected a map with at least a model");
    for (const auto& kv : b) {
      const std::string k = kv.first.as<std::string>();
      if (k != "model" && k != "stage" && k != "context" && k != "layers")
        fail(where, "unknown field '" + k + "': expected model, stage, context or layers");
    }
    SpaceBenchmark r;
    r.model = b["model"].as<std::string>();
    r.stage = b["stage"] ? b["stage"].as<std::string>() : r.stage;
    if (r.stage != "prefill" && r.stage != "decode") fail(where, "stage '" + r.stage + "': expected prefill or decode");
    r.context = count_at(b, "context", r.context, s.file);
    r.layers = count_at(b, "layers", r.layers, s.file);
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
  return model + "/" + stage + "/" + std::to_string(context) + "/" + (layers ? std::to_string(layers) : "all");
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
  if (!root.IsMap()) fail(path, "expected a design space: a map with name, base, axes and benchmarks");
  for (const auto& kv : root) {
    const std::string k = kv.first.as<std::string>();
    if (k != "name" && k != "base" && k != "axes" && k != "constraints" && k != "benchmarks")
      fail(place_of(path, kv.first) + ": field '" + k + "'",
           "unknown: expected name, base, axes, constraints or benchmarks");
  }
  DesignSpace s;
  s.file = path;
  if (!root["name"] || !root["base"]) fail(path, "expected the fields name and base");
  s.name = root["name"].as<std::string>();
  const fs::path base = fs::path(path).parent_path() / root["base"].as<std::string>();
  std::ifstream b(base);
  if (!b) fail(place_of(path, root["base"]) + ": field 'base'", "cannot open the base spec " + base.string());
  s.base_text.assign(std::istreambuf_iterator<char>(b), std::istreambuf_iterator<char>());
  read_axes(root["axes"], s);
  if (const YAML::Node c = root["constraints"]) {
    for (const auto& kv : c) {
      const std::string k = kv.first.as<std::string>();
      if (k != "max_pes" && k != "max_tops")
        fail(place_of(path, kv.first) + ": constraint '" + k + "'", "unknown: expected max_pes or max_tops");
    }
    s.constraints.max_pes = count_at(c, "max_pes", 0, path);
    if (c["max_tops"]) {
      try {
        s.constraints.max_tops = c["max_tops"].as<double>();
      } catch (const YAML::Exception&) {
      }
      if (!(s.constraints.max_tops > 0))
        fail(place_of(path, c["max_tops"]) + ": constraint 'max_tops'", "expected a positive number");
    }
  }
  read_benchmarks(root["benchmarks"], s);
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
