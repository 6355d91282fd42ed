#include "generator/sparsity.h"

#include <algorithm>
#include <regex>
#include <utility>

#include "core/error.h"

namespace fsgen {

namespace {

const int kM = static_cast<int>(Iter::kM), kN = static_cast<int>(Iter::kN), kK = static_cast<int>(Iter::kK);

}  // namespace

std::string network_topology(const NetworkParams& p, std::string* why) {
  if (p.c > 1 && p.m > 1) {
    if (why) *why = "copy c=" + std::to_string(p.c) + " and multicast m=" + std::to_string(p.m) +
                    " both above one (the paper's invalid cell 2d)";
    return "";
  }
  const char row = p.s > 1 ? '3' : p.m > 1 ? '2' : '1';
  char col;
  if (p.i == p.o) col = 'a';
  else if (row == '2') col = p.lanes > 1 ? 'e' : p.g > 1 ? 'c' : 'b';  // mixed: several lanes, each multicast
  else col = p.c > 1 ? (p.g > 1 ? 'e' : 'd') : p.g > 1 ? 'c' : 'b';
  return std::string(1, row) + col;
}

const std::vector<std::string>& all_topologies() {
  static const std::vector<std::string> cells = {"1a", "1b", "1c", "1d", "1e", "2a", "2b",
                                                 "2c", "2e", "3a", "3b", "3c", "3d", "3e"};
  return cells;
}

std::array<uint32_t, 3> physical_extent(const ArraySpec& a) {
  switch (a.stationarity()) {
    case Stationarity::kOutput: return {a.tile_m, a.tile_n, 1};
    case Stationarity::kWeight: return {1, a.tile_n, a.tile_k};
    case Stationarity::kInput: return {a.tile_m, 1, a.tile_k};
  }
  return {1, 1, 1};
}

std::string ArraySparsity::name() const {
  return std::to_string(groups()) + "G_" + net_x.topology + net_w.topology;
}

namespace {

// The completed tiling of one iterator: the given one checked against the array, or
// the dense default T = TT = S = SS = the physical extent.
SparseTiling complete_tiling(const ArraySpec& a, Iter it, const std::string& array_key) {
  const uint32_t tt = physical_extent(a)[static_cast<int>(it)];
  SparseTiling st = a.sparse_tiling[static_cast<int>(it)];
  if (!st.given) {
    st = {tt, tt, tt, tt, false, "arrays." + array_key + ".sparse_tiling." + iter_name(it)};
    return st;
  }
  for (uint32_t* level : {&st.t, &st.tt, &st.s})  // `_`: the physical extent
    if (*level == 0) *level = tt;
  const std::string what = "sparse tiling " + st.text();
  // A dot array's lanes hold the k tile (S_k = the tile) in TT_k MACs each: compressed.
  const bool dot_k = it == Iter::kK && a.stationarity() != Stationarity::kOutput;
  if (dot_k && st.s != tt)
    fail(st.place, what + ": on a dot array S is the k tile each lane holds: expected S = " + std::to_string(tt));
  if (dot_k && tt % st.tt != 0)
    fail(st.place, what + ": TT (MACs per lane) must divide the k tile " + std::to_string(tt));
  if (!dot_k && st.tt != tt)
    fail(st.place, what + ": TT must be the array's extent along " + iter_name(it) + " per cycle, " +
                       std::to_string(tt) + (tt == 1 ? " (the iterator runs in time)" : " PEs"));
  if (st.tt % st.t != 0) fail(st.place, what + ": T must divide TT (physical sub-tiles of the array)");
  if (st.s % st.tt != 0) fail(st.place, what + ": S not a multiple of TT (the value network offers whole physical tiles)");
  if (st.ss % st.s != 0) fail(st.place, what + ": SS not a multiple of S (group tiles hold whole virtual tiles)");
  if (it != Iter::kK && st.s != st.tt)
    fail(st.place, what + ": a value network skips along the reduced iterator k only: expected S = TT on " +
                       iter_name(it));
  if (it == Iter::kK && st.s / st.tt > 64)
    fail(st.place, what + ": a value network offers at most 64 physical tiles per cycle (S / TT <= 64)");
  if (it == Iter::kK && a.stationarity() == Stationarity::kOutput && a.tile_k % st.s != 0)
    fail(st.place, what + ": the window S=" + std::to_string(st.s) + " must divide the k tile " +
                       std::to_string(a.tile_k));
  return st;
}

// Which array a compute mapping on `tensor` binds to and whether it is operand A (x side).
struct Binding {
  std::string array;
  bool operand_a;
};

Binding bind_compute(const SparseMapping& sm, const DesignSpec& spec) {
  const std::string& t = sm.tensor;
  if (t == "s") fail(sm.place, "tensor s is array a's output: expected an operand (x, w, q, k, p, v)");
  Binding b;
  b.operand_a = t == "x" || t == "q" || t == "p";
  const bool attention_tensor = t != "x" && t != "w";
  b.array = attention_tensor ? (t == "q" || t == "k" ? "a" : "b") : (sm.array.empty() ? "a" : sm.array);
  if (attention_tensor && !spec.attention_kernel)
    fail(sm.place, "tensor " + t + " belongs to the attention kernel, which this design does not build: "
                   "expected x or w, or attention in `kernels`");
  if (!sm.array.empty() && sm.array != b.array)
    fail(sm.place, "tensor " + t + " is an operand of array " + b.array + ", not of array " + sm.array);
  if (!attention_tensor && b.array != "a")
    fail(sm.place, "matmul operands x and w stream through array a; array b's operands are p and v");
  return b;
}

// "x==0" on the tensor itself, or "N:M" structured (at most N non-zeros in M along k);
// returns N and M of a structured condition, {0, 0} for a zero test.
std::pair<uint32_t, uint32_t> check_value_condition(const SparseMapping& sm, const SparseTiling& k) {
  static const std::regex nm("([0-9]+):([0-9]+)");
  std::smatch mt;
  if (std::regex_match(sm.condition, mt, nm)) {
    const uint32_t n = static_cast<uint32_t>(std::stoul(mt[1])), m = static_cast<uint32_t>(std::stoul(mt[2]));
    if (n == 0 || n >= m) fail(sm.place, "condition '" + sm.condition + "': expected N:M with 0 < N < M");
    if (k.s % m != 0)
      fail(sm.place, "condition '" + sm.condition + "': the value network's window S_k=" + std::to_string(k.s) +
                         " must be a multiple of M=" + std::to_string(m));
    return {n, m};
  }
  if (sm.condition != sm.tensor + "==0")
    fail(sm.place, "condition '" + sm.condition + "': expected " + sm.tensor + "==0 or an N:M pattern like 2:4");
  return {0, 0};
}

// Algorithm 1 for operand X with own spatial iterator u and partner iterator v.
NetworkParams value_network(const ArraySpec& a, const std::array<SparseTiling, 3>& t, int u, int v,
                            bool partner_sparse) {
  NetworkParams p;
  p.g = t[u].tt / t[u].t;
  p.lanes = partner_sparse ? t[v].tt / t[v].t : 1;
  p.o = t[kK].tt;
  p.i = t[kK].s;
  p.m = t[v].tt / p.lanes;
  p.c = t[kK].tt / t[kK].t;
  if (a.systolic) {
    p.s = 2;
    p.m = 1;
    p.c *= p.lanes;
  }
  return p;
}

ValueNetwork named_network(const std::string& tensor, const NetworkParams& p, const std::string& where) {
  std::string why;
  const std::string cell = network_topology(p, &why);
  if (cell.empty()) fail(where, "the " + tensor + " network has " + why + ": change T of the tiling");
  return {tensor, p, cell};
}

ArraySparsity plan_array_sparsity(const DesignSpec& spec, const std::string& key,
                                  const std::vector<std::pair<const SparseMapping*, bool>>& mappings) {
  const ArraySpec& a = key == "a" ? spec.array_a : spec.array_b;
  ArraySparsity as;
  as.dot = a.stationarity() != Stationarity::kOutput;
  for (Iter it : {Iter::kM, Iter::kN, Iter::kK}) as.tiling[static_cast<int>(it)] = complete_tiling(a, it, key);
  const SparseTiling& k = as.tiling[kK];
  for (const auto& [sm, operand_a] : mappings) {
    if (k.s == k.tt)
      fail(sm->place, "a compute_value mapping needs a value network: expected arrays." + key +
                          ".sparse_tiling.k with S above TT (for example " + std::to_string(k.tt) + ":" +
                          std::to_string(k.tt) + ":" + std::to_string(k.tt * 4) + ":" + std::to_string(k.tt * 4) + ")");
    const auto [n, m] = check_value_condition(*sm, k);
    if (!operand_a) as.w_pattern_n = n, as.w_pattern_m = m;
    (operand_a ? as.x_sparse : as.w_sparse) = true;
    (operand_a ? as.x_condition : as.w_condition) = sm->condition;
  }
  if (k.s > k.tt && !as.sparse())
    fail(k.place, "S=" + std::to_string(k.s) + " above TT=" + std::to_string(k.tt) +
                      " builds a value network, but no compute_value mapping binds to array " + key);
  const std::string where = k.place;
  as.net_x = named_network("x", value_network(a, as.tiling, kM, kN, as.w_sparse), where);
  as.net_w = named_network("w", value_network(a, as.tiling, kN, kM, as.x_sparse), where);
  return as;
}

GroupNetwork plan_group(const SparseMapping& sm, const DesignSpec& spec) {
  if (sm.tensor != "k" || sm.condition != "topk")
    fail(sm.place, "compute_group: expected tensor k with condition topk (block TopK attention)");
  if (!spec.attention_kernel) fail(sm.place, "block TopK attention needs attention in `kernels`");
  const SparseTiling& n = spec.array_a.sparse_tiling[kN];
  const uint32_t keys = n.given ? n.ss : spec.array_a.tile_n;  // keys the group network sees per cycle
  GroupNetwork g;
  g.present = true;
  g.block = sm.block;
  g.topk = sm.topk;
  if (keys % sm.block != 0 || keys / sm.block < 2)
    fail(sm.place, "block " + std::to_string(sm.block) + ": the group network sees SS_n=" + std::to_string(keys) +
                       " keys per cycle and needs at least two whole blocks of them");
  g.params.i = keys / sm.block;
  g.params.o = 1;
  return g;
}

void plan_memory(const SparseMapping& sm, const DesignSpec& spec, MemorySparsity& mem) {
  if (sm.kind == "memory_value") {
    if (sm.condition != sm.tensor + "==0")
      fail(sm.place, "memory_value (compression): expected condition " + sm.tensor + "==0");
    if (sm.tensor == "s" || sm.tensor == "p")
      fail(sm.place, "tensor " + sm.tensor + " never leaves the chip: expected x, w, q, k or v");
    if (std::count(mem.compressed.begin(), mem.compressed.end(), sm.tensor))
      fail(sm.place, "tensor " + sm.tensor + " is compressed twice");
    mem.compressed.push_back(sm.tensor);
    return;
  }
  if (sm.tensor != "k") fail(sm.place, "memory_group: expected tensor k (the key loop's bounds)");
  if (!spec.attention_kernel) fail(sm.place, "window attention needs attention in `kernels`");
  if (sm.condition != "window" && sm.condition != "causal" && sm.condition != "sliding")
    fail(sm.place, "memory_group condition '" + sm.condition + "': expected window, causal or sliding");
  if (!mem.window_kind.empty()) fail(sm.place, "a second memory_group mapping: the key loop has one bound");
  mem.window_kind = sm.condition;
  mem.window = sm.window;
}

}  // namespace

SparsePlan plan_sparsity(const DesignSpec& spec) {
  SparsePlan plan;
  std::vector<std::pair<const SparseMapping*, bool>> on_a, on_b;
  for (const SparseMapping& sm : spec.sparsity) {
    if (sm.kind == "compute_value") {
      const Binding b = bind_compute(sm, spec);
      auto& list = b.array == "a" ? on_a : on_b;
      for (const auto& [other, operand_a] : list)
        if (operand_a == b.operand_a) fail(sm.place, "a second compute_value mapping on the same operand of array " + b.array);
      list.push_back({&sm, b.operand_a});
    } else if (sm.kind == "compute_group") {
      if (plan.group.present) fail(sm.place, "a second compute_group mapping");
      plan.group = plan_group(sm, spec);
    } else {
      plan_memory(sm, spec, plan.memory);
    }
  }
  plan.a = plan_array_sparsity(spec, "a", on_a);
  plan.b = plan_array_sparsity(spec, "b", on_b);
  return plan;
}

}  // namespace fsgen
