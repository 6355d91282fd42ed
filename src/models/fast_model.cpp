#include "models/fast_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "blocks/ctrl/row_transfers.h"
#include "blocks/ctrl/sequencer.h"
#include "blocks/sparse_net/model_stream_statistics.h"
#include "core/error.h"
#include "core/window_series.h"

namespace fsgen {

namespace {

// `cycles` spread evenly over [start, start + span) into windows of `window` cycles.
void spread(std::vector<double>& w, uint64_t window, uint64_t expected, uint64_t start, uint64_t span, double cycles) {
  if (w.empty() && expected) reserve_window_series(w, expected);
  const uint64_t end = start + span;
  const double per_cycle = cycles / double(span);
  if (w.size() <= (end - 1) / window) w.resize((end - 1) / window + 1, 0.0);
  for (uint64_t t = start; t < end;) {
    const uint64_t idx = t / window, stop = std::min(end, (idx + 1) * window);
    w[idx] += per_cycle * double(stop - t);
    t = stop;
  }
}

}  // namespace

void ActivityTimeline::add(const std::string& block, uint64_t start, uint64_t span, double busy_cycles) {
  if (window && span && busy_cycles) spread(busy[block], window, expected_windows, start, span, busy_cycles);
}

void ActivityTimeline::add_enabled(const std::string& block, uint64_t start, uint64_t span, double enabled_cycles) {
  if (window && span && enabled_cycles) spread(enabled[block], window, expected_windows, start, span, enabled_cycles);
}

void ActivityTimeline::add_side(const std::string& block, uint64_t start, uint64_t span, double side_cycles) {
  if (window && span && side_cycles) spread(side[block], window, expected_windows, start, span, side_cycles);
}

ActivityTimeline ActivityTimeline::from_spans(const RunResult& r, uint64_t window, uint64_t windows) {
  ActivityTimeline t;
  t.window = window;
  t.expected_windows = windows;
  // A block's switching falls its timeline's lag after its spans (an array's registers take
  // the operands one cycle after its controller raised the enable).
  for (const auto& [block, spans] : r.timelines) {
    const uint64_t lag = spans.switching_lag;
    auto spread_all = [&](std::vector<double>& w, const std::vector<CycleSpan>& all) {
      for (const CycleSpan& s : all)
        if (s.cycles) spread(w, window, windows, s.start + lag, s.cycles, double(s.cycles));
    };
    if (!spans.busy.empty()) spread_all(t.busy[block], spans.busy);
    if (!spans.enabled.empty()) spread_all(t.enabled[block], spans.enabled);
    if (!spans.side.empty()) spread_all(t.side[block], spans.side);
    if (spans.operands.empty()) continue;
    std::vector<double>&bytes = t.operand_bytes[block], &zeros = t.zero_bytes[block];
    bytes = window_series(windows), zeros = window_series(windows);
    for (const OperandSample& o : spans.operands)
      if (o.cycle / window < windows) bytes[o.cycle / window] += o.bytes, zeros[o.cycle / window] += o.zeros;
  }
  return t;
}

namespace {

class FastCore : private TileSequencer {
 public:
  FastCore(const Graph& g, RunResult& r, ActivityTimeline& timeline, const std::optional<OperandZeros>& zeros)
      : TileSequencer(g, r.activity, r.sparse),
        result_(r),
        timeline_(timeline),
        mem_(g.memory),
        zeros_(zeros.value_or(OperandZeros{})) {
    if (g.sparse.timing_depends_on_data() && !zeros)
      fail("design " + g.spec.name,
           "the fast model times tiles without their data, and this sparse design's tile "
           "times depend on it: expected its operands' zero statistics, or the cycle model");
    if (g.attention && g.array_b.sparse.skips_steps())
      fail("design " + g.spec.name,
           "array b skips zero steps of P, which the core makes on chip: the fast model has "
           "no statistic of its zeros; expected the cycle model");
    for (double z : {zeros_.a, zeros_.b})
      if (!(z >= 0 && z <= 1))
        fail("zero statistics", "expected a fraction of values in [0, 1], got " + std::to_string(z));
    if (plan_.sparse.skips_steps()) sparse_stream_ = estimate_sparse_stream(plan_, zeros_.a, zeros_.b);
  }

  uint64_t run(const KernelRegs& regs) {
    now_ = 0;
    run_schedule(regs);
    for (const InFlightSpans::Span& s : in_flight_.busy()) phase_at("dma", s.first, s.cycles, s.cycles);
    return now_;
  }

 private:
  // A phase of `span` cycles from `start` (now) in which `block` is busy `busy_cycles`.
  void phase_at(const std::string& block, uint64_t start, uint64_t span, uint64_t busy_cycles, uint64_t bytes = 0) {
    BlockActivity& a = result_.activity[block];
    a.busy_cycles += busy_cycles;
    a.operand_bytes += bytes;
    timeline_.add(block, start, span, double(busy_cycles));
  }
  void phase(const std::string& block, uint64_t span, uint64_t busy_cycles, uint64_t bytes = 0) {
    phase_at(block, now_, span, busy_cycles, bytes);
  }

