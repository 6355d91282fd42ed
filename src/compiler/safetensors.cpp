#include "compiler/safetensors.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/json_file.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kMaxHeader = 100ull << 20;  // the format's cap

size_t dtype_bytes(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes = {{"F64", 8}, {"I64", 8}, {"F32", 4}, {"I32", 4}, {"F16", 2},
                                                      {"BF16", 2}, {"I16", 2}, {"I8", 1}, {"U8", 1}, {"BOOL", 1}};
  auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
  if (exp == 0) {
    if (man == 0) bits = sign;
    else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) man <<= 1, --exp;
      bits = sign | (exp << 23) | ((man & 0x3FF) << 13);
    }
  } else if (exp == 31) bits = sign | 0x7F800000 | (man << 13);
  else bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

uint64_t SafeTensor::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

SafetensorsModel::SafetensorsModel(const std::string& path) {
  if (fs::path(path).extension() == ".json") {
    const nlohmann::json j = read_json_file(path, "safetensors index");
    if (!j.contains("weight_map") || !j["weight_map"].is_object()) fail(path, "expected a weight_map object");
    std::map<std::string, std::vector<std::string>> by_file;
    for (const auto& [name, file] : j["weight_map"].items()) {
      if (!file.is_string()) fail(path, "weight_map['" + name + "']: expected a file name");
      by_file[file.get<std::string>()].push_back(name);
    }
    for (const auto& [file, names] : by_file) {
      add_file((fs::path(path).parent_path() / file).string());
      for (const auto& n : names)
        if (!has(n) || tensors_.at(n).file != (fs::path(path).parent_path() / file).string())
          fail(path, "weight_map names '" + n + "' in " + file + ", which does not hold it");
    }
  } else {
    add_file(path);
  }
}

void SafetensorsModel::add_file(const std::string& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) fail(file, "not a file: expected a safetensors file");
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, "cannot open safetensors file");
  const uint64_t size = fs::file_size(file, ec);
  if (ec) fail(file, "cannot read the file's size: " + ec.message());
  if (size < 8) fail(file, "truncated: " + std::to_string(size) + " bytes, expected an 8-byte header length");
  uint8_t len_bytes[8];
  in.read(reinterpret_cast<char*>(len_bytes), 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len_bytes[i];
  if (n > kMaxHeader) fail(file, "header of " + std::to_string(n) + " bytes: expected at most 100 MB");
  if (8 + n > size) fail(file, "header of " + std::to_string(n) + " bytes runs past the end of the " + std::to_string(size) + "-byte file");
  std::string header(n, '\0');
  in.read(header.data(), static_cast<std::streamsize>(n));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(header);
  } catch (const std::exception& e) {
    fail(file, std::string("malformed header JSON: ") + e.what());
  }
  if (!j.is_object()) fail(file, "header: expected a JSON object");
  const uint64_t data_size = size - 8 - n;
  std::vector<SafeTensor> found;
  for (const auto& [name, t] : j.items()) {
    if (name == "__metadata__") continue;
    const std::string where = file + ": tensor '" + name + "'";
    if (!t.is_object() || !t.contains("dtype") || !t.contains("shape") || !t.contains("data_offsets"))
      fail(where, "expected {dtype, shape, data_offsets}");
    SafeTensor st;
    st.name = name;
    st.file = file;
    st.dtype = t["dtype"].is_string() ? t["dtype"].get<std::string>() : "";
    if (dtype_bytes(st.dtype) == 0) fail(where, "unknown dtype " + t["dtype"].dump());
    if (!t["shape"].is_array()) fail(where, "shape: expected an array of non-negative integers");
    uint64_t bytes = dtype_bytes(st.dtype);  // checked as it grows: no shape may overflow it
    for (const auto& d : t["shape"]) {
      if (!d.is_number_unsigned()) fail(where, "shape: expected non-negative integers");
      st.shape.push_back(d.get<uint64_t>());
      if (bytes != 0 && st.shape.back() > UINT64_MAX / bytes)
        fail(where, "shape " + t["shape"].dump() + ": its byte count overflows 64 bits");
      bytes *= st.shape.back();
    }
    const auto& off = t["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      fail(where, "data_offsets: expected [begin, end]");
    st.begin = off[0].get<uint64_t>();
    st.end = off[1].get<uint64_t>();
    if (st.end < st.begin || st.end > data_size)
      fail(where, "data_offsets [" + std::to_string(st.begin) + ", " + std::to_string(st.end) + ") outside the " +
                      std::to_string(data_size) + "-byte data section");
    if (st.elements() * dtype_bytes(st.dtype) != st.end - st.begin)
      fail(where, std::to_string(st.end - st.begin) + " bytes for " + std::to_string(st.elements()) + " " + st.dtype +
                      " elements: expected " + std::to_string(st.elements() * dtype_bytes(st.dtype)));
    found.push_back(st);
  }
  std::sort(found.begin(), found.end(), [](const SafeTensor& a, const SafeTensor& b) { return a.begin < b.begin; });
  uint64_t at = 0;
  for (const SafeTensor& st : found) {
    if (st.begin != at)
      fail(file + ": tensor '" + st.name + "'", (st.begin < at ? "overlaps the previous tensor" : "leaves a gap") +
                                                     std::string(" at byte ") + std::to_string(std::min(at, st.begin)) +
                                                     ": expected tensors that tile the data section");
    at = st.end;
  }
  if (at != data_size) fail(file, std::to_string(data_size - at) + " bytes after the last tensor: expected none");
  for (SafeTensor& st : found) {
    if (tensors_.count(st.name)) fail(file + ": tensor '" + st.name + "'", "also in " + tensors_.at(st.name).file);
    tensors_[st.name] = std::move(st);
  }
  data_offset_[file] = 8 + n;
}

const SafeTensor& SafetensorsModel::tensor(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) fail("safetensors", "no tensor '" + name + "'");
  return it->second;
}

std::vector<float> SafetensorsModel::read_f32(const std::string& name, const std::vector<uint64_t>& shape) const {
  const SafeTensor& t = tensor(name);
  const std::string where = t.file + ": tensor '" + name + "'";
  if (!shape.empty() && shape != t.shape) {
    std::string want, got;
    for (uint64_t d : shape) want += (want.empty() ? "" : "x") + std::to_string(d);
    for (uint64_t d : t.shape) got += (got.empty() ? "" : "x") + std::to_string(d);
    fail(where, "shape " + got + ": expected " + want + " (from the model config)");
  }
  std::ifstream in(t.file, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(data_offset_.at(t.file) + t.begin));
  std::vector<uint8_t> raw(t.end - t.begin);
  in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()));
  if (!in) fail(where, "cannot read its bytes");
  std::vector<float> out(t.elements());
  for (size_t i = 0; i < out.size(); ++i) {
    if (t.dtype == "F32") std::memcpy(&out[i], raw.data() + 4 * i, 4);
    else if (t.dtype == "F16") out[i] = half_to_float(uint16_t(raw[2 * i] | (raw[2 * i + 1] << 8)));
    else if (t.dtype == "BF16") {
      const uint32_t bits = uint32_t(raw[2 * i] | (raw[2 * i + 1] << 8)) << 16;
      std::memcpy(&out[i], &bits, 4);
    } else
      fail(where, "dtype " + t.dtype + ": expected F32, F16 or BF16 weights");
  }
  return out;
}

}  // namespace fsgen
