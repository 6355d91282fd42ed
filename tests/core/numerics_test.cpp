#include "core/numerics.h"

#include <gtest/gtest.h>

namespace fsgen::num {
namespace {

TEST(Numerics, RequantiseRoundsHalfUpAndClamps) {
  EXPECT_EQ(requantize(100, 1, 0), 100);
  EXPECT_EQ(requantize(5, 1, 1), 3);     // 2.5 -> 3
  EXPECT_EQ(requantize(-5, 1, 1), -2);   // -2.5 -> -2 (half up, toward +inf)
  EXPECT_EQ(requantize(-6, 1, 1), -3);
  EXPECT_EQ(requantize(1000, 3, 5), 94);   // 3000 / 32 = 93.75 -> 94
}

TEST(Numerics, RequantiseSaturates) {
  EXPECT_EQ(requantize(1 << 20, 1, 4), 127);
  EXPECT_EQ(requantize(-(1 << 20), 1, 4), -128);
  EXPECT_EQ(requantize(INT32_MIN, 65535, 31), -128);
  EXPECT_EQ(requantize(INT32_MAX, 65535, 0), 127);
}

TEST(Numerics, AccumulationWrapsModulo2To32) {
  EXPECT_EQ(wrap_add(INT32_MAX, 1), INT32_MIN);
  EXPECT_EQ(mac(0, -128, -128), 16384);
}

TEST(Numerics, MatmulReferenceOnAKnownCase) {
  // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50]
  const std::vector<int8_t> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  const auto c = matmul_reference(a, b, 2, 2, 2, 1, 0);
  EXPECT_EQ(c, (std::vector<int8_t>{19, 22, 43, 50}));
  const auto c2 = matmul_reference(a, b, 2, 2, 2, 1, 2);  // /4 rounded
  EXPECT_EQ(c2, (std::vector<int8_t>{5, 6, 11, 13}));
}

}  // namespace
}  // namespace fsgen::num
