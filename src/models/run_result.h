// What one run of a program produces, on the SystemC platform or on the Verilated
// RTL: output regions, the busy cycle count, and per-block activity. The same
// struct (and the same binary encoding) comes out of both, so the cross-check
// compares like with like. Dependency-free: the Verilator harness compiles it too.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fsgen {

// Toggle counting on one probed port: each time the register behind the port takes
// a new value, the toggles are popcount(old XOR new). Cycle numbers count from the
// first busy cycle of the kernel (cycle 0).
class ToggleProbe {
 public:
  ToggleProbe() = default;
  ToggleProbe(std::string block, std::string port, uint32_t width_bits, bool keep_events);

  // The register holds `value` (width_bits bits, little-endian bytes) from `cycle` on.
  void update(uint64_t cycle, const void* value);

  const std::string& block() const { return block_; }
  const std::string& port() const { return port_; }
  uint32_t width_bits() const { return width_bits_; }
  uint64_t toggles() const { return toggles_; }
  // (cycle, toggles) for every cycle in which the port toggled, in cycle order.
  const std::vector<std::pair<uint64_t, uint32_t>>& events() const { return events_; }

 private:
  friend struct RunResultCodec;
  std::string block_, port_;
  uint32_t width_bits_ = 0;
  bool keep_events_ = true;
  uint64_t toggles_ = 0;
  std::vector<uint64_t> value_;  // current value, 64-bit words
  std::vector<uint64_t> scratch_;
  std::vector<std::pair<uint64_t, uint32_t>> events_;
};

struct BlockActivity {
  uint64_t busy_cycles = 0;    // cycles in which the block did useful work
  uint64_t operand_bytes = 0;  // operand bytes presented to the block
  uint64_t zero_bytes = 0;     // of which zero
  uint64_t hits = 0;           // caches: tile lookups served on chip
  uint64_t misses = 0;         // caches: tile lookups that went to off-chip memory
  uint64_t reads = 0;          // accumulator caches: rows read (a partial-sum update reads, then writes)
  uint64_t writes = 0;         // accumulator caches: rows written
  uint64_t read_bytes = 0;     // operand buffers: bytes read (a tile's bytes per pass that feeds it)
  uint64_t write_bytes = 0;    // operand buffers: bytes written (beats landed, rows cleared)
};

// What sparsity saved, per sparse array (its value networks) and for the DMA (window
// bounds); SystemC platform only, the RTL has no counters for these. A lane slot is one
// block of the PE grid in one stream cycle.
struct SparseActivity {
  uint64_t windows = 0;        // k windows streamed
  uint64_t stream_cycles = 0;  // cycles the sparse streams took, cycles
  uint64_t dense_cycles = 0;   // cycles the same tiles stream without skipping, cycles
  uint64_t lane_slots = 0;     // blocks x stream cycles, lane-cycles
  uint64_t lane_issues = 0;    // lane slots that issued a k step, lane-cycles
  uint64_t skipped_steps = 0;  // block k steps skipped because an operand was zero, steps
  uint64_t window_bytes = 0;    // DMA: K and V bytes a sliding window kept from being fetched, bytes
  uint64_t zero_row_bytes = 0;  // DMA: bytes of compressed all-zero tile rows not fetched, bytes
  uint64_t metadata_bytes = 0;  // DMA: compression metadata fetched, bytes
  uint64_t topk_bytes = 0;      // DMA: K and V bytes of key tiles block TopK passed over, bytes
  uint64_t pool_bytes = 0;      // DMA: pooled keys fetched for block TopK, bytes
  SparseActivity& operator+=(const SparseActivity& o) {
    windows += o.windows, stream_cycles += o.stream_cycles, dense_cycles += o.dense_cycles;
    lane_slots += o.lane_slots, lane_issues += o.lane_issues, skipped_steps += o.skipped_steps;
    window_bytes += o.window_bytes, zero_row_bytes += o.zero_row_bytes, metadata_bytes += o.metadata_bytes;
    topk_bytes += o.topk_bytes, pool_bytes += o.pool_bytes;
    return *this;
  }
};

// Cycles [start, start + cycles) of one phase of a block.
struct CycleSpan {
  uint64_t start = 0, cycles = 0;
};

// The operand bytes a block (a PE array, the DMA) was presented in one cycle, and how many
// of them were zero.
struct OperandSample {
  uint64_t cycle = 0;
  uint32_t bytes = 0, zeros = 0;
};

// A state register switching: `toggles` bits flipped in `cycle`, after which `ones` of its
// bits are 1 until the next sample.
struct StateSample {
  uint64_t cycle = 0;
  uint32_t toggles = 0, ones = 0;
};

