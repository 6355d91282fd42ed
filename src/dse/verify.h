// Trust in the estimators on the front (fsgen explore --verify N): the best designs of a
// results database run again in the cycle model (the SystemC platform, synthetic operands
// drawn at the benchmark's zero share) on the benchmarks the fast model timed shortest (one
// per stage), and the two models' cycles compared; and with synthesis, each block of theirs
// mapped by Yosys and timed by OpenSTA against the primitive area and timing models.
#pragma once
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "dse/results_db.h"
#include "dse/space.h"
#include "power/power_model.h"
#include "sim/design_report.h"
#include "sim/power_report.h"

namespace fsgen {

struct CycleCheck {
  std::string design, space, benchmark;
  uint64_t fast_cycles = 0, cycle_model_cycles = 0;
  double wall_seconds = 0;  // of the cycle-model run
  double error_percent() const {
    return cycle_model_cycles ? 100.0 * (double(fast_cycles) - double(cycle_model_cycles)) / double(cycle_model_cycles)
                              : 0;
  }
};

// The first space's `count` best designs and each other space's best (report.h's order),
// each on its shortest benchmark of each stage; progress(done designs, all) after each design.
std::vector<CycleCheck> check_best_designs(const std::vector<DesignRecord>& designs, uint32_t count,
                                           const std::function<void(uint64_t, uint64_t)>& progress = {});
void print_cycle_checks(const std::vector<CycleCheck>& checks, std::ostream& out);
nlohmann::json cycle_checks_json(const std::vector<CycleCheck>& checks);

// One block of a design: the primitive models' area and worst path against its netlist's.
struct BlockCheck {
  std::string block, kind;
  double model_um2 = 0;
  double synth_um2 = 0;               // mapped for area (as the area models' characterisation maps)
  double delay_mapped_um2 = 0;        // mapped for delay at the spec's clock (the netlist timed)
  double model_ns = 0, synth_ns = 0;  // model_ns 0: no timing model for its kind
  double beyond = 0;                  // KindTiming::beyond: > 1 extrapolated
  std::string path;                   // the netlist's worst path
};

struct SynthesisCheck {
  std::string design, space, liberty;
  std::vector<BlockCheck> blocks;      // the blocks with a primitive model and a netlist
  std::vector<std::string> unchecked;  // the others: memory macros, no model, or failed (with why)
  double wall_seconds = 0;
  double model_um2() const;
  double synth_um2() const;
  double delay_mapped_um2() const;
  // The blocks mapped again for area (synth_um2), or only for delay (synth_um2 0).
  bool area_mapped = false;
  // What the modelled area is compared with: the area-mapped netlists', else the delay-mapped.
  double area_truth_um2() const { return area_mapped ? synth_um2() : delay_mapped_um2(); }
  // The design's max clock over the blocks both models time: the slowest block's.
  double model_mhz() const;
  double synth_mhz() const;
};

// The same designs as check_best_designs, each written out and every block synthesised
// (`request`: liberty, macros; request.jobs designs at a time) under work_dir/<space>/<design>;
// `model` must be the primitive models of that liberty (UserError otherwise). With
// `area_mapping`, every block is mapped for area as well (the area models' own mapping; on a
// fused controller ABC's sequential sweeps take it 20 CPU-minutes and more), else the area
// is compared with the delay-mapped netlists' (larger by their buffer trees and sizing).
std::vector<SynthesisCheck> synthesise_best_designs(const std::vector<DesignRecord>& designs, uint32_t count,
                                                    const PowerModel& model, const SynthesisRequest& request,
                                                    const std::string& work_dir, bool area_mapping,
                                                    const std::function<void(uint64_t, uint64_t)>& progress = {});
void print_synthesis_checks(const std::vector<SynthesisCheck>& checks, std::ostream& out);
nlohmann::json synthesis_checks_json(const std::vector<SynthesisCheck>& checks);

// One design's power sample (activity_power.h: the kernels explore's power is calibrated on)
// replayed at gate level: each block with an activity model, the primitive models' average
// power and trace against the netlist's golden power on the same run.
struct GoldenCheck {
  std::string design, space, kernel;  // kernel: the sample program's
  double zeros = 0;                   // the sample's zero share (its shortest benchmark's)
  uint64_t cycles = 0;
  std::vector<GoldenComparison> blocks;
  TraceAgreement together;                // the compared blocks' sum
  std::vector<std::string> not_replayed;  // the controller, register file and memory macros
  uint64_t replay_mismatch_cycles = 0;    // summed over the blocks (0: the replays are exact)
  double wall_seconds = 0;
};

// The same designs as check_best_designs, one after another (their netlists are
// shared under work_dir, which one run holds at a time); `model` must be of `liberty`.
std::vector<GoldenCheck> golden_best_designs(const std::vector<DesignRecord>& designs, uint32_t count,
                                             const PowerModel& model, const std::string& liberty,
                                             const std::string& work_dir,
                                             const std::function<void(uint64_t, uint64_t)>& progress = {});
void print_golden_checks(const std::vector<GoldenCheck>& checks, std::ostream& out);
nlohmann::json golden_checks_json(const std::vector<GoldenCheck>& checks);

}  // namespace fsgen