  void advance(uint64_t cycles) override { now_ += cycles; }
  uint64_t cursor() const override { return now_; }
  void set_cursor(uint64_t cycle) override { now_ = cycle; }

  // A transfer's DMA: the same DmaReads / DmaWrites as the cycle model's, on a read data
  // channel of the memory's timing; each burst's cycles in flight make the DMA's busy cycles
  // at the end of the kernel (InFlightSpans).
  RowDma dma_reads(uint32_t beats) {
    return timed_reads(reads_, channel_, beats,
                       [this](const ReadBurst& b) { in_flight_.add_read(b.taken + 1, b.last_beat); });
  }
  RowDma dma_writes(uint32_t beats) {
    return timed_writes(writes_, beats, [this](const WriteBurst& b) { in_flight_.add_write(b.taken + 1, b.response); });
  }

  // The DMA's phase: from now to the transfer's `last` cycle, moving `rows` commands' bytes.
  void dma_phase(uint64_t last, uint32_t rows, uint64_t bytes) {
    const uint64_t span = last + 1 - now_;
    phase("dma", span, 0, bytes);
    timeline_.add_side("dma", now_, span, rows);  // a command per row
    now_ = last + 1;
  }

  void load_rows(uint32_t, uint32_t, uint32_t rows, uint32_t row_bytes, BufferSlot, LoadEnd end) override {
    const uint32_t beats = row_bytes / mem_.beat_bytes;
    dma_phase(load_transfer_end(now_, rows, nullptr, dma_reads(beats), end), rows, uint64_t(rows) * row_bytes);
  }
  uint64_t reads_done_from() const override { return reads_.idle_from(0); }
  void zero_rows(BufferSlot, uint32_t, uint32_t, uint32_t) override {}

  // A compressed tile (memory-value sparsity): its metadata record, then its rows, each all
  // zeros (cleared in its ISSUE cycle, not fetched) with the probability that all its bytes
  // are zero, drawn from a fixed seed.
  void load_compressed_rows(uint32_t, uint32_t meta_bytes, uint32_t, uint32_t, uint32_t rows, uint32_t row_bytes,
                            BufferSlot dst) override {
    const uint32_t beat = mem_.beat_bytes;
    dma_phase(load_transfer_end(now_, 1, nullptr, dma_reads(meta_bytes / beat)), 1, meta_bytes);
    ZeroRows& zero_rows = dst.kind == BufferSlot::kA ? zero_rows_a_ : zero_rows_b_;
    zero_rows.set(std::pow(dst.kind == BufferSlot::kA ? zeros_.a : zeros_.b, row_bytes), rng_);
    uint32_t moved = 0;
    auto skipped = [&](uint32_t) {
      const bool zero = zero_rows.next(rng_);
      if (zero) result_.sparse["dma"].zero_row_bytes += row_bytes;
      moved += !zero;
      return zero;
    };
    const uint64_t last = load_transfer_end(now_, rows, skipped, dma_reads(row_bytes / beat), LoadEnd::kIssued);
    dma_phase(last, moved, uint64_t(moved) * row_bytes);
    result_.sparse["dma"].metadata_bytes += meta_bytes;
  }

  void store_rows(
      uint32_t rows, uint32_t row_bytes,
      const std::function<void(uint32_t, uint64_t)>& prepare = [](uint32_t, uint64_t) {}) {
    const uint32_t beats = row_bytes / mem_.beat_bytes;
    const uint64_t last = store_transfer_end(now_, rows, beats, prepare, dma_writes(beats));
    dma_phase(last, rows, uint64_t(rows) * row_bytes);
  }

  // Array a's tile: the timing rule, or, on a sparse array, the expected stream of the zero
  // statistics (the fractions carried from tile to tile, so a run's sum rounds once).
  uint64_t array_a_tile_cycles(bool reload) {
    if (!sparse_stream_) return tile_cycles(plan_, reload);
    const SparseStreamEstimate& e = *sparse_stream_;
    expected_stream_ += e.stream_cycles();
    const uint64_t stream = uint64_t(std::llround(expected_stream_)) - streamed_;
    streamed_ += stream;
    SparseActivity& s = result_.sparse["array_a"];
    s.windows += e.windows, s.stream_cycles += stream, s.dense_cycles += plan_.spec.tile_k + e.drain;
    s.skipped_steps += uint64_t(std::llround(e.skipped_steps * e.windows));
    return stream + plan_.tail_cycles;
  }

  void matmul_tile(bool reload, uint32_t, uint32_t, uint32_t, uint32_t) override {
    const uint64_t span = array_a_tile_cycles(reload);
    array_phase("array_a", plan_, span, 1, reload);
    if (graph_.matmul_on_both) array_phase("array_b", graph_.array_b_matmul, span, 1, false);
    now_ += span;
  }

