#include "generator/spec.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/error.h"
#include "generator/graph.h"
#include "generator/yaml_reader.h"

namespace fsgen {

const char* iter_name(Iter it) {
  switch (it) {
    case Iter::kM: return "m";
    case Iter::kN: return "n";
    case Iter::kK: return "k";
  }
  return "?";
}

std::string SparseTiling::text() const {
  return std::to_string(t) + ":" + std::to_string(tt) + ":" + std::to_string(s) + ":" + std::to_string(ss);
}

SparseTiling parse_sparse_tiling(const std::string& text, const std::string& place) {
  static const std::regex form("([0-9]{1,4}|_):([0-9]{1,4}|_):([0-9]{1,4}|_):([0-9]{1,4})");
  std::smatch mt;
  if (!std::regex_match(text, mt, form))
    fail(place,
         "expected a sparse tiling T:TT:S:SS of four positive integers (T, TT or S may be _), got '" + text + "'");
  auto level = [&](int i) { return mt[i] == "_" ? 0u : static_cast<uint32_t>(std::stoul(mt[i])); };
  SparseTiling st;
  st.t = level(1), st.tt = level(2), st.s = level(3), st.ss = level(4);
  for (int i = 1; i <= 4; ++i)
    if (mt[i] != "_" && level(i) == 0) fail(place, "sparse tiling '" + text + "': every level must be positive");
  st.given = true;
  st.place = place;
  return st;
}

std::string attention_unsupported_reason(const ArraySpec& a, const ArraySpec& b) {
  if (a.tile_m % b.tile_m != 0 || a.tile_n % b.tile_k != 0 || a.tile_k % b.tile_n != 0)
    return "needs arrays.b.tiling {m, n, k} dividing arrays.a.tiling {m, k, n} (queries, head dim, keys)";
  if (b.stationarity() == Stationarity::kOutput && (b.tile_m != a.tile_m || b.tile_k != a.tile_n || b.tile_n != a.tile_k))
    return "an output-stationary array b holds the whole O tile in its PEs: needs arrays.b.tiling {m, n, k} = "
           "arrays.a.tiling {m, k, n}";
  return "";
}

uint32_t DesignSpec::beat_bytes() const {
  return static_cast<uint32_t>(std::lround(memory.bandwidth_gbps * 1000.0 / clock_mhz));
}

namespace {

constexpr int64_t kMaxTile = 256;
const std::vector<std::string> kCacheTensors = {"k", "v", "acc_a", "acc_b"};
const std::vector<std::string> kSparseKinds = {"compute_value", "compute_group", "memory_value",
                                               "memory_group"};
const std::vector<std::string> kSparseTensors = {"x", "w", "q", "k", "v", "s", "p"};

Iter parse_iter(const YAML::Node& n, const YamlMap& where, const std::string& field) {
  if (n.IsScalar()) {
    if (n.Scalar() == "m") return Iter::kM;
    if (n.Scalar() == "n") return Iter::kN;
    if (n.Scalar() == "k") return Iter::kK;
  }
  fail(where.place_of(n, field), "expected an iterator m, n or k, got '" +
                                     (n.IsScalar() ? n.Scalar() : std::string("a non-scalar")) + "'");
}

// A stationarity name, or an explicit permutation of the iterators (outermost first).
// The innermost iterator is the temporal one inside a tile, which fixes the PE mapping:
// k innermost = output-stationary, m = weight-stationary, n = input-stationary.
std::array<Iter, 3> parse_loop_order(YamlMap& array) {
  const std::string field = array.path() + ".loop_order";
  if (!array.has("loop_order")) return {Iter::kM, Iter::kN, Iter::kK};
  YAML::Node n = array.get_node("loop_order");
  if (n.IsScalar()) {
    const std::string s = n.Scalar();
    if (s == "output_stationary" || s == "os") return {Iter::kM, Iter::kN, Iter::kK};
    if (s == "weight_stationary" || s == "ws") return {Iter::kN, Iter::kK, Iter::kM};
    if (s == "input_stationary" || s == "is") return {Iter::kM, Iter::kK, Iter::kN};
    fail(array.place("loop_order"),
         "expected output_stationary, weight_stationary, input_stationary or a list like [m, n, k], got '" +
             s + "'");
  }
  if (!n.IsSequence() || n.size() != 3)
    fail(array.place("loop_order"), "expected a permutation of [m, n, k] (three iterators)");
  std::array<Iter, 3> order{};
  bool seen[3] = {false, false, false};
  for (size_t i = 0; i < 3; ++i) {
    order[i] = parse_iter(n[i], array, field);
    if (seen[static_cast<int>(order[i])])
      fail(array.place("loop_order"), std::string("loop order is not a permutation of [m, n, k]: '") +
                                          iter_name(order[i]) + "' appears twice");
    seen[static_cast<int>(order[i])] = true;
  }
  return order;
}

// `auto_tiling`: set when the tiling is the word `auto` (allowed for array b only); the
// tiles are then sized later from array a.
ArraySpec parse_array(YamlMap& arrays, const std::string& key, bool* auto_tiling = nullptr) {
  YamlMap a = arrays.get_map(key);
  ArraySpec spec;
  spec.loop_order = parse_loop_order(a);
  const bool is_auto = auto_tiling && a.has("tiling") && a.get_node("tiling").IsScalar();
  if (is_auto) {
    if (a.get_string("tiling") != "auto")
      fail(a.place("tiling"), "expected a map {m, n, k} or auto (sized from array a by bandwidth)");
    *auto_tiling = true;
  } else {
    YamlMap tiling = a.get_map("tiling");
    spec.tile_m = static_cast<uint32_t>(tiling.get_int("m", 1, kMaxTile));
    spec.tile_n = static_cast<uint32_t>(tiling.get_int("n", 1, kMaxTile));
    spec.tile_k = static_cast<uint32_t>(tiling.get_int("k", 1, kMaxTile));
    tiling.finish();
  }
  spec.systolic = a.get_choice("movement", {"broadcast", "systolic"}, "broadcast") == "systolic";
  if (a.has("sparse_tiling")) {
    YamlMap st = a.get_map("sparse_tiling");
    for (Iter it : {Iter::kM, Iter::kN, Iter::kK})
      if (st.has(iter_name(it)))
        spec.sparse_tiling[static_cast<int>(it)] = parse_sparse_tiling(st.get_string(iter_name(it)), st.place(iter_name(it)));
    st.finish();
  }
  a.finish();
  return spec;
}

std::vector<SparseMapping> parse_sparsity(YamlMap& top) {
  std::vector<SparseMapping> out;
  if (!top.has("sparsity")) return out;
  YAML::Node list = top.get_node("sparsity");
  if (list.IsNull()) return out;
  if (!list.IsSequence()) fail(top.place("sparsity"), "expected a list of sparse mappings");
  for (size_t i = 0; i < list.size(); ++i) {
    YamlMap m(list[i], "sparsity[" + std::to_string(i) + "]", top.file());
    SparseMapping sm;
    sm.kind = m.get_choice("kind", kSparseKinds, "");
    sm.tensor = m.get_choice("tensor", kSparseTensors, "");
    sm.condition = m.get_string("condition");
    if (m.has("array")) sm.array = m.get_choice("array", {"a", "b"}, "");
    if (sm.kind == "compute_group") {
      sm.block = static_cast<uint32_t>(m.get_int_or("block", 0, 1, kMaxTile));  // 0: array a's n tile
      sm.topk = static_cast<uint32_t>(m.get_int("topk", 1, 1 << 16));
    }
    if (sm.kind == "memory_group" && sm.condition != "causal")
      sm.window = static_cast<uint32_t>(m.get_int("window", 1, 1 << 20));
    sm.place = m.place();
    m.finish();
    out.push_back(sm);
  }
  return out;
}

// `kernels`: the modes the fused core is built for. Default: matmul, plus attention
// when the dataflow supports it.
void parse_kernels(YamlMap& top, DesignSpec& s) {
  const std::string reason = attention_unsupported_reason(s.array_a, s.array_b);
  if (!top.has("kernels")) {
    s.attention_kernel = reason.empty();
    return;
  }
  YAML::Node list = top.get_node("kernels");
  if (!list.IsSequence()) fail(top.place("kernels"), "expected a list of kernels from {matmul, attention}");
  bool matmul = false;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string k = list[i].IsScalar() ? list[i].Scalar() : "";
    if (k == "matmul") matmul = true;
    else if (k == "attention") s.attention_kernel = true;
    else fail(top.place_of(list[i], "kernels[" + std::to_string(i) + "]"), "expected matmul or attention, got '" + k + "'");
  }
  if (!matmul) fail(top.place("kernels"), "every core runs matmul (projections): expected matmul in the list");
  if (s.attention_kernel && !reason.empty()) fail(top.place("kernels"), "attention kernel: " + reason);
}

DesignSpec parse_root(const YAML::Node& root, const std::string& source) {
  YamlMap top(root, "", source);
  DesignSpec s;
  s.source = source;
  s.name = top.get_string("name");
  if (!std::regex_match(s.name, std::regex("[A-Za-z][A-Za-z0-9_]{0,62}")))
    fail(top.place("name"), "expected an identifier (letter, then letters, digits or _), got '" + s.name + "'");
  s.attention = top.get_choice("attention", {"mha", "gqa"}, "mha") == "gqa" ? AttentionType::kGqa
                                                                             : AttentionType::kMha;
  top.get_choice("precision", {"int8"}, "int8");
  s.clock_mhz = top.get_double("clock_mhz", 0.0);
  s.pe_budget = static_cast<uint32_t>(top.get_int("pe_budget", 1, 1 << 20));

  YamlMap mem = top.get_map("memory");
  s.memory.bandwidth_gbps = mem.get_double("bandwidth_gbps", 0.0);
  s.memory.latency_cycles = static_cast<uint32_t>(mem.get_int("latency_cycles", 1, 100000));
  s.memory.outstanding = static_cast<uint32_t>(mem.get_int_or("outstanding", 8, 1, 16));
  if (mem.has("operand_tiles")) {
    YamlMap tiles = mem.get_map("operand_tiles");
    for (const char* t : {"a", "b"}) {
      if (!tiles.has(t)) continue;
      const bool a = std::string(t) == "a";
      (a ? s.memory.operand_tiles_a : s.memory.operand_tiles_b) = static_cast<uint32_t>(tiles.get_int(t, 1, 256));
      (a ? s.memory.operand_tiles_a_place : s.memory.operand_tiles_b_place) = tiles.place(t);
    }
    tiles.finish();
  }
  s.memory.buffer_limit_bytes = static_cast<uint32_t>(mem.get_int("buffer_limit_bytes", 1, 1 << 26));
  mem.finish();

  YamlMap arrays = top.get_map("arrays");
  s.array_a = parse_array(arrays, "a");
  bool b_auto = false;
  s.array_b = parse_array(arrays, "b", &b_auto);
  arrays.finish();
  // Sized once the memory beat is known to be sound; validate_spec() reports it otherwise.
  const uint32_t beat = s.beat_bytes();
  if (b_auto && beat > 0 && (beat & (beat - 1)) == 0 && s.array_a.tile_k % beat == 0)
    s.array_b = size_downstream_array(s.array_a, s.array_b, MemoryTiming{s.memory.latency_cycles, beat, s.memory.outstanding});

  s.activation = top.get_choice("activation", {"gelu", "silu"}, "silu") == "gelu" ? Activation::kGelu
                                                                                 : Activation::kSilu;
  s.gated_ffn = top.get_bool_or("gated_ffn", true);
  s.online_softmax = top.get_bool_or("online_softmax", true);
  if (top.has("caches")) {
    YamlMap caches = top.get_map("caches");
    for (const auto& t : kCacheTensors)
      if (caches.has(t)) s.cache_bytes[t] = static_cast<uint32_t>(caches.get_int(t, 0, 1 << 26));
    caches.finish();
  }
  s.sparsity = parse_sparsity(top);
  for (auto& sm : s.sparsity)
    if (sm.kind == "compute_group" && sm.block == 0) sm.block = s.array_a.tile_n;  // the block built: one key tile
  parse_kernels(top, s);
  top.finish();
  return s;
}

}  // namespace

void validate_spec(const DesignSpec& s, const YAML::Node& root);

DesignSpec parse_spec_text(const std::string& text, const std::string& source_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(source_name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1),
         "malformed YAML: " + e.msg);
  }
  if (!root || root.IsNull()) fail(source_name, "empty design spec: expected a map with name, memory, arrays, ...");
  DesignSpec s = parse_root(root, source_name);
  validate_spec(s, root);
  return s;
}

DesignSpec parse_spec_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open design spec file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_spec_text(ss.str(), path);
}

}  // namespace fsgen
