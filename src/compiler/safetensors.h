// Reader of Hugging Face safetensors checkpoints: one file, or shards named by a
// model.safetensors.index.json. The header is checked in full before any tensor is
// read: its size against the file, each tensor's dtype, shape and byte range, and that
// the tensors tile the data section with no gaps or overlaps. Every defect is a one-line
// UserError naming the file (and tensor); nothing is read past the file's end.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fsgen {

struct SafeTensor {
  std::string name, dtype;      // dtype: F32, F16, BF16, F64, I8, U8, I16, I32, I64, BOOL
  std::vector<uint64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range in the data section
  std::string file;             // the file that holds it
  uint64_t elements() const;
};

class SafetensorsModel {
 public:
  // `path`: a .safetensors file, or a model.safetensors.index.json (its shards beside it).
  explicit SafetensorsModel(const std::string& path);
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const SafeTensor& tensor(const std::string& name) const;  // UserError if absent
  const std::map<std::string, SafeTensor>& tensors() const { return tensors_; }
  // The tensor's values as FP32 (from F32, F16 or BF16), checked against `shape` when given.
  std::vector<float> read_f32(const std::string& name, const std::vector<uint64_t>& shape = {}) const;

 private:
  void add_file(const std::string& file);
  std::map<std::string, SafeTensor> tensors_;
  std::map<std::string, uint64_t> data_offset_;  // file -> where its data section starts
};

}  // namespace fsgen
