#include "models/run_result.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/error.h"
#include "core/window_series.h"

namespace fsgen {

ToggleProbe::ToggleProbe(std::string block, std::string port, uint32_t width_bits, bool keep_events)
    : block_(std::move(block)),
      port_(std::move(port)),
      width_bits_(width_bits),
      keep_events_(keep_events),
      value_((width_bits + 63) / 64, 0),
      scratch_((width_bits + 63) / 64, 0) {}

void ToggleProbe::update(uint64_t cycle, const void* value) {
  const size_t bytes = (width_bits_ + 7) / 8;
  scratch_.back() = 0;
  std::memcpy(scratch_.data(), value, bytes);
  if (width_bits_ % 64) scratch_.back() &= (uint64_t{1} << (width_bits_ % 64)) - 1;
  uint32_t t = 0;
  for (size_t i = 0; i < value_.size(); ++i) {
    t += static_cast<uint32_t>(__builtin_popcountll(value_[i] ^ scratch_[i]));
    value_[i] = scratch_[i];
  }
  if (t == 0) return;
  toggles_ += t;
  if (keep_events_) {
    if (!events_.empty() && events_.back().first == cycle)
      events_.back().second += t;
    else
      events_.emplace_back(cycle, t);
  }
}

const ToggleProbe* RunResult::find_probe(const std::string& block, const std::string& port) const {
  for (const auto& p : probes)
    if (p.block() == block && p.port() == port) return &p;
  return nullptr;
}

ToggleProbe* RunResult::find_probe(const std::string& block, const std::string& port) {
  return const_cast<ToggleProbe*>(static_cast<const RunResult*>(this)->find_probe(block, port));
}

// Little-endian length-prefixed binary records. A record is encoded twice: first only
// counted (`counting`), so that the second pass writes into memory reserved once (a long
// run's record holds hundreds of megabytes of probe events).
struct RunResultCodec {
  std::string out;
  bool counting = false;
  size_t counted = 0;
  void bytes(const void* p, size_t n) {
    if (counting) counted += n;
    else out.append(static_cast<const char*>(p), n);
  }
  void u64(uint64_t v) { bytes(&v, 8); }
  void f64(double v) { bytes(&v, 8); }
  void str(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }

  std::string_view in;
  size_t pos = 0;
  void need(size_t n) {
    if (n > in.size() - pos) fail("run result", "record truncated");
  }
  // A count of records of `record_bytes` each, checked against what is left of the input
  // (so that a damaged count fails as truncated instead of reserving without bound).
  uint64_t get_count(size_t record_bytes) {
    const uint64_t n = get_u64();
    if (n > (in.size() - pos) / record_bytes) fail("run result", "record truncated");
    return n;
  }
  uint64_t get_u64() {
    need(8);
    uint64_t v;
    std::memcpy(&v, in.data() + pos, 8);
    pos += 8;
    return v;
  }
  double get_f64() {
    need(8);
    double v;
    std::memcpy(&v, in.data() + pos, 8);
    pos += 8;
    return v;
  }
  std::string get_str() {
    const uint64_t n = get_u64();
    need(n);
    std::string s(in.substr(pos, n));
    pos += n;
    return s;
  }

  void probe(const ToggleProbe& p) {
    str(p.block_);
    str(p.port_);
    u64(p.width_bits_);
    u64(p.toggles_);
    u64(p.events_.size());
    for (const auto& [c, t] : p.events_) {
      u64(c);
      u64(t);
    }
  }
  ToggleProbe get_probe() {
    ToggleProbe p;
    p.block_ = get_str();
    p.port_ = get_str();
    p.width_bits_ = static_cast<uint32_t>(get_u64());
    p.toggles_ = get_u64();
    const uint64_t events = get_count(16);
    p.events_.reserve(events);
    for (uint64_t j = 0; j < events; ++j) {
      const uint64_t c = get_u64();
      p.events_.emplace_back(c, static_cast<uint32_t>(get_u64()));
    }
    return p;
  }

