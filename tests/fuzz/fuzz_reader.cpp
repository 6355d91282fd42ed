// libFuzzer targets for fsgen's readers (make fuzz, tests/fuzz/README.md): one binary per
// reader, chosen by FSGEN_FUZZ_READER at compile time, feeds the reader the fuzzer's bytes.
// A UserError is the reader's answer to malformed input; any other exception, a crash, a
// sanitizer report or a hang is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "compiler/checkpoint.h"
#include "compiler/model_config.h"
#include "compiler/program.h"
#include "compiler/safetensors.h"
#include "core/error.h"
#include "generator/graph.h"
#include "generator/spec.h"
#include "models/run_result.h"
#include "power/characterize.h"
#include "power/gate_sim.h"
#include "power/liberty.h"
#include "power/power_model.h"

namespace {

using namespace fsgen;

// The bytes as a file, for readers that take a path (one file per fuzzing process).
std::string as_file(const std::string& bytes, const char* extension) {
  static const std::string path = "/tmp/fsgen_fuzz_" + std::to_string(::getpid()) + extension;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

void read(const std::string& b) {
  const std::string reader = FSGEN_FUZZ_READER;
  if (reader == "spec") {
    elaborate(parse_spec_text(b, "fuzz.yaml"));
  } else if (reader == "model_config") {
    read_model_config(as_file(b, ".json"));
  } else if (reader == "safetensors") {
    const SafetensorsModel m(as_file(b, ".safetensors"));
    for (const auto& [name, t] : m.tensors())
      if (t.dtype == "F32" || t.dtype == "F16" || t.dtype == "BF16") m.read_f32(name);
  } else if (reader == "llama2c") {
    DecoderCheckpoint m(as_file(b, ".bin"));
  } else if (reader == "liberty") {
    read_liberty(b, "fuzz.lib");
  } else if (reader == "dataset") {
    read_dataset(as_file(b, ".csv"));
  } else if (reader == "power_model") {
    load_power_model(as_file(b, ".json"));
  } else if (reader == "vcd") {
    read_vcd_waveforms(as_file(b, ".vcd"), {"fsgen_top", "u_array_a"}, {{"en", 1}, {"x", 40}, {"clr", 1}}, 16);
  } else if (reader == "program") {
    load_program(as_file(b, ".json"));
  } else if (reader == "run_record") {
    decode_run_result(b);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    read(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const fsgen::UserError&) {
  }
  return 0;
}
