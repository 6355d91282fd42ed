// The llama2.c checkpoint reader: the real model, and truncated or malformed files refused.
#include "compiler/llama2c.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "test_util.h"

namespace fsgen {
namespace {

const char* kStories = "../shared/models/stories260K.bin";

TEST(Llama2c, ReadsTheRealModel) {
  if (!std::filesystem::exists(kStories)) GTEST_SKIP() << kStories << " not present";
  const Llama2cModel m(kStories);
  EXPECT_EQ(m.config().dim, 64);
  EXPECT_EQ(m.config().n_heads, 8);
  EXPECT_EQ(m.config().n_kv_heads, 4);
  EXPECT_EQ(m.config().head_dim(), 8);
  EXPECT_TRUE(m.config().shared_classifier);
}

TEST(Llama2c, TruncatedAndMalformedFilesAreOneLineErrors) {
  const std::string dir = test::scratch_dir("llama2c");
  auto write = [&](const std::vector<int32_t>& header, size_t floats) {
    std::ofstream f(dir + "/m.bin", std::ios::binary);
    f.write(reinterpret_cast<const char*>(header.data()), std::streamsize(header.size() * 4));
    std::vector<float> z(floats, 0.0f);
    f.write(reinterpret_cast<const char*>(z.data()), std::streamsize(floats * 4));
  };
  write({64, 172}, 0);
  EXPECT_NE(test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("truncated: expected a 28-byte header"), std::string::npos);
  write({64, 172, 5, 8, 4, 512, 512}, 1000);
  EXPECT_NE(test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("truncated: the header implies"), std::string::npos);
  write({64, 172, 5, 7, 4, 512, 512}, 0);
  EXPECT_NE(test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("dim must divide"), std::string::npos);
  // Negative sizes (offsets would wrap), INT_MIN's magnitude, sizes whose products overflow.
  write({64, 172, 5, 8, 4, 512, -512}, 0);
  EXPECT_NE(
      test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("header field seq_len = -512: expected 1 up to"),
      std::string::npos);
  write({-64, 172, 5, 8, 4, 512, 512}, 0);
  EXPECT_NE(test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("header field dim = -64"), std::string::npos);
  write({64, 172, 5, 8, 4, INT32_MIN, 512}, 0);
  EXPECT_NE(test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("header field vocab_size = -2147483648"),
            std::string::npos);
  write({1 << 24, 1 << 24, 1 << 24, 8, 4, 512, 512}, 0);
  EXPECT_NE(test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("header field dim = 16777216"),
            std::string::npos);
  // A NaN weight is named by its tensor.
  const int32_t d = 8, hd = 16, layers = 1, heads = 2, kvh = 2, vocab = 4, seq = 4;
  const size_t floats = size_t(vocab) * d + layers * (2 * d + 4 * d * d + 3 * hd * d) + d + seq * (d / heads);
  write({d, hd, layers, heads, kvh, vocab, seq}, floats);
  EXPECT_NO_THROW(Llama2cModel m(dir + "/m.bin"));
  {
    std::fstream f(dir + "/m.bin", std::ios::binary | std::ios::in | std::ios::out);
    const float nan = std::nanf("");
    f.seekp(28 + 4 * (vocab * d + layers * d + 3));  // wq's fourth value
    f.write(reinterpret_cast<const char*>(&nan), 4);
  }
  EXPECT_NE(test::error_of([&] { Llama2cModel m(dir + "/m.bin"); }).find("tensor wq: value nan at float"),
            std::string::npos);
}

}  // namespace
}  // namespace fsgen
