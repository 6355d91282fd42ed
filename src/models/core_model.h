// SystemC/TLM-2.0 models of the fused core's blocks, instantiated from the graph.
//
// Timing follows the RTL cycle for cycle (the contract is in fsgen_ctrl.v and
// src/core/memory_timing.h): the controller advances time by whole phases instead
// of ticking, and the PE array computes a cycle as one vector operation. Each
// probed register reports its new value with the cycle it appears in, so toggle
// counts (and their cycles) match the RTL's.
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/memory_timing.h"
#include "generator/graph.h"
#include "models/run_result.h"

namespace fsgen {

// Converts simulation time to kernel cycles (cycle 0 = first busy cycle).
struct CycleClock {
  sc_core::sc_time period;
  sc_core::sc_time origin;
  uint64_t cycle_at(const sc_core::sc_time& t) const { return static_cast<uint64_t>((t - origin) / period); }
};

// Off-chip memory: a TLM-2.0 target with the spec's latency and bandwidth. One
// transaction is one AXI burst; the annotated delay is the burst's memory time.
class MemoryTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<MemoryTarget> socket;
  MemoryTarget(sc_core::sc_module_name name, MemoryTiming timing, sc_core::sc_time period, uint64_t bytes);
  std::vector<uint8_t>& data() { return data_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  MemoryTiming timing_;
  sc_core::sc_time period_;
  std::vector<uint8_t> data_;
};

// DMA engine: serves one burst command at a time from its own process, over a
// TLM-2.0 initiator socket (the AXI4 master).
class Dma : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Dma> socket;
  SC_HAS_PROCESS(Dma);
  Dma(sc_core::sc_module_name name, MemoryTiming timing, const CycleClock& clock, ToggleProbe& rdata,
      ToggleProbe& wdata, BlockActivity& activity);

  // Blocking, called from the controller's process in the cycle after its ISSUE cycle.
  void read(uint32_t addr, uint32_t beats, uint8_t* dst);
  void write(uint32_t addr, uint32_t beats, const uint8_t* src);

 private:
  struct Command {
    bool write;
    uint32_t addr;
    uint32_t beats;
    uint8_t* data;
  };
  void run();
  void burst(const Command& c);
  MemoryTiming timing_;
  const CycleClock& clock_;
  ToggleProbe& rdata_;
  ToggleProbe& wdata_;
  BlockActivity& activity_;
  Command cmd_{};
  sc_core::sc_event cmd_event_, done_event_;
};

// The register values a kernel launch programs (src/core/regmap.h).
struct KernelRegs {
  uint32_t kernel = 0;
  uint32_t tiles_m = 0, tiles_n = 0, tiles_k = 0;
  uint32_t addr_a = 0, addr_b = 0, addr_c = 0;
  uint32_t stride_a = 0, stride_b = 0, stride_c = 0;
  uint16_t req_mult = 0;
  uint8_t req_shift = 0;
  // attention (kernel 1)
  uint32_t addr_v = 0, addr_x = 0;
  uint16_t len_q = 0, len_kv = 0, heads = 0, group = 0, q_pos0 = 0;
  bool causal = false, residual = false;
  uint16_t score_mult = 0;
  uint8_t score_shift = 0;
  uint32_t head_stride_q = 0, head_stride_kv = 0;
  // FFN (kernel 2)
  bool gated = false;
  uint32_t addr_lut = 0, addr_w3 = 0;
  uint16_t gate_mult = 0, hid_mult = 0;
  uint8_t gate_shift = 0, hid_shift = 0;
};

class PeArrayModel;

// A K or V tile cache of the fused kernels (fsgen_ctrl.v, k_valid / v_valid): slot t of
// buf_b, from first_slot on, holds key tile t of KV head `tag`.
struct TileCache {
  std::string block;  // activity entry for hit / miss counts
  uint32_t first_slot = 0, tiles = 0;
  uint32_t tag = 0;
  std::vector<bool> valid;
};