// A register's switching over a run: its samples in cycle order (each kernel's), and its
// width in bits (0: not recorded). It is all 0 until the first sample.
struct RegisterTrace {
  std::vector<StateSample> samples;
  uint32_t bits = 0;
  // `value` (bits / 32 words) is the register from `cycle` on, `before` it before: a sample
  // (merged into the last one when that is of the same cycle).
  void record(uint64_t cycle, const uint32_t* before, const uint32_t* value);
  // A sample of `toggles` flips in `cycle`, `ones` bits at 1 after it: merged into the last
  // sample when of the same cycle. (A kernel's samples come in cycle order; a host's next
  // kernel on the same platform counts its cycles from 0 again.)
  void add(uint64_t cycle, uint32_t toggles, uint32_t ones);
};

// When a block worked (SystemC only). A PE array: the cycles it streamed operands (busy)
// and those with an enable high (streaming, or loading a stationary operand); a dot
// array's loads of its stationary operand (side). The DMA: its
// bursts (busy, from the address handshake to its DONE cycle), its data beats (enabled) and
// the cycles it took a command in (side). The softmax unit: its row loads (busy and
// enabled), those of the FFN's gate passes (side), the score rows' bytes (operands). A fused
// core's controller (ctrl): its loads of the activation table (busy). Power
// traces take their busy, enabled and side windows from these, and the zero-operand share
// window by window from the operand samples (a design's zeros come in runs: a zero tile
// row, a pruned block).
struct BlockTimeline {
  std::vector<CycleSpan> busy, enabled, side;
  std::vector<OperandSample> operands;  // in cycle order, one per cycle with operands
  // The block's state register (PrimitiveDef::state_register: an output-stationary array's
  // accumulators, model_accumulators.h) and the register behind its factor port
  // (PrimitiveDef::factor_port: the controller's alpha_q), in the cycles they switch in (no
  // lag applies).
  RegisterTrace state, factor;
  // Cycles from a span to the switching it causes in the RTL: a PE array model records the
  // cycle its controller raises the enable, and the array's registers switch one cycle
  // later; the DMA records the cycles its own registers switch in.
  uint32_t switching_lag = 1;
  // Cycles by which the block's switching, as the gate-level engine counts it, precedes its
  // probes and lagged spans: the softmax unit's row register is loaded at the edge that
  // ends its load cycle, and its datapath switches at that edge (counted in that cycle),
  // one cycle before its probe holds the row. Estimation moves that share of each window's
  // energy to the window before.
  uint32_t switching_lead = 0;
};

// A block's n operand bytes v presented in `cycle`: counted in its activity and sampled
// in its timeline (bytes presented in the same cycle join one sample).
void record_operands(BlockActivity& act, BlockTimeline& timeline, uint64_t cycle, const uint8_t* v, size_t n);

// A block a mixed-level run simulated as its Verilated RTL (fsgen simulate --rtl): its ports'
// toggles as the RTL saw them (probes named like the model's), the cycles it was clocked, and
// the first output that differed from its model's (empty: none did).
struct RtlBlockRun {
  std::string block;
  std::string part;    // what of the block this instance runs ("" all of it; the DMA: its read or write channel)
  std::string source;  // the Verilog it was built from
  uint64_t clocked_cycles = 0;
  std::vector<ToggleProbe> ports;
  // Inputs the controller writes over several cycles that the block's RTL model sets once per
  // tile (array b's rescale factors): their toggle totals compare with the model's, not their cycles.
  std::vector<std::string> totals_only;
  std::string first_mismatch;
};

struct RunResult {
  std::string model;  // "systemc", "verilator", or "mixed" (some blocks as RTL: rtl_blocks)
  uint64_t cycles = 0;
  std::map<std::string, std::vector<uint8_t>> outputs;
  std::vector<ToggleProbe> probes;
  std::map<std::string, BlockActivity> activity;
  std::map<std::string, SparseActivity> sparse;  // per sparse array (SystemC only: the RTL has no such counters)
  std::map<std::string, BlockTimeline> timelines;  // per PE array, the DMA, the softmax unit, ... (SystemC only)
  std::vector<RtlBlockRun> rtl_blocks;             // mixed-level runs only
  double wall_seconds = 0;

  ToggleProbe* find_probe(const std::string& block, const std::string& port);
  const ToggleProbe* find_probe(const std::string& block, const std::string& port) const;
};

std::string encode_run_result(const RunResult& r);
RunResult decode_run_result(std::string_view bytes);  // throws UserError on a malformed record

}  // namespace fsgen
