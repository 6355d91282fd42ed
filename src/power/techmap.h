// Technology mapping and static timing: Yosys maps Verilog onto a liberty library
// (dfflibmap, abc -liberty, stat -liberty for area) and OpenSTA reports the critical
// path of the mapped netlist. The library is fsgen's own generic 45 nm class library
// (tech/fsgen45.lib, built in) or any .lib / .lib.gz the user names.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fsgen {

// A liberty file ready for the tools.
struct Liberty {
  std::string name;  // library name: "fsgen45" or the file's stem
  std::string path;  // a plain-text .lib on disk
};

// `file` empty: the built-in fsgen45, written into work_dir. A .lib is used where it is;
// a .lib.gz is decompressed into work_dir. A missing or unreadable file is a UserError.
Liberty prepare_liberty(const std::string& file, const std::string& work_dir);

struct SynthReport {
  double area_um2 = 0;                        // stat -liberty: chip area of the top module (its hierarchy's)
  uint64_t cells = 0;                         // mapped cells in all
  std::map<std::string, uint64_t> cell_use;   // cells by liberty cell name
  std::string netlist;                        // the mapped Verilog netlist written
  std::string netlist_json;                   // Yosys' netlist as JSON (before a timing netlist's fan-out buffers)
  uint64_t fanout_buffers = 0;                // timing netlists: buffers of the fan-out trees (in cells, area)
};

// How ABC maps a netlist for area (SynthOptions::delay_target_ns 0: the power flow's
// netlists, in characterisation and golden runs alike, and the areas). A characterisation
// dataset records it (provenance "mapping"); a golden run refuses a power model whose
// netlists were mapped otherwise, since the two would not be the same gates.
extern const char* const kAreaMapping;
// The area mapping a dataset's or model's provenance records: before the key existed,
// ABC's default script.
std::string area_mapping_of(const std::map<std::string, std::string>& provenance);

struct SynthOptions {
  // Modules that stay instances without contents (memory macros; their area is not in
  // area_um2).
  std::vector<std::string> blackboxes;
  // 0: map for area (the power flow's netlists: characterisation and golden runs). Above 0:
  // map for delay at this clock period, as a timing-driven flow would: ABC's delay-targeted
  // mapping, then buffer trees on high-fanout nets and gate sizing (ABC's buffer, upsize and
  // dnsize), so a control signal that reaches every PE is timed through a buffer tree.
  double delay_target_ns = 0;
  // Delay mapping: a net feeding more cell inputs than this gets a balanced buffer tree, in
  // place of ABC's buffers (fanout_buffers.h: ABC leaves flip-flop outputs bare and buffers
  // large fan-outs in chains).
  size_t max_fanout = 8;
};

// Synthesises `top` from `files` (with parameters `params` on the top), flattened, onto
// `lib`, and writes the netlist to out_dir/<top>_<lib>.v. A wide broadcast array is
// synthesised as column slices (array_column_slices, src/blocks/pe_array_os/
// synthesis_slices.h), kept as instances of the slice's module (read_netlist_json expands
// them; a timing netlist is flattened). UserError with Yosys' last lines if it fails.
SynthReport synth_to_liberty(const std::vector<std::string>& files, const std::string& top,
                             const std::map<std::string, int64_t>& params, const Liberty& lib,
                             const std::string& out_dir, const SynthOptions& options = {});

struct TimingReport {
  double arrival_ns = 0;  // data arrival time of the worst register-to-register/input path
  double setup_ns = 0;    // setup time of its endpoint
  double slack_ns = 0;    // against the requested period
  std::string startpoint, endpoint;  // the path's ends as OpenSTA names them (a port, a register's cell)
  double max_clock_mhz() const { return 1000.0 / (arrival_ns + setup_ns); }
};

// OpenSTA's worst setup path of a mapped netlist with clock port `clock` at `period_ns`
// (inputs and outputs constrained to the clock, ideal clock network).
TimingReport critical_path(const SynthReport& synth, const std::string& top, const Liberty& lib,
                           const std::string& clock, double period_ns);

// A module mapped for delay at `period_ns` (SynthOptions::delay_target_ns) and its worst
// path at that period on the clock port `clk`: what `fsgen generate --synth` and the
// sparsity study report per block.
struct TimedNetlist {
  SynthReport synth;
  TimingReport timing;
};
TimedNetlist synth_and_time(const std::vector<std::string>& files, const std::string& top,
                            const std::map<std::string, int64_t>& params, const Liberty& lib,
                            const std::string& out_dir, double period_ns,
                            const std::vector<std::string>& blackboxes = {});

// OpenSTA's vectorless power of a mapped netlist: every non-clock net at `activity`
// transitions per clock period (set_power_activity -global). The Debian build sums rise
// and fall internal energy per transition; its figures are reported as it gives them.
struct StaPower {
  double internal_mw = 0, switching_mw = 0, leakage_mw = 0;
};
StaPower sta_vectorless_power(const SynthReport& synth, const std::string& top, const Liberty& lib,
                              const std::string& clock, double period_ns, double activity);

}  // namespace fsgen