// Controller, operand buffers, PE array, accumulator cache and requantiser of the
// fused core: the tile sequencer runs in one process and drives the DMA.
class FusedCore : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(FusedCore);
  FusedCore(sc_core::sc_module_name name, const Graph& g, Dma& dma, CycleClock& clock, RunResult& result);
  ~FusedCore() override;

  void start(const KernelRegs& regs);  // called by the CSR block; the kernel begins two cycles later
  bool busy() const { return busy_; }
  bool done() const { return done_; }  // sticky until the next start (the irq line)
  uint64_t last_cycles() const { return last_cycles_; }
  sc_core::sc_event done_event;

 private:
  void run();
  void run_kernel();
  void advance(uint64_t cycles) { pending_ += cycles; }
  void sync();
  uint64_t now() const;  // current kernel cycle including time not yet waited for
  void load_tile(bool is_a, uint32_t mt, uint32_t nt, uint32_t kt);
  void compute_tile(bool reload_stationary, uint32_t kt);
  void store_tile(uint32_t mt, uint32_t nt);
  // The fused attention / FFN datapath (attention_model.cpp), state for state as fsgen_ctrl.v.
  void run_fused();
  void attention_q_tile(uint32_t h, uint32_t hk, uint32_t q0);
  // One read burst per row (ISSUE, then the DMA): `rows` rows of `row_bytes` bytes,
  // `stride` bytes apart in memory from `addr`, packed into `buf`.
  void load_rows(uint32_t addr, uint32_t stride, uint32_t rows, uint32_t row_bytes, uint8_t* buf);
  void attention_scores(bool reload_stationary);
  // A_KT / A_VLD: point b_tile_ at key tile jt of KV head hk, loading its rows unless
  // the cache holds the tile.
  void fetch_kv_tile(TileCache& cache, uint32_t addr, uint32_t hk, uint32_t jt, uint32_t rows);
  void attention_softmax(uint32_t q0, uint32_t j0, bool first_kv);
  void ffn_activation(uint32_t j0, bool gate_pass);
  bool ffn() const { return regs_.kernel == 2; }
  void attention_update_o(bool first_kv);
  void attention_store(uint32_t h, uint32_t q0, uint32_t rows);

  const Graph& graph_;
  const ArrayPlan& plan_;
  Dma& dma_;
  CycleClock& clock_;
  RunResult& result_;
  KernelRegs regs_{};
  bool busy_ = false;
  bool done_ = false;
  uint64_t last_cycles_ = 0;
  uint64_t pending_ = 0;
  sc_core::sc_event start_event_;
  std::vector<uint8_t> buf_a_, buf_b_;  // buf_b_: slot 0, then the K and V cache slots
  uint8_t* b_tile_ = nullptr;           // the buf_b slot the fused datapath reads
  TileCache k_cache_, v_cache_;
  std::vector<int32_t> acc_cache_;  // accumulator cache: acc_slots output tiles
  int32_t* tile_ptr_ = nullptr;      // the current output tile's slot in it
  std::vector<int32_t> acc_row_;
  std::vector<int8_t> out_row_;
  std::unique_ptr<PeArrayModel> array_a_, array_b_;
  std::unique_ptr<PeArrayModel> array_b_matmul_;  // array b in matmul (Graph::matmul_on_both)
  uint32_t tile_n_ = 0;                           // columns of a matmul tile (Graph::matmul_tile_n)
  ToggleProbe* rq_in_;
  ToggleProbe* rq_out_;
  // attention state: the score and O tiles of dot arrays a and b (output-stationary
  // arrays keep them in their PEs), P tile, per-row running max, sum and rescale factor
  std::vector<int32_t> s_acc_, o_acc_;
  std::vector<int8_t> p_buf_;
  std::vector<uint8_t> lut_;  // FFN activation table
  std::vector<int32_t> m_run_, l_run_;
  std::vector<uint32_t> alpha_;
  std::vector<int32_t> s_row_, fin_in_;
  std::vector<uint8_t> p_row_, fin_out_;
  ToggleProbe *sm_in_ = nullptr, *sm_out_ = nullptr, *fin_in_probe_ = nullptr, *fin_out_probe_ = nullptr;
};

// AXI4-Lite register file: a TLM-2.0 target for the host's register accesses.
class Csr : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Csr> socket;
  Csr(sc_core::sc_module_name name, FusedCore& core);

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  FusedCore& core_;
  KernelRegs regs_{};
};

}  // namespace fsgen
