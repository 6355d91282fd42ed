// SystemC/TLM-2.0 models of the fused core's blocks, instantiated from the graph.
//
// Timing follows the RTL cycle for cycle (the contract is in fsgen_ctrl.v and
// src/core/memory_timing.h): the controller advances time by whole phases instead
// of ticking, and the PE array computes a cycle as one vector operation. Each
// probed register reports its new value with the cycle it appears in, so toggle
// counts (and their cycles) match the RTL's.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <systemc>
#include <tlm>
#include <vector>

#include "blocks/ctrl/row_transfers.h"
#include "blocks/ctrl/sequencer.h"
#include "blocks/softmax/model.h"
#include "core/memory_timing.h"
#include "generator/graph.h"
#include "models/kernel_regs.h"
#include "models/rtl_ports.h"
#include "models/run_result.h"

namespace fsgen {

// Converts simulation time to kernel cycles (cycle 0 = first busy cycle).
struct CycleClock {
  sc_core::sc_time period;
  sc_core::sc_time origin;
  uint64_t cycle_at(const sc_core::sc_time& t) const { return static_cast<uint64_t>((t - origin) / period); }
};

// Off-chip memory: a TLM-2.0 target with the spec's latency and bandwidth. One
// transaction is one AXI burst, loosely timed: the delay it is called with runs from now
// to the burst's address handshake cycle, and it returns with the delay to its last read
// beat's cycle (its read data channel shared by the bursts in flight, ReadDataChannel) or
// to its write response's cycle.
class MemoryTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MemoryTarget> socket;
  MemoryTarget(sc_core::sc_module_name name, MemoryTiming timing, sc_core::sc_time period, uint64_t bytes);
  std::vector<uint8_t>& data() { return data_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  MemoryTiming timing_;
  sc_core::sc_time period_;
  ReadDataChannel reads_;
  std::vector<uint8_t> data_;
};

// One AXI burst as a TLM-2.0 transaction through `memory` (MemoryTarget's contract): `delay` runs
// from now to its address handshake going in, to its last read beat or its write response
// coming out; false when the memory refuses it (an address outside it).
bool transport_burst(tlm::tlm_initiator_socket<>& memory, bool write, uint64_t addr, uint8_t* data, uint32_t bytes,
                     sc_core::sc_time& delay);
// The kernel's error when the memory refuses a DMA burst.
std::string refused_burst(bool write, uint64_t addr, uint32_t bytes);

// DMA engine (fsgen_dma.v) over a TLM-2.0 initiator socket (the AXI4 master): takes the
// controller's commands as the RTL does (DmaReads / DmaWrites: up to `outstanding` bursts in
// flight) and moves each burst as one transaction, issued ahead of simulation time at its
// address handshake (temporal decoupling: nothing else writes the memory meanwhile).
class DmaRtlModel;
class Dma : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Dma> socket;
  Dma(sc_core::sc_module_name name, MemoryTiming timing, const CycleClock& clock, ToggleProbe& rdata,
      ToggleProbe& wdata, BlockActivity& activity, BlockTimeline& timeline);
  ~Dma() override;
  // A mixed-level run: the commands taken by the DMA's Verilated RTL (blocks/dma/model_rtl.h,
  // `tag_bits`: its read tags' width) instead of its timing model.
  void use_rtl(const RtlPortsMaker& make, uint32_t tag_bits, bool keep_events);
  std::vector<RtlBlockRun> rtl_block_runs();

  // A command offered in kernel cycle `cycle` (at or after the current one): returns the
  // cycle it is taken in. Read data is in `dst` on return.
  uint64_t read(uint64_t cycle, uint32_t addr, uint32_t beats, uint8_t* dst);
  uint64_t write(uint64_t cycle, uint32_t addr, uint32_t beats, const uint8_t* src);
  // The first cycle from `cycle` on with no read (write) burst in flight.
  uint64_t reads_idle_from(uint64_t cycle) const;
  uint64_t writes_idle_from(uint64_t cycle) const;
  // A kernel begins: its cycle 0 is now, with no burst in flight; it has ended (its busy
  // cycles are counted).
  void begin_kernel();
  void end_kernel();

