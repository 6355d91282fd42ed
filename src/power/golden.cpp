#include "power/golden.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>

#include "core/error.h"
#include "generator/verilog_emitter.h"
#include "power/gate_power.h"
#include "power/gate_sim.h"
#include "power/techmap.h"
#include "flow/verilator.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

// The block's instance in the design's VCD.
std::vector<std::string> rtl_scope(const std::string& block) { return {"fsgen_top", "u_" + block}; }

// Cycles in which the replayed netlist's outputs differ from the RTL instance's; the
// replay's first `lead` cycles come before the RTL's first.
uint64_t output_mismatches(const std::string& rtl_vcd, const PortWaveforms& gates, const std::string& block,
                           uint64_t cycles, uint64_t lead) {
  const PortWaveforms rtl = read_vcd_waveforms(rtl_vcd, rtl_scope(block), gates.ports, cycles);
  const size_t per = rtl.words_per_cycle();
  uint64_t bad = 0;
  for (uint64_t c = 0; c < cycles; ++c)
    bad += !std::equal(rtl.words.begin() + c * per, rtl.words.begin() + (c + 1) * per,
                       gates.words.begin() + (c + lead) * per);
  return bad;
}

// The controller leaves idle on the register file's start pulse, in the cycle before the
// kernel's first traced one, so its replay is given that cycle first: cycle 0's inputs
// with `start` high (the registers are programmed by then). That cycle is left out of its
// power and self-check (and with it the engine's count of each net's first value).
constexpr uint64_t kStartCycles = 1;
PortWaveforms with_start_cycle(const PortWaveforms& w) {
  PortWaveforms out = w;
  const size_t per = w.words_per_cycle();
  out.words.insert(out.words.begin(), w.words.begin(), w.words.begin() + long(per));
  out.cycles += kStartCycles;
  if (const size_t start = w.word_of("start"); start != PortWaveforms::kNoPort) out.words[start] |= 1u;
  return out;
}

// The register file is programmed before the kernel's first traced cycle, so its replay is
// given the programming first (after replay_gates' own reset): the host's register writes
// as the harness makes them (each write's cycle, then the cycle its response is taken: the
// last write, the start, is two cycles before the kernel's first), the block's other inputs
// at their idle values. Those cycles are left out of its power and self-check.
PortWaveforms with_programming(const PortWaveforms& w, const Program& p) {
  PortWaveforms out;
  out.ports = w.ports;
  const size_t per = w.words_per_cycle();
  auto cycle = [&](const RegWrite* write) {
    std::vector<uint32_t> words(per, 0);
    size_t at = 0;
    for (const auto& [port, bits] : w.ports) {
      uint32_t v = 0;
      if (port == "rst_n" || port == "s_bready" || port == "s_rready")
        v = 1;
      else if (port == "s_awvalid" || port == "s_wvalid")
        v = write != nullptr;
      else if (port == "s_awaddr")
        v = write ? write->offset : 0;
      else if (port == "s_wdata")
        v = write ? write->value : 0;
      else if (port == "fused_kernels")
        v = w.words[at];  // a constant of the design
      words[at] = v;
      at += (bits + 31) / 32;
    }
    out.words.insert(out.words.end(), words.begin(), words.end());
    ++out.cycles;
  };
  for (const RegWrite& write : p.writes) cycle(&write), cycle(nullptr);
  out.words.insert(out.words.end(), w.words.begin(), w.words.begin() + long(w.cycles * per));
  out.cycles += w.cycles;
  return out;
}

// The folder of an array instance's netlist and gate-level build: one per module and
// parameters, so that designs sharing an array share its (slow) build.
std::string instance_dir(const std::string& work_dir, const ArrayInstance& inst) {
  std::string name = inst.module;
  for (const auto& [k, v] : inst.params) name += "_" + k + std::to_string(v);
  return (fs::path(work_dir) / name).string();
}

SynthReport synthesise_instance(const ArrayInstance& inst, const Liberty& lib, const std::string& work_dir) {
  const std::string dir = instance_dir(work_dir, inst);
  return synth_to_liberty(write_module_sources(dir, inst.module), inst.module, inst.params, lib, dir);
}

