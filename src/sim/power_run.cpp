#include "sim/power_run.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "core/folder_lock.h"
#include "core/write_file.h"
#include "power/characterize.h"
#include "power/golden.h"
#include "power/liberty.h"
#include "power/techmap.h"
#include "power/validation.h"
#include "sim/power_report.h"

namespace fsgen {

namespace {

// With --modelled-only, the blocks of the primitives with activity models: the structural
// ones (a matmul core's controller, the register file) have a core's largest syntheses.
// Memory macros have no logic to replay. A block without a model is replayed for its
// golden power alone: a primitive the model lacks (the softmax unit), and by default (the
// whole core) the blocks no primitive covers.
std::vector<std::string> replayed_blocks(const Graph& g, const PowerTrace& t, bool whole_core) {
  auto has_activity_model = [](const std::string& kind) {
    const auto& c = primitive_catalog();
    return std::any_of(c.begin(), c.end(), [&](const PrimitiveDef& d) { return d.kind == kind && !d.structural(); });
  };
  std::vector<std::string> replayed;
  for (const auto& b : t.blocks)
    if (b.kind != "sram_macro" && (whole_core || has_activity_model(b.kind))) replayed.push_back(b.block);
  for (const auto& b : t.not_modelled)
    if (block_instance(g, b) && (whole_core || has_activity_model(g.block(b).kind))) replayed.push_back(b);
  return replayed;
}

// A controller whose operand buffers are macros reads them through black boxes whose data
// the replay does not have: refused before anything runs.
void require_replayable(const Graph& g, const PowerTrace& t, bool whole_core, const DesignMacros& macros) {
  const std::vector<std::string> replayed = replayed_blocks(g, t, whole_core);
  if (macros.holds_operand_buffers() && std::find(replayed.begin(), replayed.end(), "ctrl") != replayed.end())
    fail("--golden", "design " + g.spec.name + "'s operand buffers are SRAM macros (--macro-threshold " +
                         "reached): its controller's netlist reads them through black boxes the replay has no data " +
                         "for; give --modelled-only, or a --macro-threshold above buf_a's and buf_b's bytes");
}

// The replayed blocks' gate-level golden power beside the prediction, and the files asked for.
void compare_with_golden(const Graph& g, const Program& prog, const PowerModel& pm, const PowerTrace& t,
                         const PowerRunOptions& o, const std::string& work, std::ostream& out) {
  const GoldenRun run = run_golden(g, prog, pm, t, o.liberty, o.out_root, work, o.whole_core);
  print_golden_comparison(run.comparison, run.together, out);
  print_golden_unmodelled(t, run.golden, out);
  if (!o.golden_csv.empty())
    write_file_atomically(o.golden_csv, "golden power trace",
                          [&](std::ostream& file) { write_golden_trace_csv(t, run.golden, file); });
  if (!o.golden_signals.empty())
    write_file_atomically(o.golden_signals, "golden energy by signal",
                          [&](std::ostream& file) { write_golden_signals_csv(run.golden, file); });
  if (!o.record_path.empty())
    append_validation_records(o.record_path, validation_records(o.record_name.empty() ? g.spec.name : o.record_name, t,
                                                                run.comparison, run.together, run.golden));
}

// The trace as CSV, PNG (drawn from a CSV, kept only when asked for) and VCD.
void write_trace_files(const PowerTrace& t, const PowerRunOptions& o) {
  if (!o.csv.empty() || !o.png.empty()) {
    const std::string csv = o.csv.empty() ? o.png + ".csv" : o.csv;
    write_file_atomically(csv, "power trace", [&](std::ostream& file) { write_power_csv(t, file); });
    if (!o.png.empty()) plot_power_png(t, csv, o.png);
    if (o.csv.empty()) std::filesystem::remove(csv);
  }
  if (!o.vcd.empty())
    write_file_atomically(o.vcd, "power waveform", [&](std::ostream& file) { write_power_vcd(t, file); });
}

}  // namespace

GoldenRun run_golden(const Graph& g, const Program& prog, const PowerModel& pm, const PowerTrace& t,
                     const std::string& liberty, const std::string& rtl_root, const std::string& work,
                     bool whole_core) {
  pm.require_area_mapping();
  GoldenRun run;
  run.golden = golden_block_power(g, prog, replayed_blocks(g, t, whole_core), liberty, rtl_root, work);
  run.comparison = compare_to_golden(t, run.golden, pm);
  run.together = design_trace_agreement(t, run.golden);
  return run;
}

std::string golden_work_folder(const std::string& out_root, const std::string& liberty) {
  const std::string lib_name = liberty.empty() ? "fsgen45" : std::filesystem::path(liberty).stem().string();
  return (std::filesystem::path(out_root) / "golden_power" / lib_name).string();
}

void run_power(const Graph& g, const Program& prog, const PowerModel& pm, const PowerRunOptions& o, std::ostream& out) {
  const std::string work = golden_work_folder(o.out_root, o.liberty);
  std::filesystem::create_directories(work);
  std::optional<FolderLock> replaying;  // the golden replays' builds and stimulus files are this run's
  if (o.golden) replaying.emplace(work, "fsgen power --golden run");
  const Liberty lib = prepare_liberty(o.liberty, work);
  pm.require_liberty(lib.name);
  const DesignMacros macros =
      design_macros(g, macro_technology(read_liberty_file(lib.path), o.macros.node_nm), o.macros);
  const PowerTrace t = estimate_power(g, prog, pm, o.window, macros);
  if (o.golden) require_replayable(g, t, o.whole_core, macros);
  print_power(t, out);
  if (o.golden) compare_with_golden(g, prog, pm, t, o, work, out);
  write_trace_files(t, o);
}

}  // namespace fsgen
