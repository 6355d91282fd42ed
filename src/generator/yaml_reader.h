// A located view of one YAML map while it is being read into a spec struct.
//
// Every read names the field it reads, so an error says where it happened
// ("file:line:col: field 'arrays.a.tiling.m': ...") and what was expected.
// Keys that were never read are reported as unknown by finish().
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace fsgen {

class YamlMap {
 public:
  YamlMap(const YAML::Node& node, std::string path, std::string file);

  bool has(const std::string& key) const;
  std::string get_string(const std::string& key);
  std::string get_string_or(const std::string& key, const std::string& fallback);
  // One of `choices`; an error lists them.
  std::string get_choice(const std::string& key, const std::vector<std::string>& choices,
                         const std::string& fallback);
  int64_t get_int(const std::string& key, int64_t min, int64_t max);
  int64_t get_int_or(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double get_double(const std::string& key, double min_exclusive);
  double get_fraction(const std::string& key);  // a number in [0, 1]
  bool get_bool_or(const std::string& key, bool fallback);
  YamlMap get_map(const std::string& key);
  YAML::Node get_node(const std::string& key);  // raw access for lists; marks the key read

  // Errors for every key of this map that no getter asked for.
  void finish() const;

  // "file:line:col: field 'path.key'" for a key of this map (or the map itself if key is empty).
  std::string place(const std::string& key = "") const;
  std::string place_of(const YAML::Node& node, const std::string& field) const;
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }

 private:
  YAML::Node required(const std::string& key);
  std::string field(const std::string& key) const;

  YAML::Node node_;
  std::string path_;
  std::string file_;
  std::set<std::string> read_;
};

}  // namespace fsgen
