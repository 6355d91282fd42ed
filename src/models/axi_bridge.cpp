#include "models/axi_bridge.h"

#include <cstring>

#include "core/error.h"
#include "models/core_model.h"

namespace fsgen {

namespace {
constexpr uint64_t kOkay = 0, kDecErr = 3;  // AXI responses
}

AxiMasterBridge::Pins AxiMasterBridge::find_pins(const RtlPorts& rtl, uint32_t beat_bytes) {
  Pins p{};
  auto pin = [&](const char* name, uint32_t bits) {
    return port_of_width(rtl, name, bits, "the AXI4 master's " + std::string(name));
  };
  const uint32_t data_bits = beat_bytes * 8;
  p.araddr = pin("m_araddr", 32), p.arlen = pin("m_arlen", 8), p.arvalid = pin("m_arvalid", 1);
  p.arready = pin("m_arready", 1), p.rdata = pin("m_rdata", data_bits), p.rresp = pin("m_rresp", 2);
  p.rlast = pin("m_rlast", 1), p.rvalid = pin("m_rvalid", 1), p.rready = pin("m_rready", 1);
  p.awaddr = pin("m_awaddr", 32), p.awlen = pin("m_awlen", 8), p.awvalid = pin("m_awvalid", 1);
  p.awready = pin("m_awready", 1), p.wdata = pin("m_wdata", data_bits), p.wlast = pin("m_wlast", 1);
  p.wvalid = pin("m_wvalid", 1), p.wready = pin("m_wready", 1), p.bresp = pin("m_bresp", 2);
  p.bvalid = pin("m_bvalid", 1), p.bready = pin("m_bready", 1);
  return p;
}

AxiMasterBridge::AxiMasterBridge(RtlPorts& rtl, uint32_t beat_bytes, Transport transport)
    : rtl_(rtl),
      beat_bytes_(beat_bytes),
      transport_(std::move(transport)),
      pin_(find_pins(rtl, beat_bytes)),
      last_rdata_(beat_bytes, 0) {}

void AxiMasterBridge::drive(uint64_t cycle) {
  rtl_.set(pin_.arready, 1);
  rtl_.set(pin_.awready, 1);
  rtl_.set(pin_.wready, 1);
  const bool beat = !reads_.empty() && reads_.front().cycle <= cycle;
  if (beat) last_rdata_ = reads_.front().data;
  rtl_.set(pin_.rvalid, beat);
  rtl_.set(pin_.rlast, beat && reads_.front().last);
  rtl_.set(pin_.rresp, beat && !error_.empty() ? kDecErr : kOkay);
  rtl_.set_bytes(pin_.rdata, last_rdata_.data());
  rtl_.set(pin_.bvalid, !responses_.empty() && responses_.front() <= cycle);
  rtl_.set(pin_.bresp, error_.empty() ? kOkay : kDecErr);
}

void AxiMasterBridge::sample(uint64_t cycle) {
  if (rtl_.value(pin_.arvalid) && cycle != ar_taken_cycle_) take_read(cycle);
  if (rtl_.value(pin_.rvalid) && rtl_.value(pin_.rready)) reads_.pop_front();
  if (rtl_.value(pin_.awvalid)) {
    write_open_ = true;
    aw_cycle_ = cycle;
    aw_addr_ = rtl_.value(pin_.awaddr);
    write_data_.clear();
  }
  if (rtl_.value(pin_.wvalid)) take_write_beat(cycle);
  if (rtl_.value(pin_.bvalid) && rtl_.value(pin_.bready)) responses_.pop_front();
}

AxiMasterBridge::BookedRead AxiMasterBridge::take_read_address(uint64_t cycle) {
  if (!rtl_.value(pin_.arvalid))
    fail(rtl_.source(), "m_arvalid is low in the cycle after the read command was taken (the DMA's contract: its "
                        "AR address register shows the burst then)");
  ar_taken_cycle_ = cycle;
  return take_read(cycle);
}

// An AR handshake (arready is always high): the burst's data comes from memory now, its
// beats in the cycles the memory gives.
AxiMasterBridge::BookedRead AxiMasterBridge::take_read(uint64_t cycle) {
  const uint32_t beats = uint32_t(rtl_.value(pin_.arlen)) + 1;
  const uint64_t addr = rtl_.value(pin_.araddr);
  std::vector<uint8_t> data(size_t(beats) * beat_bytes_, 0);
  uint64_t last = cycle;
  if (!transport_(false, cycle, addr, data.data(), uint32_t(data.size()), last)) {
    refuse(false, addr, uint32_t(data.size()));
    last = cycle + beats;  // the beats still come, with DECERR
  }
  for (uint32_t i = 0; i < beats; ++i) {
    const auto from = data.begin() + std::ptrdiff_t(i) * beat_bytes_;
    reads_.push_back({last + 1 - beats + i, std::vector<uint8_t>(from, from + beat_bytes_), i + 1 == beats});
  }
  return {last + 1 - beats, last, std::move(data)};
}

// A W beat (wready is always high); the burst goes to memory with its last beat, timed from
// its AW handshake as the memory's contract is.
void AxiMasterBridge::take_write_beat(uint64_t cycle) {
  if (!write_open_) fail(rtl_.source(), "a W beat before its burst's AW handshake (the bridge takes AW first)");
  const size_t at = write_data_.size();
  write_data_.resize(at + beat_bytes_);
  rtl_.get(pin_.wdata, write_data_.data() + at);
  if (!rtl_.value(pin_.wlast)) return;
  write_open_ = false;
  uint64_t response = cycle;
  if (!transport_(true, aw_cycle_, aw_addr_, write_data_.data(), uint32_t(write_data_.size()), response)) {
    refuse(true, aw_addr_, uint32_t(write_data_.size()));
    response = cycle + 1;
  }
  responses_.push_back(response);
}

void AxiMasterBridge::refuse(bool write, uint64_t addr, uint32_t bytes) {
  if (!error_.empty()) return;
  error_ = refused_burst(write, addr, bytes);
}

AxiLiteBridge::AxiLiteBridge(RtlPorts& rtl) : rtl_(rtl) {
  auto pin = [&](const char* name, uint32_t bits) {
    return port_of_width(rtl, name, bits, "the AXI4-Lite slave's " + std::string(name));
  };
  awaddr_ = pin("s_awaddr", 0), awvalid_ = pin("s_awvalid", 1), awready_ = pin("s_awready", 1);
  wdata_ = pin("s_wdata", 32), wvalid_ = pin("s_wvalid", 1), wready_ = pin("s_wready", 1), bresp_ = pin("s_bresp", 2);
  bvalid_ = pin("s_bvalid", 1), bready_ = pin("s_bready", 1), araddr_ = pin("s_araddr", 0);
  arvalid_ = pin("s_arvalid", 1), arready_ = pin("s_arready", 1), rdata_ = pin("s_rdata", 32);
  rresp_ = pin("s_rresp", 2), rvalid_ = pin("s_rvalid", 1), rready_ = pin("s_rready", 1);
  address_bits_ = rtl.ports()[awaddr_].width_bits;
  expect_port_width(rtl, araddr_, address_bits_, "the AXI4-Lite slave's s_araddr (as s_awaddr)");
}

void AxiLiteBridge::begin(bool write, uint32_t offset, uint32_t value) {
  FSGEN_ASSERT(state_ == State::kIdle && offset < address_space(), "a register access while one is open");
  write_ = write, offset_ = offset, value_ = value;
  aw_taken_ = w_taken_ = false;
  state_ = State::kAddress;
}

void AxiLiteBridge::drive() {
  const bool address = state_ == State::kAddress;
  rtl_.set(awvalid_, address && write_ && !aw_taken_);
  rtl_.set(wvalid_, address && write_ && !w_taken_);
  rtl_.set(awaddr_, write_ ? offset_ : 0);
  rtl_.set(wdata_, write_ ? value_ : 0);
  rtl_.set(arvalid_, address && !write_);
  rtl_.set(araddr_, write_ ? 0 : offset_);
  rtl_.set(bready_, 1);
  rtl_.set(rready_, 1);
}

bool AxiLiteBridge::sample(uint64_t cycle) {
  if (state_ == State::kResponse) {
    if (write_ && rtl_.value(bvalid_)) {
      response_ = uint32_t(rtl_.value(bresp_));
      state_ = State::kIdle;
      return true;
    }
    if (!write_ && rtl_.value(rvalid_)) {
      response_ = uint32_t(rtl_.value(rresp_));
      data_ = uint32_t(rtl_.value(rdata_));
      state_ = State::kIdle;
      return true;
    }
  }
  if (state_ != State::kAddress) return false;
  if (write_) {
    if (!aw_taken_ && rtl_.value(awready_)) aw_taken_ = true, taken_ = cycle;
    if (!w_taken_ && rtl_.value(wready_)) w_taken_ = true;
    if (aw_taken_ && w_taken_) state_ = State::kResponse;
  } else if (rtl_.value(arready_)) {
    taken_ = cycle;
    state_ = State::kResponse;
  }
  return false;
}

}  // namespace fsgen