 private:
  // The burst's transaction with its address handshake in kernel cycle `handshake`: returns
  // the kernel cycle of its last read beat or its write response.
  uint64_t transport(bool write, uint64_t handshake, uint32_t addr, uint32_t beats, uint8_t* data);
  void count(uint64_t taken, uint64_t first_beat, uint32_t beats, const uint8_t* data);
  ReadBurst model_read(uint64_t cycle, uint32_t addr, uint32_t beats, uint8_t* dst);
  WriteBurst model_write(uint64_t cycle, uint32_t addr, uint32_t beats, const uint8_t* src);
  MemoryTiming timing_;
  const CycleClock& clock_;
  ToggleProbe& rdata_;
  ToggleProbe& wdata_;
  BlockActivity& activity_;
  BlockTimeline& timeline_;
  DmaReads reads_;
  DmaWrites writes_;
  InFlightSpans in_flight_;
  std::unique_ptr<DmaRtlModel> rtl_;
};

class PeArrayModel;
struct AccTile;

// Controller, operand buffers, PE array, accumulator cache and requantiser of the
// fused core: the controller's schedule (TileSequencer) runs in one process, and each
// phase moves data through the DMA and the PE array models, cycle by cycle.
class FusedCore : public sc_core::sc_module, private TileSequencer {
 public:
  SC_HAS_PROCESS(FusedCore);
  // rtl: the arrays a mixed-level run simulates as their Verilated RTL (array_a, array_b).
  FusedCore(sc_core::sc_module_name name, const Graph& g, Dma& dma, CycleClock& clock, RunResult& result,
            const RtlBlockMakers& rtl = {});
  ~FusedCore() override;
  // What the RTL blocks recorded (RunResult::rtl_blocks), once the run is over.
  std::vector<RtlBlockRun> rtl_block_runs();

  void start(const KernelRegs& regs);  // called by the CSR block; the kernel begins two cycles later
  bool busy() const { return busy_; }
  bool done() const { return done_; }  // sticky until the next start (the irq line)
  uint64_t last_cycles() const { return last_cycles_; }
  // What stopped the last kernel ("" when it ran to its end): a DMA burst's bus error.
  const std::string& kernel_error() const { return kernel_error_; }
  sc_core::sc_event done_event;

 private:
  void run();
  void sync();
  uint64_t now() const;  // current kernel cycle including time not yet waited for
  uint8_t* buffer(BufferSlot s);
  const uint8_t* b_slot_data(uint32_t slot) const;

  // TileSequencer hooks (core_model.cpp: matmul; attention_model.cpp: fused kernels)
  void advance(uint64_t cycles) override { pending_ += cycles; }
  uint64_t cursor() const override { return now(); }
  void set_cursor(uint64_t cycle) override;
  void load_rows(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes, BufferSlot dst,
                 LoadEnd end) override;
  uint64_t reads_done_from() const override { return dma_.reads_idle_from(0); }
  void zero_rows(BufferSlot dst, uint32_t from, uint32_t rows, uint32_t row_bytes) override;
  void load_compressed_rows(uint32_t meta_addr, uint32_t meta_bytes, uint32_t addr, uint32_t stride, uint32_t rows,
                            uint32_t row_bytes, BufferSlot dst) override;
  void matmul_tile(bool reload_stationary, uint32_t kt, uint32_t acc_slot, uint32_t a_slot, uint32_t b_slot) override;
  void store_tile(uint32_t mt, uint32_t nt) override;
  void activate_row_on_store(uint32_t r, uint64_t read_cycle);
  void scores(bool reload_stationary, uint32_t b_slot, uint32_t head_tile) override;
  void softmax(uint32_t q0, uint32_t j0, bool first_kv) override;
  int32_t key_tile_score(uint32_t rows) override;
  void activation(uint32_t j0, bool gate_pass) override;
  void update_o(bool first_kv, uint32_t b_slot) override;
  void hold_activations() override;
  void activation_pass(AccTile acc, uint32_t j0, bool gate_pass);
  void activate_row(uint64_t cycle, uint32_t i, uint32_t j0, bool gate_pass);
  SoftmaxSettings softmax_settings() const;
  void load_softmax_row(uint64_t cycle, uint32_t i, AccTile acc);
  void end_softmax_pass(uint64_t c0, bool gate_pass);
  void write_factor(uint64_t cycle, uint32_t row, uint32_t alpha);
  void store_o_rows(uint32_t h, uint32_t q0, uint32_t rows, uint32_t block, uint32_t x_slot) override;
  // The DMA as a row transfer sees it (blocks/ctrl/row_transfers.h): row r of a load from
  // addr + r * stride into dst + r * row_bytes; of a store from src to row_addr(r).
  RowDma dma_reads(uint32_t addr, uint32_t stride, uint32_t beats, uint8_t* dst, uint32_t row_bytes);
  RowDma dma_writes(const std::function<uint32_t(uint32_t)>& row_addr, uint32_t beats, const uint8_t* src);
  void end_transfer(uint64_t last);

