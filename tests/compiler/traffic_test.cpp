// Least off-chip traffic and the roofline of a kernel (compiler/traffic.h).
#include "compiler/traffic.h"

#include <gtest/gtest.h>

namespace fsgen {
namespace {

TEST(Traffic, EveryOperandOnceEveryResultOnce) {
  MatmulProblem mm;
  mm.m = 32, mm.n = 48, mm.k = 16;
  EXPECT_EQ(least_traffic_bytes(mm), 32u * 16 + 16u * 48 + 32u * 48);

  // GQA prefill: Q and O of 4 query heads, K and V of 2 KV heads, the residual input.
  AttentionProblem at;
  at.q_heads = 4, at.kv_heads = 2, at.tokens = 16, at.residual = true;
  EXPECT_EQ(least_traffic_bytes(at, 8), 2u * 16 * 4 * 8 + 2u * 16 * 2 * 8 + 16u * 4 * 8);
  // Decode: one new token reads the whole KV cache, the context and itself.
  at.stage = Stage::kDecode, at.tokens = 1, at.context = 40, at.residual = false;
  EXPECT_EQ(least_traffic_bytes(at, 8), 2u * 1 * 4 * 8 + 2u * 41 * 2 * 8);

  FfnProblem ffn;
  ffn.tokens = 5, ffn.ffn = 24, ffn.gated = true;
  EXPECT_EQ(least_traffic_bytes(ffn, 16), 2u * 5 * 16 + 3u * 16 * 24);
  ffn.gated = false;
  EXPECT_EQ(least_traffic_bytes(ffn, 16), 2u * 5 * 16 + 2u * 16 * 24);
}

TEST(Traffic, TheRooflineIsTheSlowerOfComputeAndMemory) {
  const Roofline mem = roofline(32768, 128, 3072, 8);  // 256 cycles of MACs, 384 of bytes
  EXPECT_EQ(mem.compute_cycles, 256u);
  EXPECT_EQ(mem.memory_cycles, 384u);
  EXPECT_EQ(mem.bound(), 384u);
  EXPECT_STREQ(mem.bound_by(), "memory");
  const Roofline cmp = roofline(1000001, 1000, 10, 16);  // partial cycles round up
  EXPECT_EQ(cmp.compute_cycles, 1001u);
  EXPECT_EQ(cmp.memory_cycles, 1u);
  EXPECT_STREQ(cmp.bound_by(), "compute");
}

}  // namespace
}  // namespace fsgen
