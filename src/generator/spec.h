// DesignSpec: the validated content of a design spec YAML file.
//
// A spec names the attention type, the memory system, the dataflow of the two
// fused arrays (loop order and tiling over the matmul iterators m, n, k), the
// intermediate tensor caches and the sparse mappings. Field reference with
// units: docs/SPEC.md. parse_spec() either returns a spec that elaborates or
// throws a UserError naming the file, line, field and what was expected.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fsgen {

enum class Iter { kM = 0, kN = 1, kK = 2 };
const char* iter_name(Iter it);

enum class AttentionType { kMha, kGqa };
enum class Activation { kGelu, kSilu };

// Iterators of a matmul-shaped array, C[m][n] += A[m][k] * B[k][n]. In attention
// mode array A computes S = Q K^T (m = query, n = key, k = head dim) and array B
// O = P V (m = query, n = head dim, k = key).
// Which operand stays in the PEs during a tile, fixed by the innermost loop iterator:
// k innermost keeps outputs (C) in the PEs, m keeps weights (B), n keeps inputs (A).
enum class Stationarity { kOutput, kWeight, kInput };
const char* stationarity_name(Stationarity s);

// Sparse tiling of one iterator, T:TT:S:SS (paper section 4.2; src/generator/sparsity.h
// says what each level builds). `given`: written in the spec, else dense (derived).
struct SparseTiling {
  uint32_t t = 0, tt = 0, s = 0, ss = 0;
  bool given = false;
  std::string place;  // where it was written, for errors
  std::string text() const;
};

// "T:TT:S:SS" of four positive integers, or a UserError at `place`. T, TT or S may be `_`
// (kept 0 here): the array's extent along the iterator, filled in by plan_sparsity, so that a
// design space can set a group tile SS whatever tiling its other axes choose.
SparseTiling parse_sparse_tiling(const std::string& text, const std::string& place);

struct ArraySpec {
  std::array<Iter, 3> loop_order{Iter::kM, Iter::kN, Iter::kK};  // outermost first
  uint32_t tile_m = 8;
  uint32_t tile_n = 8;
  uint32_t tile_k = 8;
  // Operand movement in an output-stationary array: broadcast along rows / columns, or
  // systolic (one PE per cycle, skewed feeds, R + C - 2 extra cycles per tile).
  bool systolic = false;
  std::array<SparseTiling, 3> sparse_tiling;  // m, n, k (`sparse_tiling`)
  uint32_t tile(Iter it) const { return it == Iter::kM ? tile_m : it == Iter::kN ? tile_n : tile_k; }
  Stationarity stationarity() const;
  // The PE grid: the two iterators other than the innermost one, in (m, n, k) order.
  uint32_t pe_rows() const;
  uint32_t pe_cols() const;
  uint32_t pe_count() const { return pe_rows() * pe_cols(); }
  uint32_t macs_per_lane() const;  // dot arrays: TT_k of the sparse tiling, else the k tile
  // Partial sums must stay on chip for every output tile whose iterators run inside k.
  bool m_inside_k() const;
  bool n_inside_k() const;
};

struct MemorySpec {
  double bandwidth_gbps = 8;         // off-chip bandwidth, GB/s
  uint32_t latency_cycles = 20;      // off-chip read/write latency, cycles
  uint32_t outstanding = 8;          // read bursts in flight and write responses outstanding in the DMA
  // Matmul operand tiles the controller's buffers hold (operand_tiles: {a, b}); 0 = the
  // default (two, double-buffered, when they fit buffer_limit_bytes). `*_place`: where given.
  uint32_t operand_tiles_a = 0, operand_tiles_b = 0;
  std::string operand_tiles_a_place, operand_tiles_b_place;
  uint32_t buffer_limit_bytes = 16384;  // largest on-chip buffer per tensor, bytes
};

// A sparse mapping (paper section 3.2): a condition Phi on a tensor, bound to an
// array's dataflow (compute) or to the DMA (memory). plan_sparsity() checks the
// bindings (src/generator/sparsity.h).
struct SparseMapping {
  std::string kind;       // compute_value | compute_group | memory_value | memory_group
  std::string tensor;     // x, w (matmul operands), q, k, v, p (attention tensors)
  std::string condition;  // "x==0", "w==0", "N:M", "topk", "window", "causal", "sliding"
  std::string array;      // a | b: the array a compute mapping binds to ("" = by tensor)
  uint32_t block = 0;     // compute_group: keys pooled per block
  uint32_t topk = 0;      // compute_group: key blocks kept per query block
  uint32_t window = 0;    // memory_group window / sliding: keys each query attends
  std::string place;      // where it was declared, for later errors
};

struct DesignSpec {
  std::string name;
  std::string source;  // file the spec came from
  AttentionType attention = AttentionType::kMha;
  double clock_mhz = 1000;
  uint32_t pe_budget = 1024;
  MemorySpec memory;
  ArraySpec array_a;
  ArraySpec array_b;
  Activation activation = Activation::kSilu;
  bool gated_ffn = true;
  bool online_softmax = true;
  std::map<std::string, uint32_t> cache_bytes;  // intermediate tensor caches, bytes per tensor
  bool attention_kernel = false;  // the fused attention kernel is built (spec field `kernels`)
  std::vector<SparseMapping> sparsity;

  // Bytes moved per memory beat: bandwidth / clock, checked to be a power of two.
  uint32_t beat_bytes() const;
};

// Why the dataflow cannot run the fused attention kernel, or "" when it can: arrays a
// (S = Q K^T) and b (O = P V), each of any stationarity, fuse when array b's tiles
// divide the O update (b.m | a.m queries, b.k | a.n keys, b.n | a.k head dim); an
// output-stationary array b holds all of O, so its tiles equal those.
std::string attention_unsupported_reason(const ArraySpec& a, const ArraySpec& b);

DesignSpec parse_spec_file(const std::string& path);
DesignSpec parse_spec_text(const std::string& text, const std::string& source_name);

}  // namespace fsgen