  void encode(const RunResult& r) {
    str("fsgen-run-11");
    str(r.model);
    u64(r.cycles);
    f64(r.wall_seconds);
    u64(r.outputs.size());
    for (const auto& [name, bytes] : r.outputs) {
      str(name);
      str(std::string(bytes.begin(), bytes.end()));
    }
    u64(r.probes.size());
    for (const auto& p : r.probes) probe(p);
    u64(r.activity.size());
    for (const auto& [name, a] : r.activity) {
      str(name);
      u64(a.busy_cycles);
      u64(a.operand_bytes);
      u64(a.zero_bytes);
      u64(a.hits);
      u64(a.misses);
      u64(a.reads);
      u64(a.writes);
      u64(a.read_bytes);
      u64(a.write_bytes);
    }
    u64(r.sparse.size());
    for (const auto& [name, s] : r.sparse) {
      str(name);
      for (uint64_t v : {s.windows, s.stream_cycles, s.dense_cycles, s.lane_slots, s.lane_issues, s.skipped_steps,
                         s.window_bytes, s.zero_row_bytes, s.metadata_bytes, s.topk_bytes, s.pool_bytes})
        u64(v);
    }
    u64(r.timelines.size());
    for (const auto& [name, t] : r.timelines) {
      str(name);
      u64(t.switching_lag);
      u64(t.switching_lead);
      for (const auto* spans : {&t.busy, &t.enabled, &t.side}) {
        u64(spans->size());
        for (const CycleSpan& sp : *spans) {
          u64(sp.start);
          u64(sp.cycles);
        }
      }
      u64(t.operands.size());
      for (const OperandSample& o : t.operands) {
        u64(o.cycle);
        u64(o.bytes);
        u64(o.zeros);
      }
      for (const RegisterTrace* reg : {&t.state, &t.factor}) {
        u64(reg->bits);
        u64(reg->samples.size());
        for (const StateSample& st : reg->samples) {
          u64(st.cycle);
          u64(st.toggles);
          u64(st.ones);
        }
      }
    }
    u64(r.rtl_blocks.size());
    for (const RtlBlockRun& b : r.rtl_blocks) {
      str(b.block);
      str(b.part);
      str(b.source);
      u64(b.clocked_cycles);
      str(b.first_mismatch);
      u64(b.totals_only.size());
      for (const auto& port : b.totals_only) str(port);
      u64(b.ports.size());
      for (const auto& p : b.ports) probe(p);
    }
  }

