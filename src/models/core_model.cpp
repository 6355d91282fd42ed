#include "models/core_model.h"

#include <algorithm>
#include <cstring>

#include "blocks/ctrl/row_transfers.h"
#include "blocks/dma/model_rtl.h"
#include "core/error.h"
#include "core/numerics.h"
#include "core/regmap.h"
#include "models/pe_array_model.h"
#include "models/rtl_ports.h"

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace fsgen {

// ---------------------------------------------------------------- memory
MemoryTarget::MemoryTarget(sc_core::sc_module_name name, MemoryTiming timing, sc_time period, uint64_t bytes)
    : sc_module(name), socket("socket"), timing_(timing), period_(period), reads_(timing), data_(bytes, 0) {
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
  const auto handshake = static_cast<uint64_t>((sc_core::sc_time_stamp() + delay) / period_);
  if (trans.is_read()) {
    std::memcpy(trans.get_data_ptr(), data_.data() + addr, len);
    const uint64_t last_beat = reads_.book(handshake, beats) + beats - 1;
    delay += period_ * static_cast<double>(last_beat - handshake);
  } else {
    std::memcpy(data_.data() + addr, trans.get_data_ptr(), len);
    delay += period_ * static_cast<double>(beats + timing_.latency_cycles);  // W beats, then the response
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---------------------------------------------------------------- DMA
Dma::Dma(sc_core::sc_module_name name, MemoryTiming timing, const CycleClock& clock, ToggleProbe& rdata,
         ToggleProbe& wdata, BlockActivity& activity, BlockTimeline& timeline)
    : sc_module(name), socket("socket"), timing_(timing), clock_(clock), rdata_(rdata), wdata_(wdata),
      activity_(activity), timeline_(timeline), reads_(timing), writes_(timing) {
  timeline_.switching_lag = 0;
}

Dma::~Dma() = default;

void Dma::use_rtl(const RtlPortsMaker& make, uint32_t tag_bits, bool keep_events) {
  rtl_ = std::make_unique<DmaRtlModel>(
      make, timing_, tag_bits, keep_events,
      [this](bool write, uint64_t handshake, uint64_t addr, uint8_t* data, uint32_t bytes, uint64_t& end) {
        end = transport(write, handshake, uint32_t(addr), bytes / timing_.beat_bytes, data);
        return true;  // a bus error throws, ending the kernel as with the model
      });
}

std::vector<RtlBlockRun> Dma::rtl_block_runs() { return rtl_ ? rtl_->runs() : std::vector<RtlBlockRun>{}; }

void Dma::begin_kernel() {
  reads_ = DmaReads(timing_);
  writes_ = DmaWrites(timing_);
  in_flight_ = InFlightSpans();
  if (rtl_) rtl_->begin_kernel();
}

uint64_t Dma::reads_idle_from(uint64_t cycle) const {
  return rtl_ ? rtl_->reads_idle_from(cycle) : reads_.idle_from(cycle);
}

uint64_t Dma::writes_idle_from(uint64_t cycle) const {
  return rtl_ ? rtl_->writes_idle_from(cycle) : writes_.idle_from(cycle);
}

ReadBurst Dma::model_read(uint64_t cycle, uint32_t addr, uint32_t beats, uint8_t* dst) {
  const uint64_t taken = reads_.take_cycle(cycle);
  const uint64_t last_beat = transport(false, taken + 1, addr, beats, dst);
  reads_.taken(last_beat);
  return {taken, last_beat + 1 - beats, last_beat};
}

WriteBurst Dma::model_write(uint64_t cycle, uint32_t addr, uint32_t beats, const uint8_t* src) {
  const uint64_t taken = writes_.take_cycle(cycle);
  const uint64_t response = transport(true, taken + 1, addr, beats, const_cast<uint8_t*>(src));
  writes_.taken(response);
  return {taken, taken + 1 + beats, response};
}

uint64_t Dma::read(uint64_t cycle, uint32_t addr, uint32_t beats, uint8_t* dst) {
  const ReadBurst b = rtl_ ? rtl_->read(cycle, addr, beats, dst) : model_read(cycle, addr, beats, dst);
  for (uint32_t i = 0; i < beats; ++i) rdata_.update(b.first_beat + i, dst + size_t(i) * timing_.beat_bytes);
  count(b.taken, b.first_beat, beats, dst);
  in_flight_.add_read(b.taken + 1, b.last_beat);
  return b.taken;
}

// A write's beat i is taken in cycle taken + 2 + i, wdata holding it from then.
uint64_t Dma::write(uint64_t cycle, uint32_t addr, uint32_t beats, const uint8_t* src) {
  const WriteBurst b = rtl_ ? rtl_->write(cycle, addr, beats, src) : model_write(cycle, addr, beats, src);
  for (uint32_t i = 0; i < beats; ++i) wdata_.update(b.taken + 2 + i, src + size_t(i) * timing_.beat_bytes);
  count(b.taken, b.taken + 2, beats, src);
  in_flight_.add_write(b.taken + 1, b.response);
  return b.taken;
}

bool transport_burst(tlm::tlm_initiator_socket<>& memory, bool write, uint64_t addr, uint8_t* data, uint32_t bytes,
                     sc_time& delay) {
  tlm::tlm_generic_payload trans;
  trans.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(bytes);
  trans.set_streaming_width(bytes);
  trans.set_byte_enable_ptr(nullptr);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  memory->b_transport(trans, delay);
  return trans.get_response_status() == tlm::TLM_OK_RESPONSE;
}

std::string refused_burst(bool write, uint64_t addr, uint32_t bytes) {
  return std::string("DMA ") + (write ? "write" : "read") + " burst at " + hex_address(addr) + ": " +
         std::to_string(bytes) + " bytes: DECERR, outside off-chip memory";
}

uint64_t Dma::transport(bool write, uint64_t handshake, uint32_t addr, uint32_t beats, uint8_t* data) {
  const uint64_t now = clock_.cycle_at(sc_core::sc_time_stamp());
  FSGEN_ASSERT(handshake >= now, "a DMA burst is issued after its address handshake");
  sc_time delay = clock_.period * static_cast<double>(handshake - now);
  if (!transport_burst(socket, write, addr, data, beats * timing_.beat_bytes, delay))
    throw UserError(refused_burst(write, addr, beats * timing_.beat_bytes));
  return clock_.cycle_at(sc_core::sc_time_stamp() + delay);
}

// Statistics of one burst: its data beats (enabled) and the command taken (side).
void Dma::count(uint64_t taken, uint64_t first_beat, uint32_t beats, const uint8_t* data) {
  const uint32_t w = timing_.beat_bytes;
  for (uint32_t i = 0; i < beats; ++i) record_operands(activity_, timeline_, first_beat + i, data + size_t(i) * w, w);
  timeline_.enabled.push_back({first_beat, beats});
  timeline_.side.push_back({taken, 1});
}

// The kernel's cycles with a burst in flight (busy).
void Dma::end_kernel() {
  if (rtl_) rtl_->end_kernel();
  for (const InFlightSpans::Span& s : in_flight_.busy()) {
    activity_.busy_cycles += s.cycles;
    timeline_.busy.push_back({s.first, s.cycles});
  }
}

// ---------------------------------------------------------------- fused core
FusedCore::FusedCore(sc_core::sc_module_name name, const Graph& g, Dma& dma, CycleClock& clock, RunResult& result,
                     const RtlBlockMakers& rtl)
    : sc_module(name),
      TileSequencer(g, result.activity, result.sparse),
      dma_(dma),
      clock_(clock),
      result_(result),
      buf_a_activity_(result.activity["buf_a"]),
      buf_b_activity_(result.activity["buf_b"]) {
  const ArraySpec& a = plan_.spec;
  buf_a_.assign(g.buf_a_bytes(), 0);
  buf_b_.assign(g.buf_b_bytes(), 0);
  acc_row_.assign(tile_n_, 0);
  out_row_.assign(tile_n_, 0);
  array_a_ = make_array(plan_, result, "array_a", rtl);
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
    array_b_ = make_array(g.array_b, result, "array_b", rtl);
    if (g.matmul_on_both) array_b_matmul_ = make_array(g.array_b_matmul, result, "array_b", rtl);
    softmax_unit_ = make_softmax_model(tkv);
    if (RtlInstance* r = rtl_instance("softmax", rtl))
      softmax_unit_ = make_rtl_softmax_model(tkv, std::move(softmax_unit_), *r->ports, *r->monitor);
    sm_in_ = result.find_probe("softmax", "in");
    sm_out_ = result.find_probe("softmax", "out");
    sm_activity_ = &result.activity["softmax"];
    sm_timeline_ = &result.timelines["softmax"];
    sm_timeline_->switching_lead = 1;  // its datapath switches as the row is loaded
    fin_in_probe_ = result.find_probe("normalise", "in");
    fin_out_probe_ = result.find_probe("normalise", "out");
    fin_timeline_ = &result.timelines["normalise"];
    fin_timeline_->switching_lag = 0;  // its spans are the cycles the divider's operands change in
    ctrl_timeline_ = &result.timelines["ctrl"];
    alpha_probe_ = result.find_probe("array_b", "alpha");
    if (alpha_probe_) {
      factor_trace_ = &result.timelines["array_b"].factor;
      factor_trace_->bits = uint32_t(alpha_q_.size()) * 32;
    }
    FSGEN_ASSERT(sm_in_ && sm_out_ && fin_in_probe_ && fin_out_probe_,
                 "attention probes missing from the graph");
  }
  SC_THREAD(run);
}

FusedCore::~FusedCore() = default;

FusedCore::RtlInstance* FusedCore::rtl_instance(const std::string& block, const RtlBlockMakers& rtl) {
  const auto maker = rtl.find(block);
  if (maker == rtl.end()) return nullptr;
  for (RtlInstance& r : rtl_instances_)
    if (r.block == block) return &r;
  RtlInstance& r = rtl_instances_.emplace_back();
  r.block = block;
  r.ports = maker->second();
  std::vector<std::string> probed;
  for (const ToggleProbe& p : result_.probes)
    if (p.block() == block) probed.push_back(p.port());
  r.monitor = std::make_unique<RtlBlockMonitor>(block, *r.ports, /*keep_events=*/true, probed);
  return &r;
}

std::unique_ptr<PeArrayModel> FusedCore::make_array(const ArrayPlan& plan, RunResult& result, const std::string& block,
                                                    const RtlBlockMakers& rtl) {
  RtlInstance* r = rtl_instance(block, rtl);
  if (!r) return make_pe_array_model(plan, result, block);
  return make_rtl_pe_array_model(plan, result, block, *r->ports, *r->monitor);
}

std::vector<RtlBlockRun> FusedCore::rtl_block_runs() {
  std::vector<RtlBlockRun> runs;
  for (RtlInstance& r : rtl_instances_) runs.push_back(std::move(*r.monitor).finish());
  return runs;
}

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
    dma_.begin_kernel();
    acc_cache_.assign(size_t(plan_.acc_slots) * plan_.spec.tile_m * plan_.spec.tile_n, 0);
    try {
      run_schedule(start_regs_);
    } catch (const UserError& e) {  // a bus error: the platform stops, the host is told
      kernel_error_ = e.what();
      sc_core::sc_stop();
      return;
    }
    dma_.end_kernel();
    sync();
    last_cycles_ = now();
    busy_ = false;
    done_ = true;
    done_event.notify(SC_ZERO_TIME);
  }
}

