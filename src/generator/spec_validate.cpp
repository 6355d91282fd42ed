// Cross-field checks of a parsed DesignSpec: the rules that span several fields
// (memory beats against tilings, PE budget, buffer limits, heterogeneous tiling).
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "core/error.h"
#include "generator/spec.h"

namespace fsgen {

const char* stationarity_name(Stationarity s) {
  switch (s) {
    case Stationarity::kOutput: return "output_stationary";
    case Stationarity::kWeight: return "weight_stationary";
    case Stationarity::kInput: return "input_stationary";
  }
  return "?";
}

Stationarity ArraySpec::stationarity() const {
  switch (loop_order[2]) {
    case Iter::kK: return Stationarity::kOutput;
    case Iter::kM: return Stationarity::kWeight;
    case Iter::kN: return Stationarity::kInput;
  }
  return Stationarity::kOutput;
}

uint32_t ArraySpec::pe_rows() const {
  // OS: m x n, WS: k x n (a row of k feeds the reduction of each n), IS: m x k.
  return stationarity() == Stationarity::kWeight ? macs_per_lane() : tile_m;
}
uint32_t ArraySpec::pe_cols() const {
  return stationarity() == Stationarity::kInput ? macs_per_lane() : tile_n;
}
uint32_t ArraySpec::macs_per_lane() const {
  // A dot array whose sparse tiling gives TT_k below the k tile holds the tile compressed.
  const SparseTiling& k = sparse_tiling[static_cast<int>(Iter::kK)];
  return k.given && k.tt ? k.tt : tile_k;  // TT_k `_`: the k tile
}

namespace {
int position(const ArraySpec& a, Iter it) {
  for (int i = 0; i < 3; ++i)
    if (a.loop_order[i] == it) return i;
  return -1;
}
}  // namespace

bool ArraySpec::m_inside_k() const { return position(*this, Iter::kM) > position(*this, Iter::kK); }
bool ArraySpec::n_inside_k() const { return position(*this, Iter::kN) > position(*this, Iter::kK); }

namespace {

// "file:line:col: field 'a.b.c'" for a path of keys in the document.
std::string place_at(const YAML::Node& root, const std::string& file, const std::vector<std::string>& keys) {
  YAML::Node cur = root;
  YAML::Mark mark = root.Mark();
  std::string field;
  for (const auto& k : keys) {
    field += (field.empty() ? "" : ".") + k;
    if (!cur.IsMap()) break;
    YAML::Node next;
    for (const auto& kv : cur)
      if (kv.first.Scalar() == k) {
        mark = kv.first.Mark();
        next = kv.second;
      }
    if (!next) break;
    cur = next;
  }
  std::string where = file;
  if (mark.line >= 0) where += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  return where + ": field '" + field + "'";
}

void check_beat(const DesignSpec& s, const YAML::Node& root) {
  const double beat = s.memory.bandwidth_gbps * 1000.0 / s.clock_mhz;
  const long rounded = std::lround(beat);
  const bool pow2 = rounded >= 1 && rounded <= 64 && (rounded & (rounded - 1)) == 0;
  if (std::fabs(beat - rounded) > 1e-9 || !pow2)
    fail(place_at(root, s.source, {"memory", "bandwidth_gbps"}),
         "bandwidth / clock gives " + std::to_string(beat) +
             " bytes per cycle: expected a power of two from 1 to 64 (the AXI data width)");
}

void check_array(const DesignSpec& s, const YAML::Node& root, const ArraySpec& a, const std::string& key) {
  const uint32_t beat = s.beat_bytes();
  const std::vector<std::string> tiling = {"arrays", key, "tiling"};
  auto at = [&](const std::string& it) {
    auto v = tiling;
    v.push_back(it);
    return place_at(root, s.source, v);
  };
  if (a.tile_k % beat != 0)
    fail(at("k"), "tiling k=" + std::to_string(a.tile_k) + " does not divide into " + std::to_string(beat) +
                      "-byte memory beats (rows of A): expected a multiple of " + std::to_string(beat));
  if (a.tile_n % beat != 0)
    fail(at("n"), "tiling n=" + std::to_string(a.tile_n) + " does not divide into " + std::to_string(beat) +
                      "-byte memory beats (rows of B and C): expected a multiple of " + std::to_string(beat));
  const uint32_t limit = s.memory.buffer_limit_bytes;
  if (a.tile_m * a.tile_k > limit)
    fail(at("m"), "operand A tile m x k = " + std::to_string(a.tile_m * a.tile_k) +
                      " bytes exceeds the per-tensor buffer limit of " + std::to_string(limit) + " bytes");
  if (a.tile_k * a.tile_n > limit)
    fail(at("n"), "operand B tile k x n = " + std::to_string(a.tile_k * a.tile_n) +
                      " bytes exceeds the per-tensor buffer limit of " + std::to_string(limit) + " bytes");
  if (a.systolic && a.stationarity() != Stationarity::kOutput)
    fail(place_at(root, s.source, {"arrays", key, "movement"}),
         "systolic movement is built for output-stationary arrays: expected broadcast for a " +
             std::string(stationarity_name(a.stationarity())) + " array");
  if (a.systolic && a.tile_m + a.tile_n + a.tile_k - 2 > 255)
    fail(place_at(root, s.source, {"arrays", key, "movement"}),
         "a systolic tile streams m + n + k - 2 = " + std::to_string(a.tile_m + a.tile_n + a.tile_k - 2) +
             " cycles: expected at most 255");
  if (a.stationarity() != Stationarity::kOutput) {
    const std::string cache = "acc_" + key;
    const uint32_t tile_bytes = a.tile_m * a.tile_n * 4;
    auto it = s.cache_bytes.find(cache);
    if (it == s.cache_bytes.end())
      fail(place_at(root, s.source, {"arrays", key, "loop_order"}),
           std::string(stationarity_name(a.stationarity())) + " array " + key +
               " keeps partial sums on chip: expected caches." + cache + " of at least " +
               std::to_string(tile_bytes) + " bytes (one m x n INT32 tile)");
    if (it->second < tile_bytes || it->second % tile_bytes != 0)
      fail(place_at(root, s.source, {"caches", cache}),
           "accumulator cache of " + std::to_string(it->second) + " bytes: expected a non-zero multiple of " +
               std::to_string(tile_bytes) + " bytes (m x n INT32 tiles)");
  }
}

// A dot array b of the fused kernels accumulates the whole O tile (a.m x a.k INT32) in
// its accumulator cache.
void check_o_cache(const DesignSpec& s, const YAML::Node& root) {
  if (!s.attention_kernel || s.array_b.stationarity() == Stationarity::kOutput) return;
  const uint32_t o_bytes = s.array_a.tile_m * s.array_a.tile_k * 4;
  const uint32_t have = s.cache_bytes.count("acc_b") ? s.cache_bytes.at("acc_b") : 0;
  if (have < o_bytes)
    fail(place_at(root, s.source, {"caches", "acc_b"}),
         "the fused kernels keep O (a.m x a.k INT32 = " + std::to_string(o_bytes) +
             " bytes) in array b's accumulator cache: expected at least that");
}

// K and V caches hold whole key-row tiles (a.n rows of a.k bytes) of the fused kernels.
void check_kv_caches(const DesignSpec& s, const YAML::Node& root) {
  const uint32_t tile = s.array_a.tile_n * s.array_a.tile_k;
  for (const char* t : {"k", "v"}) {
    auto it = s.cache_bytes.find(t);
    if (it == s.cache_bytes.end()) continue;
    const std::string where = place_at(root, s.source, {"caches", t});
    if (!s.attention_kernel)
      fail(where, "a " + std::string(t) + " tile cache serves the fused kernels: expected attention in `kernels`");
    if (it->second % tile != 0)
      fail(where, "cache of " + std::to_string(it->second) + " bytes: expected a multiple of " + std::to_string(tile) +
                      " bytes (tiles of a.n = " + std::to_string(s.array_a.tile_n) + " rows x a.k = " +
                      std::to_string(s.array_a.tile_k) + " bytes)");
  }
}

}  // namespace

void validate_spec(const DesignSpec& s, const YAML::Node& root) {
  check_beat(s, root);
  check_array(s, root, s.array_a, "a");
  check_array(s, root, s.array_b, "b");
  // Heterogeneous tiling: array B consumes array A's output tile (P = softmax(S) in
  // attention, the activation in FFN), so its tiles must divide A's.
  if (s.array_a.tile_m % s.array_b.tile_m != 0)
    fail(place_at(root, s.source, {"arrays", "b", "tiling", "m"}),
         "tiling m=" + std::to_string(s.array_b.tile_m) + " does not divide array a's m=" +
             std::to_string(s.array_a.tile_m) + ": downstream tiles must divide upstream tiles");
  if (s.array_a.tile_n % s.array_b.tile_k != 0)
    fail(place_at(root, s.source, {"arrays", "b", "tiling", "k"}),
         "tiling k=" + std::to_string(s.array_b.tile_k) + " does not divide array a's n=" +
             std::to_string(s.array_a.tile_n) + ": array b reduces over array a's output columns");
  const uint32_t pes = s.array_a.pe_count() + s.array_b.pe_count();
  if (pes > s.pe_budget)
    fail(place_at(root, s.source, {"pe_budget"}),
         "arrays need " + std::to_string(s.array_a.pe_count()) + " + " + std::to_string(s.array_b.pe_count()) +
             " = " + std::to_string(pes) + " PEs, over the budget of " + std::to_string(s.pe_budget));
  check_kv_caches(s, root);
  check_o_cache(s, root);
  for (const auto& [tensor, bytes] : s.cache_bytes)
    if (bytes > s.memory.buffer_limit_bytes)
      fail(place_at(root, s.source, {"caches", tensor}),
           "cache of " + std::to_string(bytes) + " bytes exceeds the per-tensor buffer limit of " +
               std::to_string(s.memory.buffer_limit_bytes) + " bytes");
}

}  // namespace fsgen