  Dma& dma_;
  CycleClock& clock_;
  RunResult& result_;
  KernelRegs start_regs_{};
  bool busy_ = false;
  bool done_ = false;
  uint64_t last_cycles_ = 0;
  std::string kernel_error_;
  uint64_t pending_ = 0;
  sc_core::sc_event start_event_;
  std::vector<uint8_t> buf_a_, buf_b_;  // buf_b_: slot 0, then the K and V cache slots
  BlockActivity& buf_a_activity_;
  BlockActivity& buf_b_activity_;
  // The operand buffer a load into `dst` writes (nullptr: the LUT and the pooled key are not one).
  BlockActivity* buffer_activity(BufferSlot dst);
  std::vector<int32_t> acc_cache_;  // accumulator cache: acc_slots output tiles
  int32_t* tile_ptr_ = nullptr;      // the current output tile's slot in it
  std::vector<int32_t> acc_row_;
  std::vector<int8_t> out_row_;
  struct RtlInstance {
    std::string block;
    std::unique_ptr<RtlPorts> ports;
    std::unique_ptr<RtlBlockMonitor> monitor;
  };
  // The block's Verilated module (one per block: array b's matmul mode drives the same
  // instance as its attention mode); null when `rtl` does not name it.
  RtlInstance* rtl_instance(const std::string& block, const RtlBlockMakers& rtl);
  std::vector<RtlInstance> rtl_instances_;  // declared before the models that drive them: destroyed after them
  std::unique_ptr<PeArrayModel> array_a_, array_b_;
  std::unique_ptr<PeArrayModel> array_b_matmul_;  // array b in matmul (Graph::matmul_on_both)
  // The model of an array: its cycle model, or its Verilated RTL when `rtl` names it.
  std::unique_ptr<PeArrayModel> make_array(const ArrayPlan& plan, RunResult& result, const std::string& block,
                                           const RtlBlockMakers& rtl);
  std::unique_ptr<SoftmaxUnitModel> softmax_unit_;
  ToggleProbe* rq_in_;
  ToggleProbe* rq_out_;
  // attention state: the score and O tiles of dot arrays a and b (output-stationary
  // arrays keep them in their PEs), P tile, per-row running max, sum and rescale factor
  std::vector<int32_t> s_acc_, o_acc_;
  std::vector<int8_t> p_buf_;
  std::vector<uint8_t> lut_;  // FFN activation table
  std::vector<uint8_t> pool_;  // block TopK: the pooled key of one key tile (head dim bytes)
  std::vector<int32_t> m_run_, l_run_;
  std::vector<uint32_t> alpha_;
  // The controller's factor registers (alpha_q), written only in the passes that rescale,
  // and array b's probe of them (an output-stationary array b's rescale multipliers).
  std::vector<uint32_t> alpha_q_;
  ToggleProbe* alpha_probe_ = nullptr;
  RegisterTrace* factor_trace_ = nullptr;  // the same registers' switching, for array b's power model
  std::vector<uint32_t> alpha_before_;     // alpha_q before the write being recorded
  std::vector<int32_t> s_row_, fin_in_;
  std::vector<uint8_t> p_row_, fin_out_;
  ToggleProbe *sm_in_ = nullptr, *sm_out_ = nullptr, *fin_in_probe_ = nullptr, *fin_out_probe_ = nullptr;
  BlockActivity* sm_activity_ = nullptr;  // the softmax unit's loads and score bytes
  BlockTimeline* sm_timeline_ = nullptr;
  // The normaliser's divisions (attention rows): busy in the cycle its divider takes the
  // row's running sum and in the next, which takes it away (the RTL's operand isolation).
  BlockTimeline* fin_timeline_ = nullptr;
  BlockTimeline* ctrl_timeline_ = nullptr;  // its loads of the activation table
};

// AXI4-Lite register file (fsgen_csr.v): a TLM-2.0 target for the host's register accesses.
// Configuration registers read back what was written (at their width); an offset with no
// register answers with an address error (DECERR), a write to status or cycles with a
// generic error (SLVERR), and so does a start whose descriptor is invalid (refused).
class Csr : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Csr> socket;
  // fused: the core runs the attention and FFN kernels (the fused datapath).
  Csr(sc_core::sc_module_name name, FusedCore& core, bool fused);
  // Why the last refused start was refused (descriptor_error), "" when none was.
  const std::string& refusal() const { return refusal_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  FusedCore& core_;
  bool fused_;
  std::string refusal_;
  KernelRegs regs_{};
  std::map<uint32_t, uint32_t> written_;  // configuration registers by offset, as read back
};

}  // namespace fsgen