void FusedCore::set_cursor(uint64_t cycle) {
  const uint64_t waited = clock_.cycle_at(sc_core::sc_time_stamp());
  FSGEN_ASSERT(cycle >= waited, "a lane starts after the cycles the core has waited for");
  pending_ = cycle - waited;
}

uint8_t* FusedCore::buffer(BufferSlot s) {
  switch (s.kind) {
    case BufferSlot::kA: return buf_a_.data() + size_t(s.slot) * plan_.spec.tile_m * plan_.spec.tile_k;
    case BufferSlot::kMatmulB: return buf_b_.data() + size_t(s.slot) * tile_n_ * plan_.spec.tile_k;
    case BufferSlot::kLut: return lut_.data();
    case BufferSlot::kPool: return pool_.data();
    case BufferSlot::kB: break;
  }
  return buf_b_.data() + size_t(s.slot) * plan_.spec.tile_n * plan_.spec.tile_k;
}

BlockActivity* FusedCore::buffer_activity(BufferSlot dst) {
  switch (dst.kind) {
    case BufferSlot::kA:
      return &buf_a_activity_;
    case BufferSlot::kB:
    case BufferSlot::kMatmulB:
      return &buf_b_activity_;
    case BufferSlot::kLut:
    case BufferSlot::kPool:
      break;
  }
  return nullptr;
}

