// The sparse network study (paper section 7.5): one 8x8 output-stationary array with
// Q = {(x==0), (w==0)} built over the network combinations Algorithm 1 reaches, each run
// on the same matmuls on the SystemC platform and, with synthesis, mapped by Yosys onto
// a liberty library and timed by OpenSTA. `fsgen sparsity-study` prints the table.
// The controller holds A's row panel and all of B (operand_tiles), so that after the first
// row of output tiles only A streams in, behind the passes: the array, not the memory, sets
// the kernel's time and the networks' skips show in its whole cycles.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace fsgen {

struct SparsityStudyOptions {
  uint32_t batch = 64;         // rows of A (tokens): 8 array tiles, so that B, held on chip, serves each
  uint32_t n = 64, k = 128;    // columns of B and the reduction
  uint32_t bytes_per_cycle = 8;  // memory bandwidth at the 1 GHz clock (a beat: at most the 8-wide tile n)
  uint32_t latency = 4;          // memory latency, cycles
  double zeros = 0.5;          // random zeros in both operands
  uint64_t seed = 1;
  bool synth = false;          // also Yosys area and OpenSTA max clock
  std::string liberty;         // "" = the built-in fsgen45
  std::string work_dir = "rtl_out/sparsity_study";

  // Operand tiles the controller holds (of the 8x8x16 tile): A's row panel, all of B.
  uint32_t a_tiles() const { return k / 16; }
  uint64_t b_tiles() const { return uint64_t(k / 16) * (n / 8); }
};

struct SparsityStudyRow {
  std::string design;          // the paper-style name, e.g. 8G_1b2c
  std::string skips;           // x, w or x,w
  std::string tilings;         // m, n, k sparse tilings
  std::string net_x, net_w;    // topologies
  uint64_t cycles = 0;         // whole kernel, random zeros
  uint64_t stream_cycles = 0;  // of which the array streamed
  uint64_t dense_stream = 0;   // the same tiles without skipping
  uint64_t cycles_24 = 0;      // whole kernel, 2:4 structured operands
  double lane_occupancy = 0;   // lane slots that issued, fraction
  bool synthesised = false;
  double area_um2 = 0;         // Yosys stat -liberty, whole core
  uint64_t cells = 0;
  double array_mhz = 0;        // OpenSTA max clock of the PE array
  double network_mhz = 0;      // ... of the slower value network (0: none)
};

struct SparsityStudy {
  SparsityStudyOptions options;
  std::string liberty_name;
  std::vector<SparsityStudyRow> rows;  // the dense design first
};

// Progress goes to the log.
SparsityStudy run_sparsity_study(const SparsityStudyOptions& o);
void print_sparsity_study(const SparsityStudy& s, std::ostream& out);  // Markdown

}  // namespace fsgen