  // A PE array computing `passes` tiles in `span` cycles: busy while streaming, enabled
  // also while loading a stationary operand (a dot array's side enable); `rescales` of its
  // passes start with sc (the rescaling array's side enable).
  void array_phase(const std::string& block, const ArrayPlan& p, uint64_t span, uint32_t passes, bool reload,
                   uint32_t rescales = 0) {
    // A sparse array streams the span less its tail (the cycle model's busy cycles), a dense one its rule.
    const uint64_t stream = &p == &plan_ && sparse_stream_ ? span - p.tail_cycles : uint64_t(p.stream_cycles);
    phase(block, span, uint64_t(passes) * stream);
    const uint32_t loads = reload ? p.stationary_rows : 0;
    timeline_.add_enabled(block, now_, span, double(passes) * double(stream + loads));
    timeline_.add_side(block, now_, span, p.stationarity == Stationarity::kOutput ? rescales : double(passes) * loads);
  }

  // With the activation epilogue, the softmax unit takes each row in its READ cycle.
  void store_tile(uint32_t mt, uint32_t) override {
    if (!mm_act()) return store_rows(matmul_rows(mt), tile_n_);
    const uint64_t row_bytes = uint64_t(plan_.spec.tile_n) * sizeof(int32_t);
    store_rows(matmul_rows(mt), tile_n_, [&](uint32_t, uint64_t read) { phase_at("softmax", read, 1, 1, row_bytes); });
  }
  void hold_activations() override { softmax_unit_pass(); }

  void scores(bool reload, uint32_t, uint32_t) override {
    const uint64_t span = array_a_tile_cycles(reload);
    array_phase("array_a", plan_, span, 1, reload);
    now_ += span;
  }

  void softmax(uint32_t, uint32_t, bool) override { softmax_unit_pass(); }
  // Block TopK without the data: a pseudo-random score per pooled key, so the ranking keeps
  // as many tiles as it would (its key loop's length), not the same ones.
  int32_t key_tile_score(uint32_t) override { return int32_t(rng_() >> 33); }
  void activation(uint32_t, bool) override { softmax_unit_pass(); }
  void softmax_unit_pass() {  // one score row per cycle, then one pipeline cycle; rows of INT32 scores
    const uint32_t tq = plan_.spec.tile_m;
    phase("softmax", tq + 1, tq, uint64_t(tq) * plan_.spec.tile_n * sizeof(int32_t));
    now_ += tq + 1;
  }

  void update_o(bool first_kv, uint32_t) override {
    const FusedStageCycles c = fused_stage_cycles(plan_, graph_.array_b, mem_);
    array_phase("array_b", graph_.array_b, c.o_update, c.o_passes, true, first_kv || ffn() ? 0 : 1);
    now_ += c.o_update;
  }

  void store_o_rows(uint32_t, uint32_t, uint32_t rows, uint32_t, uint32_t) override {
    store_rows(rows, plan_.spec.tile_k);
  }

  RunResult& result_;
  ActivityTimeline& timeline_;
  MemoryTiming mem_;
  ReadDataChannel channel_{mem_};
  DmaReads reads_{mem_};
  DmaWrites writes_{mem_};
  InFlightSpans in_flight_;
  uint64_t now_ = 0;
  OperandZeros zeros_;
  std::optional<SparseStreamEstimate> sparse_stream_;  // array a skips zero steps
  double expected_stream_ = 0;                         // array a's expected stream cycles so far
  uint64_t streamed_ = 0;                              // and those timed
  std::mt19937_64 rng_{0x5eed};                        // zero rows, TopK scores
  // Rows of a compressed operand, each all zeros with probability p: the rows up to the next
  // zero one drawn at once (geometric), not a draw per row.
  struct ZeroRows {
    double p = -1;
    uint64_t until_zero = 0;  // rows before the next zero row
    void set(double row_p, std::mt19937_64& rng) {
      if (row_p == p) return;
      p = row_p;
      draw(rng);
    }
    void draw(std::mt19937_64& rng) {
      // Below this a zero row is not expected in any run: never.
      until_zero = p < 1e-12 ? UINT64_MAX : std::geometric_distribution<uint64_t>(p)(rng);
    }
    bool next(std::mt19937_64& rng) {
      if (until_zero == UINT64_MAX) return false;
      if (until_zero-- > 0) return false;
      draw(rng);
      return true;
    }
  } zero_rows_a_, zero_rows_b_;
};

}  // namespace

FastRun run_fast(const Graph& g, const KernelRegs& regs, uint64_t window, const std::optional<OperandZeros>& zeros) {
  FastRun run;
  run.result.model = "fast";
  run.timeline.window = window;
  if (window) {  // short windows: size the timeline from a run without one (cheap next to filling it)
    FastRun plain = run_fast(g, regs, 0, zeros);
    run.timeline.expected_windows = (plain.result.cycles + window - 1) / window;
  }
  const auto t0 = std::chrono::steady_clock::now();
  FastCore core(g, run.result, run.timeline, zeros);
  run.result.cycles = core.run(regs);
  run.result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return run;
}

}  // namespace fsgen
