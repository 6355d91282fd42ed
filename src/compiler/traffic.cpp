#include "compiler/traffic.h"

namespace fsgen {

uint64_t least_traffic_bytes(const MatmulProblem& p) {
  const uint64_t m = p.m, n = p.n, k = p.k;
  return m * k + k * p.b_columns() + m * n;
}

uint64_t least_traffic_bytes(const AttentionProblem& p, uint32_t head_dim) {
  const uint64_t d = head_dim, queries = p.tokens, keys = uint64_t(p.context) + p.tokens;
  const uint64_t q_and_o = 2 * queries * p.q_heads * d, k_and_v = 2 * keys * p.kv_heads * d;
  return q_and_o + k_and_v + (p.residual ? queries * p.q_heads * d : 0);
}

uint64_t least_traffic_bytes(const FfnProblem& p, uint32_t hidden) {
  const uint64_t weights = (p.gated ? 3 : 2) * uint64_t(hidden) * p.ffn;
  return 2 * uint64_t(p.tokens) * hidden + weights;
}

Roofline roofline(uint64_t macs, uint64_t pes, uint64_t least_bytes, uint32_t bytes_per_cycle) {
  Roofline r;
  r.compute_cycles = pes ? (macs + pes - 1) / pes : 0;
  r.memory_cycles = bytes_per_cycle ? (least_bytes + bytes_per_cycle - 1) / bytes_per_cycle : 0;
  return r;
}

}  // namespace fsgen
