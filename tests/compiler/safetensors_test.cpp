#include "compiler/safetensors.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace fsgen {
namespace {

// One scratch folder for the whole test program (scratch_dir empties it).
const std::string& dir() {
  static const std::string d = test::scratch_dir("safetensors");
  return d;
}

// Writes a safetensors file: the 8-byte length, the header text, the data bytes.
std::string write_file(const std::string& name, const std::string& header, const std::vector<uint8_t>& data) {
  const std::string path = dir() + "/" + name;
  std::ofstream out(path, std::ios::binary);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xFF));
  out << header;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  return path;
}

std::vector<uint8_t> f32_bytes(std::vector<float> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// a: F32 [2, 3]; b: F16 [2] = {1, -2}; c: BF16 [1] = {0.5}.
std::string valid_file(const std::string& name = "model.safetensors") {
  std::vector<uint8_t> data = f32_bytes({1, 2, 3, 4, 5, 6});
  for (uint8_t x : {0x00, 0x3C, 0x00, 0xC0, 0x00, 0x3F}) data.push_back(x);
  return write_file(name,
                    R"({"__metadata__": {"format": "pt"},
                        "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
                        "b": {"dtype": "F16", "shape": [2], "data_offsets": [24, 28]},
                        "c": {"dtype": "BF16", "shape": [1], "data_offsets": [28, 30]}})",
                    data);
}

TEST(Safetensors, ReadsTensorsOfEachFloatType) {
  const SafetensorsModel m(valid_file());
  EXPECT_EQ(m.tensors().size(), 3u);
  EXPECT_EQ(m.read_f32("a", {2, 3}), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(m.read_f32("b"), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(m.read_f32("c"), (std::vector<float>{0.5f}));
  std::string e = test::error_of([&] { m.read_f32("a", {3, 2}); });
  EXPECT_NE(e.find("tensor 'a': shape 2x3: expected 3x2 (from the model config)"), std::string::npos) << e;
  e = test::error_of([&] { m.tensor("d"); });
  EXPECT_NE(e.find("no tensor 'd'"), std::string::npos) << e;
}

TEST(Safetensors, ShardedCheckpointsFollowTheirIndex) {
  valid_file("model-00001-of-00002.safetensors");
  write_file("model-00002-of-00002.safetensors", R"({"z": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
             f32_bytes({7}));
  const std::string index = dir() + "/model.safetensors.index.json";
  std::ofstream(index) << R"({"metadata": {}, "weight_map": {"a": "model-00001-of-00002.safetensors",
      "b": "model-00001-of-00002.safetensors", "c": "model-00001-of-00002.safetensors",
      "z": "model-00002-of-00002.safetensors"}})";
  const SafetensorsModel m(index);
  EXPECT_EQ(m.read_f32("z"), (std::vector<float>{7}));
  EXPECT_EQ(m.read_f32("b"), (std::vector<float>{1.0f, -2.0f}));
  std::ofstream(index) << R"({"weight_map": {"z": "model-00001-of-00002.safetensors"}})";
  const std::string e = test::error_of([&] { SafetensorsModel bad(index); });
  EXPECT_NE(e.find("weight_map names 'z' in model-00001-of-00002.safetensors, which does not hold it"), std::string::npos) << e;
}

TEST(Safetensors, DefectsAreOneLineErrors) {
  auto error_for = [](const std::string& header, const std::vector<uint8_t>& data) {
    const std::string path = write_file("bad.safetensors", header, data);
    return test::error_of([&] { SafetensorsModel m(path); });
  };
  const std::vector<uint8_t> eight(8, 0);
  EXPECT_NE(error_for(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", eight)
                .find("tensor 'a': 4 bytes for 2 F32 elements: expected 8"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}})", eight)
                .find("tensor 'b': overlaps the previous tensor"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", eight).find("tensor 'a': leaves a gap at byte 0"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", eight).find("4 bytes after the last tensor"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"a": {"dtype": "Q4", "shape": [8], "data_offsets": [0, 8]}})", eight).find("unknown dtype \"Q4\""),
            std::string::npos);
  EXPECT_NE(error_for(R"({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})", eight).find("outside the 8-byte data section"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"a": )", eight).find("malformed header JSON"), std::string::npos);
  // A header length past the end of the file, and a file shorter than the length field.
  std::ofstream(dir() + "/long.safetensors", std::ios::binary) << std::string("\xff\x00\x00\x00\x00\x00\x00\x00{}", 10);
  std::string e = test::error_of([&] { SafetensorsModel m(dir() + "/long.safetensors"); });
  EXPECT_NE(e.find("header of 255 bytes runs past the end of the 10-byte file"), std::string::npos) << e;
  std::ofstream(dir() + "/short.safetensors", std::ios::binary) << "abc";
  e = test::error_of([&] { SafetensorsModel m(dir() + "/short.safetensors"); });
  EXPECT_NE(e.find("truncated: 3 bytes"), std::string::npos) << e;
  // Shapes whose element count overflows 64 bits, negative dimensions, reversed offsets.
  e = error_for(R"({"a": {"dtype": "F32", "shape": [4611686018427387904, 4], "data_offsets": [0, 8]}})", eight);
  EXPECT_NE(e.find("tensor 'a': shape [4611686018427387904,4]: its byte count overflows 64 bits"), std::string::npos)
      << e;
  e = error_for(R"({"a": {"dtype": "F32", "shape": [-1, 2], "data_offsets": [0, 8]}})", eight);
  EXPECT_NE(e.find("tensor 'a'"), std::string::npos) << e;
  e = error_for(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})", eight);
  EXPECT_NE(e.find("tensor 'a'"), std::string::npos) << e;
  // A shard the index names that is a folder.
  std::filesystem::create_directories(dir() + "/shards/part.safetensors");
  std::ofstream(dir() + "/shards/model.safetensors.index.json") << R"({"weight_map": {"a": "part.safetensors"}})";
  e = test::error_of([&] { SafetensorsModel m(dir() + "/shards/model.safetensors.index.json"); });
  EXPECT_NE(e.find("part.safetensors: not a file: expected a safetensors file"), std::string::npos) << e;
}

}  // namespace
}  // namespace fsgen