// The instances' syntheses, one after another in a thread of their own, so that they run
// while the RTL does (synth_to_liberty keeps each, for replay_block to read back).
std::future<void> synthesise_in_background(const std::vector<ArrayInstance>& instances, const Liberty& lib,
                                           const std::string& work_dir) {
  return std::async(std::launch::async, [instances, lib, work_dir] {
    std::set<std::string> done;  // blocks of one module and parameters share a folder
    for (const ArrayInstance& inst : instances)
      if (done.insert(instance_dir(work_dir, inst)).second) synthesise_instance(inst, lib, work_dir);
  });
}

GoldenBlockPower replay_block(const Graph& g, const Program& p, const std::string& block, const ArrayInstance& inst,
                              const Liberty& lib, const LibertyLibrary& cells, const std::string& vcd, uint64_t cycles,
                              const std::string& work_dir) {
  GoldenBlockPower gb;
  gb.block = block;
  gb.module = inst.module;
  gb.params = inst.params;
  const SynthReport synth = synthesise_instance(inst, lib, work_dir);
  const GateNetlist netlist = read_netlist_json(synth.netlist_json, gb.module);
  std::vector<std::pair<std::string, uint32_t>> inputs;
  for (const auto& [port, bits] : netlist.ports)
    if (!netlist.outputs.count(port) && port != "clk") inputs.push_back({port, uint32_t(bits.size())});
  const PortWaveforms waves = read_vcd_waveforms(vcd, rtl_scope(block), inputs, cycles);
  // The controller's and the register file's replays start before the kernel's first
  // traced cycle, in the state the RTL had reached by then.
  const PortWaveforms replayed = gb.module == "fsgen_ctrl"  ? with_start_cycle(waves)
                                 : gb.module == "fsgen_csr" ? with_programming(waves, p)
                                                            : waves;
  const uint64_t lead = replayed.cycles - waves.cycles;
  PortWaveforms outputs;
  GateActivity activity = replay_gates(netlist, cells, replayed, "clk", "rst_n", &outputs);
  drop_first_cycles(activity, lead);
  gb.output_mismatch_cycles = output_mismatches(vcd, outputs, block, cycles, lead);
  const GatePowerModel engine(netlist, cells, {g.spec.clock_mhz, 0.05, 0});
  gb.mw = power_trace_mw(engine, activity, g.spec.clock_mhz);
  gb.signals = energy_by_signal(netlist, engine, activity.toggled_per_cycle);
  for (double v : gb.mw) gb.average_mw += v / double(gb.mw.size());
  gb.leakage_mw = engine.leakage_mw();
  gb.area_um2 = synth.area_um2;
  return gb;
}

}  // namespace

std::vector<GoldenBlockPower> golden_block_power(const Graph& g, const Program& p, const std::vector<std::string>& blocks,
                                                 const std::string& liberty_file,
                                                 const std::string& rtl_root, const std::string& work_dir) {
  std::vector<ArrayInstance> instances;  // all checked before the (slow) RTL run
  for (const auto& b : blocks) {
    const auto inst = block_instance(g, b);
    if (!inst)
      fail("block '" + b + "'",
           "no RTL instance the power flow replays (PE arrays, value networks, accumulator caches, the DMA, the softmax "
           "unit, a matmul core's controller and register file)");
    instances.push_back(*inst);
  }
  fs::create_directories(work_dir);
  const Liberty lib = prepare_liberty(liberty_file, work_dir);
  std::future<void> syntheses = synthesise_in_background(instances, lib, work_dir);
  const std::string vcd = (fs::path(work_dir) / (g.spec.name + "_kernel.vcd")).string();
  RunResult rtl;
  try {
    rtl = run_on_verilator(g, p, rtl_root, false, vcd);
  } catch (...) {
    syntheses.wait();  // no synthesis outlives the call
    throw;
  }
  syntheses.get();  // a synthesis' error, here rather than in its replay
  const LibertyLibrary cells = read_liberty_file(lib.path);  // once: a large liberty takes seconds to read
  std::vector<GoldenBlockPower> out;
  for (size_t i = 0; i < blocks.size(); ++i)
    out.push_back(replay_block(g, p, blocks[i], instances[i], lib, cells, vcd, rtl.cycles, work_dir));
  fs::remove(vcd);
  return out;
}

}  // namespace fsgen