  RunResult decode() {
    RunResult r;
    if (get_str() != "fsgen-run-11") fail("run result", "not an fsgen run record");
    r.model = get_str();
    r.cycles = get_u64();
    r.wall_seconds = get_f64();
    for (uint64_t n = get_u64(), i = 0; i < n; ++i) {
      std::string name = get_str();
      std::string b = get_str();
      r.outputs[name] = std::vector<uint8_t>(b.begin(), b.end());
    }
    for (uint64_t n = get_u64(), i = 0; i < n; ++i) r.probes.push_back(get_probe());
    for (uint64_t n = get_u64(), i = 0; i < n; ++i) {
      std::string name = get_str();
      BlockActivity a;
      a.busy_cycles = get_u64();
      a.operand_bytes = get_u64();
      a.zero_bytes = get_u64();
      a.hits = get_u64();
      a.misses = get_u64();
      a.reads = get_u64();
      a.writes = get_u64();
      a.read_bytes = get_u64();
      a.write_bytes = get_u64();
      r.activity[name] = a;
    }
    for (uint64_t n = get_u64(), i = 0; i < n; ++i) {
      SparseActivity& s = r.sparse[get_str()];
      for (uint64_t* v : {&s.windows, &s.stream_cycles, &s.dense_cycles, &s.lane_slots, &s.lane_issues, &s.skipped_steps,
                          &s.window_bytes, &s.zero_row_bytes, &s.metadata_bytes, &s.topk_bytes, &s.pool_bytes})
        *v = get_u64();
    }
    for (uint64_t n = get_u64(), i = 0; i < n; ++i) {
      BlockTimeline& t = r.timelines[get_str()];
      t.switching_lag = static_cast<uint32_t>(get_u64());
      t.switching_lead = static_cast<uint32_t>(get_u64());
      for (auto* spans : {&t.busy, &t.enabled, &t.side}) {
        const uint64_t m = get_count(16);
        spans->reserve(m);
        for (uint64_t j = 0; j < m; ++j) {
          const uint64_t start = get_u64();
          spans->push_back({start, get_u64()});
        }
      }
      const uint64_t samples = get_count(24);
      t.operands.reserve(samples);
      for (uint64_t j = 0; j < samples; ++j) {
        OperandSample o;
        o.cycle = get_u64();
        o.bytes = static_cast<uint32_t>(get_u64());
        o.zeros = static_cast<uint32_t>(get_u64());
        t.operands.push_back(o);
      }
      for (RegisterTrace* reg : {&t.state, &t.factor}) {
        reg->bits = static_cast<uint32_t>(get_u64());
        const uint64_t states = get_count(24);
        reg->samples.reserve(states);
        for (uint64_t j = 0; j < states; ++j) {
          StateSample& st = reg->samples.emplace_back();
          st.cycle = get_u64();
          st.toggles = static_cast<uint32_t>(get_u64());
          st.ones = static_cast<uint32_t>(get_u64());
        }
      }
    }
    for (uint64_t n = get_u64(), i = 0; i < n; ++i) {
      RtlBlockRun& b = r.rtl_blocks.emplace_back();
      b.block = get_str();
      b.part = get_str();
      b.source = get_str();
      b.clocked_cycles = get_u64();
      b.first_mismatch = get_str();
      for (uint64_t m = get_u64(), j = 0; j < m; ++j) b.totals_only.push_back(get_str());
      for (uint64_t m = get_u64(), j = 0; j < m; ++j) b.ports.push_back(get_probe());
    }
    return r;
  }
};

void RegisterTrace::record(uint64_t cycle, const uint32_t* before, const uint32_t* value) {
  uint32_t toggles = 0, ones = 0;
  for (uint32_t i = 0; i < bits / 32; ++i) {
    toggles += uint32_t(__builtin_popcount(before[i] ^ value[i]));
    ones += uint32_t(__builtin_popcount(value[i]));
  }
  if (toggles != 0) add(cycle, toggles, ones);
}

void RegisterTrace::add(uint64_t cycle, uint32_t toggles, uint32_t ones) {
  if (!samples.empty() && samples.back().cycle == cycle) {
    samples.back().toggles += toggles, samples.back().ones = ones;
    return;
  }
  samples.push_back({cycle, toggles, ones});
}

void record_operands(BlockActivity& act, BlockTimeline& timeline, uint64_t cycle, const uint8_t* v, size_t n) {
  const auto zeros = static_cast<uint32_t>(std::count(v, v + n, uint8_t{0}));
  act.operand_bytes += n;
  act.zero_bytes += zeros;
  if (timeline.operands.empty() || timeline.operands.back().cycle != cycle)
    timeline.operands.push_back({cycle, 0, 0});
  timeline.operands.back().bytes += static_cast<uint32_t>(n);
  timeline.operands.back().zeros += zeros;
}

std::string encode_run_result(const RunResult& r) {
  RunResultCodec c;
  c.counting = true;
  c.encode(r);
  c.counting = false;
  c.out.reserve(c.counted);
  advise_huge_pages(c.out.data(), c.counted);
  c.encode(r);
  return std::move(c.out);
}

RunResult decode_run_result(std::string_view bytes) {
  RunResultCodec c;
  c.in = bytes;
  return c.decode();
}

}  // namespace fsgen
