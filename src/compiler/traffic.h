// The least off-chip traffic of a kernel: every operand byte read once and every result
// byte written once (INT8), whatever the on-chip buffers hold. It is the memory side of a
// kernel's roofline (least bytes / bytes per cycle) and the yardstick of what the DMA moved.
#pragma once
#include <cstdint>

#include "compiler/attention.h"
#include "compiler/ffn.h"
#include "compiler/matmul.h"

namespace fsgen {

// A (m x k) and B (k x n, or k x 2n for a gated epilogue) read, C (m x n) written.
uint64_t least_traffic_bytes(const MatmulProblem& p);
// Q and O of every query head, K and V of every KV head over the keys the queries see (the
// context and the new tokens), and the residual input when added.
uint64_t least_traffic_bytes(const AttentionProblem& p, uint32_t head_dim);
// X and Y (tokens x hidden), W1, W2 and, gated, W3 (hidden x ffn each); X serves the residual too.
uint64_t least_traffic_bytes(const FfnProblem& p, uint32_t hidden);

// The roofline of a kernel on an accelerator: its cycles at the PEs' peak (one MAC per PE per
// cycle) and at the memory's peak (its least traffic at the bytes per cycle), and the larger.
struct Roofline {
  uint64_t compute_cycles = 0, memory_cycles = 0;
  uint64_t bound() const { return compute_cycles > memory_cycles ? compute_cycles : memory_cycles; }
  const char* bound_by() const { return compute_cycles >= memory_cycles ? "compute" : "memory"; }
};
Roofline roofline(uint64_t macs, uint64_t pes, uint64_t least_bytes, uint32_t bytes_per_cycle);

}  // namespace fsgen
