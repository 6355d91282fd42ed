// A design space (fsgen explore): a base spec, the axes that vary it, the constraints a
// point must meet and the benchmarks every point runs. The YAML mirrors it:
//
//   name: paper
//   base: ../examples/dse_8gbps.yaml     # relative to the space file
//   axes:                                # spec paths and the values each takes
//     arrays.a.loop_order: [output_stationary, weight_stationary]
//     arrays.a.tiling: [{m: 16, n: 16, k: 128}, {m: 8, n: 32, k: 128}]
//     sparsity+memory: [[], [{kind: memory_value, tensor: w, condition: "w==0"}]]  # appends
//     "@compressed": [{}, {memory.operand_tiles.b: 1, sparsity+: [...]}]  # '@': each value a bundle
//   constraints: {max_pes: 4096, max_tops: 8}  # the per-tensor buffer limit: the spec's own
//   benchmarks:
//     - {model: Llama-2-7b, stage: decode, context: 512, layers: 1, zeros: 0.5}
//   comparisons: {power_cap_mw: 700, cycle_cap: 8.0e7}
//
// The points are the axes' cartesian product, the first axis varying slowest; each is the
// base spec with its axis values set, as YAML text (its hash names it in the database).
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fsgen {

struct SpaceAxis {
  // A dotted spec path (arrays.a.tiling); path+label appends to the list there; a name
  // starting with '@' is a bundle, each value a map of such paths to their values.
  std::string path;
  std::vector<YAML::Node> values;  // each a scalar or a map, set at the path
};

// What a point must meet to be run; a point that does not is recorded as excluded, with why.
// The per-tensor buffer limit is the spec's memory.buffer_limit_bytes (elaboration refuses).
struct SpaceConstraints {
  uint32_t max_pes = 0;           // both arrays' PEs at most (0: no limit)
  double max_tops = 0;            // peak INT8 tera-operations per second, 2 per PE per cycle (0: no limit)
  double max_bandwidth_gbps = 0;  // the spec's memory bandwidth at most, GB/s (0: no limit)
  double max_clock_mhz = 0;       // the spec's clock at most, MHz (0: no limit)
  double max_area_mm2 = 0;        // the primitive area models' area at most, mm2 (0: no limit; needs a power model)
  double max_power_mw = 0;        // the power on every benchmark at most, mW (0: no limit; needs a power model)
};

struct SpaceBenchmark {
  std::string model;              // a workload name or a config.json path
  std::string stage = "prefill";  // prefill or decode
  uint32_t context = 128;         // prefill: tokens; decode: tokens already cached
  uint32_t layers = 1;            // layers run (0: all)
  // Share of every operand's values that are zero (pruned weights, sparse activations): the
  // zero statistics sparse designs are timed by, and the power sample's operands.
  double zeros = 0;
  bool attention_only = false;  // part: attention (the layers' attention blocks alone) or layer
  std::string key() const;      // model/stage/context/layers[/attention][/zeros=Z], its name in the database
};
// The benchmark a key names (SpaceBenchmark::key's inverse); UserError on another form.
SpaceBenchmark benchmark_of_key(const std::string& key);

// The paper's two comparisons of a space against each baseline space (fsgen explore's report):
// the fewest cycles at a power cap, and the least power at a cycle cap (cycles summed over the
// benchmarks).
struct SpaceComparisons {
  double power_cap_mw = 700;
  double cycle_cap = 8e7;
};

struct DesignSpace {
  std::string name, file;
  std::string base_text;  // the base spec, as read
  std::vector<SpaceAxis> axes;
  SpaceConstraints constraints;
  std::vector<SpaceBenchmark> benchmarks;
  SpaceComparisons comparisons;
  uint64_t points() const;  // the product of the axes' value counts
};

struct DesignPoint {
  uint64_t index = 0;
  std::string name;       // <space>_<index>
  std::string spec_text;  // the base with this point's values set
  std::string hash;       // 16 hex digits of the spec text's FNV-1a hash
};

// UserError naming the file, the place and what was expected on a malformed space.
DesignSpace read_design_space(const std::string& path);
DesignPoint design_point(const DesignSpace& s, uint64_t index);

}  // namespace fsgen