const uint8_t* FusedCore::b_slot_data(uint32_t slot) const {
  return buf_b_.data() + size_t(slot) * plan_.spec.tile_n * plan_.spec.tile_k;
}

int32_t FusedCore::key_tile_score(uint32_t rows) {
  const std::vector<int8_t> q(buf_a_.begin(), buf_a_.begin() + size_t(rows) * plan_.spec.tile_k);
  return num::key_tile_score(q, 0, rows, reinterpret_cast<const int8_t*>(pool_.data()), plan_.spec.tile_k);
}

RowDma FusedCore::dma_reads(uint32_t addr, uint32_t stride, uint32_t beats, uint8_t* dst, uint32_t row_bytes) {
  return {[=](uint64_t cycle, uint32_t r) { return dma_.read(cycle, addr + r * stride, beats, dst + size_t(r) * row_bytes); },
          [this](uint64_t cycle) { return dma_.reads_idle_from(cycle); }};
}

RowDma FusedCore::dma_writes(const std::function<uint32_t(uint32_t)>& row_addr, uint32_t beats, const uint8_t* src) {
  return {[=](uint64_t cycle, uint32_t r) { return dma_.write(cycle, row_addr(r), beats, src); },
          [this](uint64_t cycle) { return dma_.writes_idle_from(cycle); }};
}

