#include "models/rtl_core.h"

#include <cstring>

#include "core/error.h"
#include "core/regmap.h"
#include "models/core_model.h"

using sc_core::sc_time;

namespace fsgen {

namespace {
constexpr uint32_t kResetCycles = 4;  // rst_n held low, as the Verilator harness holds it
constexpr uint32_t kOkay = 0, kDecErr = 3;  // AXI responses (SLVERR: 2)
}  // namespace

VerilatedCore::VerilatedCore(sc_core::sc_module_name name, const Graph& g, sc_time period, RunResult& result,
                             std::unique_ptr<RtlPorts> rtl, uint64_t quantum_cycles)
    : sc_module(name),
      register_socket("register_socket"),
      memory_socket("memory_socket"),
      fused_(bool(g.attention)),
      period_(period),
      result_(result),
      rtl_(std::move(rtl)),
      quantum_(std::max<uint64_t>(1, quantum_cycles)),
      axi_(*rtl_, g.memory.beat_bytes,
           [this](bool write, uint64_t handshake, uint64_t addr, uint8_t* data, uint32_t bytes, uint64_t& end) {
             return transport(write, handshake, addr, data, bytes, end);
           }),
      lite_(*rtl_),
      irq_(rtl_->port("irq")) {
  FSGEN_ASSERT(rtl_->probe_count() == result.probes.size(), "the core's RTL was built without the design's probes");
  for (const ToggleProbe& p : result.probes) probe_words_.emplace_back((p.width_bits() + 31) / 32 + 1, 0);
  register_socket.register_b_transport(this, &VerilatedCore::b_transport);
  SC_THREAD(run);
}

bool VerilatedCore::busy() const { return running_ || sc_core::sc_time_stamp() < done_at_; }

std::vector<RtlBlockRun> VerilatedCore::rtl_block_runs() {
  RtlBlockRun run;
  run.block = kWholeCore;
  run.source = rtl_->source();
  run.clocked_cycles = clocked_;
  return {run};
}

uint64_t VerilatedCore::now_cycle() const { return static_cast<uint64_t>(sc_core::sc_time_stamp() / period_ + 0.5); }

void VerilatedCore::run() {
  reset();
  for (;;) {
    if (quiet()) {
      sync();
      if (quiet()) wait(wake_);  // the host may have begun an access while simulation time caught up
      catch_up();
      continue;
    }
    tick();
    if (!kernel_error_.empty()) {  // a bus error: the platform stops, the host is told
      sync();
      sc_core::sc_stop();
      return;
    }
    // Simulation time catches up once a quantum behind, never inside a write burst (whose
    // transaction is timed from its address handshake).
    if (cycle_ >= now_cycle() + quantum_ && !axi_.write_open()) sync();
  }
}

void VerilatedCore::reset() {
  lite_.drive();
  axi_.drive(0);
  rtl_->reset(kResetCycles);
}

void VerilatedCore::sync() {
  const uint64_t now = now_cycle();
  if (cycle_ > now) wait(period_ * static_cast<double>(cycle_ - now));
}

// Woken by the host at its time: the idle cycles since the module's last are clocked.
void VerilatedCore::catch_up() {
  const uint64_t now = now_cycle();
  while (cycle_ < now) tick();
}

void VerilatedCore::tick() {
  lite_.drive();
  axi_.drive(cycle_);
  rtl_->eval();
  if (sampling_ && cycle_ >= cycle0_) sample_probes();
  if (lite_.sample(cycle_)) end_register_access();
  axi_.sample(cycle_);
  if (!axi_.error().empty()) kernel_error_ = axi_.error();
  if (running_ && cycle_ >= cycle0_ && rtl_->value(irq_)) {
    running_ = false;
    last_cycles_ = cycle_ - cycle0_;
    done_at_ = period_ * static_cast<double>(cycle_);
    done_event_.notify(done_at_ - sc_core::sc_time_stamp());
  }
  rtl_->clock();
  ++cycle_;
  ++clocked_;
}

// As the Verilator harness samples them: after the cycle's inputs settled, as kernel cycles.
void VerilatedCore::sample_probes() {
  for (size_t i = 0; i < probe_words_.size(); ++i) {
    rtl_->read_probe(uint32_t(i), probe_words_[i].data());
    result_.probes[i].update(cycle_ - cycle0_, probe_words_[i].data());
  }
}

// The register access ended in this cycle: a start the register file took begins a kernel
// two cycles after its address handshake (the start pulse, then the controller leaves IDLE).
void VerilatedCore::end_register_access() {
  response_ = lite_.response();
  read_data_ = lite_.data();
  const uint32_t off = lite_.offset();
  if (lite_.write() && off == reg::kCtrl && (lite_.value() & 1) && !running_) {
    if (response_ == kOkay) {
      running_ = sampling_ = true;
      cycle0_ = lite_.taken() + 2;
    } else {
      refusal_ = descriptor_error(regs_, fused_);
      if (refusal_.empty()) refusal_ = "the RTL's register file refused it (core/kernel_regs.h finds no error)";
    }
  } else if (lite_.write() && response_ == kOkay && reg::register_at(off) && reg::register_at(off)->writable) {
    write_register(regs_, off, lite_.value());
  }
  access_done_.notify(period_ * static_cast<double>(cycle_ - now_cycle()));
}

void VerilatedCore::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const uint64_t off = trans.get_address();
  if (trans.get_data_length() != 4 || off >= lite_.address_space()) {  // not the slave's: the interconnect's DECERR
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  wait(delay);  // the access starts at the host's time
  delay = sc_core::SC_ZERO_TIME;
  uint32_t value = 0;
  if (trans.is_write()) std::memcpy(&value, trans.get_data_ptr(), 4);
  lite_.begin(trans.is_write(), uint32_t(off), value);
  wake_.notify();
  wait(access_done_);
  if (trans.is_read()) std::memcpy(trans.get_data_ptr(), &read_data_, 4);
  trans.set_response_status(response_ == kOkay     ? tlm::TLM_OK_RESPONSE
                            : response_ == kDecErr ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                                   : tlm::TLM_GENERIC_ERROR_RESPONSE);  // SLVERR
}

bool VerilatedCore::transport(bool write, uint64_t handshake, uint64_t addr, uint8_t* data, uint32_t bytes,
                              uint64_t& end) {
  const uint64_t now = now_cycle();
  FSGEN_ASSERT(handshake >= now, "a burst handed to the memory after its address handshake");
  sc_time delay = period_ * static_cast<double>(handshake - now);
  if (!transport_burst(memory_socket, write, addr, data, bytes, delay)) return false;
  end = static_cast<uint64_t>((sc_core::sc_time_stamp() + delay) / period_ + 0.5);
  return true;
}

}  // namespace fsgen
