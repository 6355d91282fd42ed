#include "models/core_model.h"

#include <cstring>

#include "core/error.h"
#include "core/numerics.h"
#include "core/regmap.h"
#include "models/pe_array_model.h"

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace fsgen {

// ---------------------------------------------------------------- memory
MemoryTarget::MemoryTarget(sc_core::sc_module_name name, MemoryTiming timing, sc_time period, uint64_t bytes)
    : sc_module(name), socket("socket"), timing_(timing), period_(period), data_(bytes, 0) {
  socket.register_b_transport(this, &MemoryTarget::b_transport);
}

void MemoryTarget::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const uint32_t len = trans.get_data_length();
  if (addr + len > data_.size()) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const uint32_t beats = len / timing_.beat_bytes;
  if (trans.is_read()) {
    std::memcpy(trans.get_data_ptr(), data_.data() + addr, len);
    delay += period_ * static_cast<double>(timing_.read_cycles(beats));
  } else {
    std::memcpy(data_.data() + addr, trans.get_data_ptr(), len);
    delay += period_ * static_cast<double>(timing_.write_cycles(beats));
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---------------------------------------------------------------- DMA
Dma::Dma(sc_core::sc_module_name name, MemoryTiming timing, const CycleClock& clock, ToggleProbe& rdata,
         ToggleProbe& wdata, BlockActivity& activity, BlockTimeline& timeline)
    : sc_module(name), socket("socket"), timing_(timing), clock_(clock), rdata_(rdata), wdata_(wdata),
      activity_(activity), timeline_(timeline) {
  timeline_.switching_lag = 0;
  SC_THREAD(run);
}

void Dma::read(uint32_t addr, uint32_t beats, uint8_t* dst) {
  cmd_ = {false, addr, beats, dst};
  cmd_event_.notify(SC_ZERO_TIME);
  wait(done_event_);
}

void Dma::write(uint32_t addr, uint32_t beats, const uint8_t* src) {
  cmd_ = {true, addr, beats, const_cast<uint8_t*>(src)};
  cmd_event_.notify(SC_ZERO_TIME);
  wait(done_event_);
}

void Dma::run() {
  for (;;) {
    wait(cmd_event_);
    burst(cmd_);
    done_event_.notify(SC_ZERO_TIME);
  }
}

// One burst, cycle by cycle as fsgen_dma.v: AR (or AW) handshake cycle, the memory's
// time, then the DONE cycle.
void Dma::burst(const Command& c) {
  const sc_time start = sc_core::sc_time_stamp();
  const uint32_t w = timing_.beat_bytes;
  wait(clock_.period);  // AR / AW handshake
  const uint64_t handshake = clock_.cycle_at(sc_core::sc_time_stamp()) - 1;
  tlm::tlm_generic_payload trans;
  trans.set_command(c.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  trans.set_address(c.addr);
  trans.set_data_ptr(c.data);
  trans.set_data_length(c.beats * w);
  trans.set_streaming_width(c.beats * w);
  trans.set_byte_enable_ptr(nullptr);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = SC_ZERO_TIME;
  // The data beats: a write's beat i is taken in cycle handshake + 1 + i (wdata holds it
  // from then), a read's arrives after the memory's latency.
  const uint64_t first_beat = c.write ? handshake + 1 : handshake + timing_.latency_cycles;
  if (c.write)
    for (uint32_t i = 0; i < c.beats; ++i) wdata_.update(first_beat + i, c.data + size_t(i) * w);
  socket->b_transport(trans, delay);
  if (trans.get_response_status() != tlm::TLM_OK_RESPONSE)
    fail("dma", "burst at address " + std::to_string(c.addr) + " of " + std::to_string(c.beats * w) +
                    " bytes is outside off-chip memory");
  if (!c.write)
    for (uint32_t i = 0; i < c.beats; ++i) rdata_.update(first_beat + i, c.data + size_t(i) * w);
  for (uint32_t i = 0; i < c.beats; ++i) record_operands(activity_, timeline_, first_beat + i, c.data + size_t(i) * w, w);
  timeline_.enabled.push_back({first_beat, c.beats});
  wait(delay);
  wait(clock_.period);  // DONE
  const auto cycles = static_cast<uint64_t>((sc_core::sc_time_stamp() - start) / clock_.period);
  activity_.busy_cycles += cycles;
  timeline_.busy.push_back({handshake, cycles});
  FSGEN_ASSERT(handshake >= 1, "a DMA command is taken in a cycle before its address handshake");
  timeline_.side.push_back({handshake - 1, 1});  // the command was taken in the cycle before
}

// ---------------------------------------------------------------- fused core
FusedCore::FusedCore(sc_core::sc_module_name name, const Graph& g, Dma& dma, CycleClock& clock, RunResult& result)
    : sc_module(name), TileSequencer(g, result.activity, result.sparse), dma_(dma), clock_(clock), result_(result) {
  const ArraySpec& a = plan_.spec;
  buf_a_.assign(size_t(a.tile_m) * a.tile_k, 0);
  buf_b_.assign(std::max<size_t>(size_t(1 + g.k_cache_tiles + g.v_cache_tiles) * a.tile_n, tile_n_) * a.tile_k, 0);
  acc_row_.assign(tile_n_, 0);
  out_row_.assign(tile_n_, 0);
  array_a_ = make_pe_array_model(plan_, result, "array_a");
  rq_in_ = result.find_probe("requant", "in");
  rq_out_ = result.find_probe("requant", "out");
  FSGEN_ASSERT(rq_in_ && rq_out_, "requant probes missing from the graph");
  if (g.attention) {
    const uint32_t tq = a.tile_m, tkv = a.tile_n, d = a.tile_k;
    s_acc_.assign(size_t(tq) * tkv, 0);
    o_acc_.assign(size_t(tq) * d, 0);
    p_buf_.assign(size_t(tq) * tkv, 0);
    lut_.assign(256, 0);
    pool_.assign(d, 0);
    m_run_.assign(tq, 0);
    l_run_.assign(tq, 0);
    alpha_.assign(tq, 0);
    alpha_q_.assign(tq, 0);
    s_row_.assign(tkv, 0);
    fin_in_.assign(d, 0);
    p_row_.assign(tkv, 0);
    fin_out_.assign(d, 0);
    array_b_ = make_pe_array_model(g.array_b, result, "array_b");
    if (g.matmul_on_both) array_b_matmul_ = make_pe_array_model(g.array_b_matmul, result, "array_b");
    sm_in_ = result.find_probe("softmax", "in");
    sm_out_ = result.find_probe("softmax", "out");
    sm_activity_ = &result.activity["softmax"];
    sm_timeline_ = &result.timelines["softmax"];
    sm_timeline_->switching_lead = 1;  // its datapath switches as the row is loaded
    fin_in_probe_ = result.find_probe("normalise", "in");
    fin_out_probe_ = result.find_probe("normalise", "out");
    fin_timeline_ = &result.timelines["normalise"];
    fin_timeline_->switching_lag = 0;  // its spans are the cycles the divider's operands change in
    alpha_probe_ = result.find_probe("array_b", "alpha");
    FSGEN_ASSERT(sm_in_ && sm_out_ && fin_in_probe_ && fin_out_probe_,
                 "attention probes missing from the graph");
  }
  SC_THREAD(run);
}

FusedCore::~FusedCore() = default;

void FusedCore::start(const KernelRegs& regs) {
  start_regs_ = regs;
  busy_ = true;
  done_ = false;
  start_event_.notify(clock_.period * 2.0);  // start pulse register, then the controller leaves IDLE
}

uint64_t FusedCore::now() const { return clock_.cycle_at(sc_core::sc_time_stamp()) + pending_; }

void FusedCore::sync() {
  if (pending_ == 0) return;
  wait(clock_.period * static_cast<double>(pending_));
  pending_ = 0;
}

void FusedCore::run() {
  for (;;) {
    wait(start_event_);
    clock_.origin = sc_core::sc_time_stamp();
    acc_cache_.assign(size_t(plan_.acc_slots) * plan_.spec.tile_m * plan_.spec.tile_n, 0);
    run_schedule(start_regs_);
    sync();
    last_cycles_ = now();
    busy_ = false;
    done_ = true;
    done_event.notify(SC_ZERO_TIME);
  }
}

uint8_t* FusedCore::buffer(BufferSlot s) {
  switch (s.kind) {
    case BufferSlot::kA: return buf_a_.data();
    case BufferSlot::kLut: return lut_.data();
    case BufferSlot::kPool: return pool_.data();
    case BufferSlot::kB: break;
  }
  return buf_b_.data() + size_t(s.slot) * plan_.spec.tile_n * plan_.spec.tile_k;
}

const uint8_t* FusedCore::b_slot_data(uint32_t slot) const {
  return buf_b_.data() + size_t(slot) * plan_.spec.tile_n * plan_.spec.tile_k;
}

int32_t FusedCore::key_tile_score(uint32_t rows) {
  const std::vector<int8_t> q(buf_a_.begin(), buf_a_.begin() + size_t(rows) * plan_.spec.tile_k);
  return num::key_tile_score(q, 0, rows, reinterpret_cast<const int8_t*>(pool_.data()), plan_.spec.tile_k);
}

void FusedCore::load_rows(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst) {
  uint8_t* buf = buffer(dst);
  for (uint32_t r = 0; r < rows; ++r) {
    advance(1);  // ISSUE
    sync();
    dma_.read(addr + r * stride, row_bytes / graph_.memory.beat_bytes, buf + size_t(r) * row_bytes);
  }
}

void FusedCore::load_compressed_rows(uint32_t meta_addr, uint32_t meta_bytes, uint32_t addr, uint32_t stride,
                                     uint32_t rows, uint32_t row_bytes, BufferSlot dst) {
  const uint32_t beat = graph_.memory.beat_bytes;
  std::vector<uint8_t> meta(meta_bytes);
  advance(1);  // S_MDA / S_MDB: ISSUE
  sync();
  dma_.read(meta_addr, meta_bytes / beat, meta.data());
  uint8_t* buf = buffer(dst);
  for (uint32_t r = 0; r < rows; ++r) {
    if (meta[r / 8] >> (r % 8) & 1) {
      advance(1);  // ISSUE
      sync();
      dma_.read(addr + r * stride, row_bytes / beat, buf + size_t(r) * row_bytes);
    } else {
      std::memset(buf + size_t(r) * row_bytes, 0, row_bytes);
      advance(2);  // ISSUE clears the row, WAIT moves on
      result_.sparse["dma"].zero_row_bytes += row_bytes;
    }
  }
  result_.sparse["dma"].metadata_bytes += meta_bytes;
}

void FusedCore::store_tile(uint32_t mt, uint32_t nt) {
  const ArraySpec& a = plan_.spec;
  const uint32_t beat = graph_.memory.beat_bytes;
  for (uint32_t r = 0; r < a.tile_m; ++r) {
    array_a_->read_row(r, {tile_ptr_, a.tile_n}, a.tile_n, acc_row_.data());
    if (array_b_matmul_) array_b_matmul_->read_row(r, {}, tile_n_ - a.tile_n, acc_row_.data() + a.tile_n);
    rq_in_->update(now() + 1, acc_row_.data());
    advance(1);  // S_ST: READ
    for (uint32_t j = 0; j < tile_n_; ++j) out_row_[j] = num::requantize(acc_row_[j], regs_.req_mult, regs_.req_shift);
    rq_out_->update(now() + 1, out_row_.data());
    advance(1);  // S_ST: CONV
    advance(1);  // S_ST: ISSUE
    sync();
    const uint32_t addr = regs_.addr_c + (mt * a.tile_m + r) * regs_.stride_c + nt * tile_n_;
    dma_.write(addr, tile_n_ / beat, reinterpret_cast<const uint8_t*>(out_row_.data()));
  }
}

// The compute phase of one matmul tile: array a on B's first a.n columns and, with
// matmul on both arrays, array b on the rest in the same cycles.
void FusedCore::matmul_tile(bool reload_stationary, uint32_t kt, uint32_t acc_slot) {
  const ArraySpec& a = plan_.spec;
  tile_ptr_ = acc_cache_.empty() ? nullptr : acc_cache_.data() + size_t(acc_slot) * a.tile_m * a.tile_n;
  const TileView tile_a = TileView::row_major(buf_a_.data(), a.tile_k);
  const Accumulate mode = kt == 0 ? Accumulate::kClear : Accumulate::kAdd;
  const uint64_t c0 = now();
  const uint64_t cycles =
      array_a_->run_tile(c0, tile_a, TileView::row_major(buf_b_.data(), tile_n_), reload_stationary, mode, nullptr,
                         {tile_ptr_, a.tile_n});
  if (array_b_matmul_)
    array_b_matmul_->run_tile(c0, tile_a, TileView::row_major(buf_b_.data() + a.tile_n, tile_n_), false, mode, nullptr,
                              {});
  advance(cycles);
}

// ---------------------------------------------------------------- CSR
Csr::Csr(sc_core::sc_module_name name, FusedCore& core) : sc_module(name), socket("socket"), core_(core) {
  socket.register_b_transport(this, &Csr::b_transport);
}

void Csr::b_transport(tlm::tlm_generic_payload& trans, sc_time&) {
  uint32_t v = 0;
  const auto off = static_cast<uint32_t>(trans.get_address());
  if (trans.is_write()) {
    std::memcpy(&v, trans.get_data_ptr(), 4);
    if (off == reg::kCtrl) {
      if ((v & 1) && !core_.busy()) core_.start(regs_);
    } else {
      write_register(regs_, off, v);
    }
  } else {
    switch (off) {
      case reg::kStatus: v = (core_.busy() ? 1u : 0u) | (core_.done() ? 2u : 0u); break;
      case reg::kCycles: v = static_cast<uint32_t>(core_.last_cycles()); break;
      default: v = 0; break;
    }
    std::memcpy(trans.get_data_ptr(), &v, 4);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace fsgen