// A transfer from now whose last cycle is `last`: time moves to the cycle after it.
void FusedCore::end_transfer(uint64_t last) { advance(last + 1 - now()); }

void FusedCore::load_rows(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst,
                          LoadEnd end) {
  const uint32_t beats = row_bytes / graph_.memory.beat_bytes;
  uint8_t* buf = buffer(dst);
  if (BlockActivity* written = buffer_activity(dst)) written->write_bytes += uint64_t(rows) * row_bytes;
  std::vector<uint8_t> in(dst.transposed ? size_t(rows) * row_bytes : 0);  // transposed: the rows as they come
  const uint64_t start = now();
  end_transfer(load_transfer_end(now(), rows, nullptr,
                                 dma_reads(addr, stride, beats, dst.transposed ? in.data() : buf, row_bytes), end));
  if (dst.kind == BufferSlot::kLut) ctrl_timeline_->busy.push_back({start, now() - start});
  if (!dst.transposed) return;
  for (uint32_t r = 0; r < rows; ++r)  // then down the columns
    for (uint32_t j = 0; j < row_bytes; ++j) buf[size_t(j) * rows + r] = in[size_t(r) * row_bytes + j];
}

void FusedCore::load_compressed_rows(uint32_t meta_addr, uint32_t meta_bytes, uint32_t addr, uint32_t stride,
                                     uint32_t rows, uint32_t row_bytes, BufferSlot dst) {
  const uint32_t beat = graph_.memory.beat_bytes;
  std::vector<uint8_t> meta(meta_bytes);
  end_transfer(load_transfer_end(now(), 1, nullptr, dma_reads(meta_addr, 0, meta_bytes / beat, meta.data(), 0)));
  uint8_t* buf = buffer(dst);
  if (BlockActivity* written = buffer_activity(dst)) written->write_bytes += uint64_t(rows) * row_bytes;  // or cleared
  auto skipped = [&](uint32_t r) {
    if (meta[r / 8] >> (r % 8) & 1) return false;
    std::memset(buf + size_t(r) * row_bytes, 0, row_bytes);  // ISSUE clears the row
    result_.sparse["dma"].zero_row_bytes += row_bytes;
    return true;
  };
  end_transfer(load_transfer_end(now(), rows, skipped, dma_reads(addr, stride, row_bytes / beat, buf, row_bytes),
                                 LoadEnd::kIssued));
  result_.sparse["dma"].metadata_bytes += meta_bytes;
}

void FusedCore::zero_rows(BufferSlot dst, uint32_t from, uint32_t rows, uint32_t row_bytes) {
  std::memset(buffer(dst) + size_t(from) * row_bytes, 0, size_t(rows - from) * row_bytes);
}

// S_ST: per output row READ (from the array), CONV (the requantiser's first stage; with the
// activation epilogue the softmax unit, loaded in READ, activates or gates the row), ISSUE (its
// first cycle the requantiser's second stage) and its write burst.
void FusedCore::store_tile(uint32_t mt, uint32_t nt) {
  const ArraySpec& a = plan_.spec;
  auto prepare = [&](uint32_t r, uint64_t read_cycle) {
    array_a_->read_row(r, {tile_ptr_, a.tile_n}, a.tile_n, acc_row_.data());
    if (array_b_matmul_) array_b_matmul_->read_row(r, {}, tile_n_ - a.tile_n, acc_row_.data() + a.tile_n);
    rq_in_->update(read_cycle + 1, acc_row_.data());
    if (mm_act()) {
      activate_row_on_store(r, read_cycle);
      rq_out_->update(read_cycle + 2, out_row_.data());
    } else {
      for (uint32_t j = 0; j < tile_n_; ++j)
        out_row_[j] = num::requantize(acc_row_[j], regs_.req_mult, regs_.req_shift);
      rq_out_->update(read_cycle + 3, out_row_.data());
    }
  };
  const uint32_t c_nt = mm_gated() ? nt / 2 : nt;  // gated: C's column block of the W1 / W3 pair
  auto row_addr = [&](uint32_t r) { return regs_.addr_c + (mt * a.tile_m + r) * regs_.stride_c + c_nt * tile_n_; };
  const uint32_t beats = tile_n_ / graph_.memory.beat_bytes;
  if (mm_act()) softmax_unit_->configure(softmax_settings());  // its table, loaded by now
  end_transfer(store_transfer_end(now(), matmul_rows(mt), beats, prepare,
                                  dma_writes(row_addr, beats, reinterpret_cast<const uint8_t*>(out_row_.data()))));
}

