#include "generator/yaml_reader.h"

#include <cmath>
#include <map>

#include "core/error.h"

namespace fsgen {

namespace {
std::string scalar_text(const YAML::Node& n) {
  if (n.IsScalar()) return "'" + n.Scalar() + "'";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "nothing";
}
}  // namespace

YamlMap::YamlMap(const YAML::Node& node, std::string path, std::string file)
    : node_(node), path_(std::move(path)), file_(std::move(file)) {
  if (!node_.IsMap()) fail(place(), "expected a map of fields, got " + scalar_text(node_));
  // A key given twice is refused: YAML leaves which value counts to the reader.
  std::map<std::string, YAML::Mark> seen;
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    const auto [first, fresh] = seen.insert({key, kv.first.Mark()});
    if (!fresh)
      fail(place_of(kv.first, field(key)),
           "field '" + key + "' given twice (first at line " + std::to_string(first->second.line + 1) + ")");
  }
}

std::string YamlMap::field(const std::string& key) const {
  if (key.empty()) return path_;
  return path_.empty() ? key : path_ + "." + key;
}

std::string YamlMap::place_of(const YAML::Node& node, const std::string& fld) const {
  std::string where = file_;
  const YAML::Mark m = node.Mark();
  if (m.line >= 0) where += ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  return where + ": field '" + (fld.empty() ? std::string("<top>") : fld) + "'";
}

std::string YamlMap::place(const std::string& key) const {
  if (!key.empty() && node_.IsMap()) {
    for (const auto& kv : node_) {
      if (kv.first.Scalar() == key) return place_of(kv.first, field(key));
    }
  }
  return place_of(node_, field(key));
}

bool YamlMap::has(const std::string& key) const { return static_cast<bool>(node_[key]); }

YAML::Node YamlMap::required(const std::string& key) {
  read_.insert(key);
  YAML::Node n = node_[key];
  if (!n) fail(place(), "missing required field '" + field(key) + "'");
  return n;
}

std::string YamlMap::get_string(const std::string& key) {
  YAML::Node n = required(key);
  if (!n.IsScalar()) fail(place(key), "expected a string, got " + scalar_text(n));
  return n.Scalar();
}

std::string YamlMap::get_string_or(const std::string& key, const std::string& fallback) {
  return has(key) ? get_string(key) : (read_.insert(key), fallback);
}

std::string YamlMap::get_choice(const std::string& key, const std::vector<std::string>& choices,
                                const std::string& fallback) {
  std::string v = get_string_or(key, fallback);
  for (const auto& c : choices)
    if (c == v) return v;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  fail(place(key), "expected one of {" + list + "}, got '" + v + "'");
}

int64_t YamlMap::get_int(const std::string& key, int64_t min, int64_t max) {
  YAML::Node n = required(key);
  int64_t v = 0;
  if (!n.IsScalar() || !YAML::convert<int64_t>::decode(n, v))
    fail(place(key), "expected an integer, got " + scalar_text(n));
  if (v < min || v > max)
    fail(place(key), "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                         "], got " + std::to_string(v));
  return v;
}

int64_t YamlMap::get_int_or(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  return get_int(key, min, max);
}

double YamlMap::get_double(const std::string& key, double min_exclusive) {
  YAML::Node n = required(key);
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v))
    fail(place(key), "expected a number, got " + scalar_text(n));
  if (v <= min_exclusive)
    fail(place(key), "expected a number above " + std::to_string(min_exclusive) + ", got " + n.Scalar());
  return v;
}

double YamlMap::get_fraction(const std::string& key) {
  YAML::Node n = required(key);
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !(v >= 0 && v <= 1))
    fail(place(key), "expected a fraction from 0 to 1, got " + scalar_text(n));
  return v;
}

bool YamlMap::get_bool_or(const std::string& key, bool fallback) {
  if (!has(key)) {
    read_.insert(key);
    return fallback;
  }
  YAML::Node n = required(key);
  bool v = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v))
    fail(place(key), "expected true or false, got " + scalar_text(n));
  return v;
}

YamlMap YamlMap::get_map(const std::string& key) {
  YAML::Node n = required(key);
  if (!n.IsMap()) fail(place(key), "expected a map of fields, got " + scalar_text(n));
  return YamlMap(n, field(key), file_);
}

YAML::Node YamlMap::get_node(const std::string& key) { return required(key); }

void YamlMap::finish() const {
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (!read_.count(key)) fail(place_of(kv.first, field(key)), "unknown field '" + key + "'");
  }
}

}  // namespace fsgen
