// The gate-level power engine: power of a mapped netlist from the liberty library and
// per-net toggle counts. For every cell: internal energy per output transition (the
// liberty's arcs, averaged over related pins, rise and fall, at the output's load),
// the energy of input pins with their own tables (clock pins) per transition, and
// leakage; for every net: switching energy 1/2 C V^2 per transition, C = the input pin
// capacitances it drives plus the library's default wire-load model for its fanout (no
// wire capacitance when the library has none).
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "power/liberty.h"

namespace fsgen {

// A flat netlist: cells of liberty types wired by net bit ids, read from Yosys' write_json
// (a hierarchical one flattened on reading: an instance's cells and names get its name as a
// prefix, "slice[1].u.").
struct GateNetlist {
  struct Cell {
    std::string name, type;
    std::map<std::string, int> pins;  // pin -> net bit id (single-bit liberty pins)
    std::map<std::string, bool> is_output;
    std::map<std::string, bool> tied;  // pin -> the constant it is tied to (not in pins)
  };
  std::string top;
  std::vector<Cell> cells;
  // An output bit the logic ties to 0 or 1 (an AXI burst type, say) is no net.
  static constexpr int kConstantBit = -1;
  std::map<std::string, std::vector<int>> ports;     // top-level port -> bits (kConstantBit: tied)
  std::map<std::string, std::vector<bool>> tied_high;  // a port with tied bits -> per bit, tied to 1
  std::set<std::string> outputs;                     // the output ports
  std::map<std::string, std::vector<int>> netnames;  // every named net -> bits
  int max_bit = 0;
};
// Cells of the types `black_boxes` (SRAM macros a synthesis left empty) are left out: the
// nets they would drive are driven by nothing.
GateNetlist read_netlist_json(const std::string& path, const std::string& top,
                              const std::vector<std::string>& black_boxes = {});

struct PowerBreakdown {
  double internal_mw = 0, switching_mw = 0, leakage_mw = 0;
  double total_mw() const { return internal_mw + switching_mw + leakage_mw; }
};

struct GatePowerOptions {
  double clock_mhz = 1000;
  double slew_ns = 0.05;    // input transition assumed for every table lookup
  double voltage = 0;       // 0: the library's nominal voltage
};

class GatePowerModel {
 public:
  GatePowerModel(const GateNetlist& netlist, const LibertyLibrary& lib, GatePowerOptions options);
  // Average power over `cycles` clock cycles in which net bit b made toggles[b] transitions.
  PowerBreakdown power(const std::vector<uint64_t>& toggles, uint64_t cycles) const;
  // Energy of one transition of net bit b (switching + the internal energy of its driver), fJ.
  double energy_per_toggle_fj(int bit) const { return per_toggle_fj_.at(bit); }
  double load_ff(int bit) const { return load_ff_.at(bit); }
  double leakage_mw() const { return leakage_mw_; }

 private:
  std::vector<double> load_ff_, per_toggle_fj_, switching_fj_;
  double leakage_mw_ = 0;
  GatePowerOptions opt_;
};

// A netlist's dynamic energy over a run by RTL signal: each named net (a register, a
// port; a memory's words `lut[3]` together as `lut`; a function's locals as `name()`) with
// the unnamed logic behind it, the cells computing it back to other named nets (a
// register's next-state logic), so that an architect sees which state and which logic
// spend the energy, and which of them make it vary from cycle to cycle. Every net bit
// counts once: a bit with several names goes to a port's, else to the least nested one,
// logic feeding several signals to the nearest. Largest first; logic no signal reaches last,
// as "(other logic)". The clock net carries the flip-flops' clock-pin energy. The energies
// sum to the run's dynamic energy (GatePowerModel::power), the variation shares to 1.
struct SignalEnergy {
  std::string name;
  uint32_t bits = 0;     // the signal's own net bits
  uint64_t toggles = 0;  // transitions of its own bits
  double fj = 0;         // of its bits and its logic's: switching and the drivers' internal energy
  double sd_fj = 0;      // standard deviation over the cycles of its energy in a cycle
  // Its part of the variance of the netlist's dynamic energy per cycle, cov(its, the
  // netlist's) / var(the netlist's): what it adds to the trace's movement (0 if the
  // netlist's energy is the same in every cycle).
  double variation_share = 0;
};
// toggled_per_cycle: the net bits that toggled in each cycle of the run, a bit once per
// transition (GateActivity::toggled_per_cycle).
std::vector<SignalEnergy> energy_by_signal(const GateNetlist& netlist, const GatePowerModel& engine,
                                           const std::vector<std::vector<int>>& toggled_per_cycle);

// Toggle counts for a vectorless estimate: every net bit toggles `activity` times per
// cycle, the clock port's net twice.
std::vector<uint64_t> uniform_toggles(const GateNetlist& netlist, const std::string& clock, double activity,
                                      uint64_t cycles);

}  // namespace fsgen