// The epilogue of stored row r, its accumulators read in `read_cycle`: the softmax unit loads
// the row then, gated with row r's held activations, and its output is the stored row.
void FusedCore::activate_row_on_store(uint32_t r, uint64_t read_cycle) {
  load_softmax_row(read_cycle, r, {tile_ptr_, plan_.spec.tile_n});
  activate_row(read_cycle, r, 0, mm_gated());
  std::copy(p_row_.begin(), p_row_.end(), reinterpret_cast<uint8_t*>(out_row_.data()));
  sm_out_->update(read_cycle + 2, p_row_.data());
  sm_activity_->busy_cycles += 1;
  sm_timeline_->busy.push_back({read_cycle, 1});
  sm_timeline_->enabled.push_back({read_cycle, 1});
  if (mm_gated()) sm_timeline_->side.push_back({read_cycle, 1});
}

// The compute phase of one matmul tile: array a on B's first a.n columns and, with
// matmul on both arrays, array b on the rest in the same cycles.
void FusedCore::matmul_tile(bool reload_stationary, uint32_t kt, uint32_t acc_slot, uint32_t a_slot,
                            uint32_t b_slot) {
  const ArraySpec& a = plan_.spec;
  tile_ptr_ = acc_cache_.empty() ? nullptr : acc_cache_.data() + size_t(acc_slot) * a.tile_m * a.tile_n;
  const TileView tile_a = TileView::row_major(buffer({BufferSlot::kA, a_slot}), a.tile_k);
  const uint8_t* tile_b = buffer({BufferSlot::kMatmulB, b_slot});
  const Accumulate mode = kt == 0 ? Accumulate::kClear : Accumulate::kAdd;
  buf_a_activity_.read_bytes += uint64_t(a.tile_m) * a.tile_k;
  buf_b_activity_.read_bytes += uint64_t(a.tile_k) * tile_n_;
  const uint64_t c0 = now();
  const uint64_t cycles =
      array_a_->run_tile(c0, tile_a, TileView::row_major(tile_b, tile_n_), reload_stationary, mode, nullptr,
                         {tile_ptr_, a.tile_n});
  if (array_b_matmul_)
    array_b_matmul_->run_tile(c0, tile_a, TileView::row_major(tile_b + a.tile_n, tile_n_), false, mode, nullptr,
                              {});
  advance(cycles);
}

// ---------------------------------------------------------------- CSR
Csr::Csr(sc_core::sc_module_name name, FusedCore& core, bool fused)
    : sc_module(name), socket("socket"), core_(core), fused_(fused) {
  socket.register_b_transport(this, &Csr::b_transport);
}

void Csr::b_transport(tlm::tlm_generic_payload& trans, sc_time&) {
  const auto off = static_cast<uint32_t>(trans.get_address());
  const reg::RegInfo* r = reg::register_at(off);
  if (!r || trans.get_data_length() != 4) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint32_t v = 0;
  if (trans.is_write()) {
    std::memcpy(&v, trans.get_data_ptr(), 4);
    if (off == reg::kCtrl) {
      if ((v & 1) && !core_.busy()) {
        refusal_ = descriptor_error(regs_, fused_);
        if (!refusal_.empty()) {
          trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
          return;
        }
        core_.start(regs_);
      }
    } else if (!r->writable) {
      trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    } else {
      write_register(regs_, off, v);
      written_[off] = r->width == 32 ? v : v & ((1u << r->width) - 1);
    }
  } else {
    switch (off) {
      case reg::kStatus: v = (core_.busy() ? 1u : 0u) | (core_.done() ? 2u : 0u); break;
      case reg::kCycles: v = static_cast<uint32_t>(core_.last_cycles()); break;
      default:
        v = written_.count(off) ? written_.at(off) : 0;
        break;
    }
    std::memcpy(trans.get_data_ptr(), &v, 4);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace fsgen
