// The whole core (fsgen_top: register file, controller, arrays, softmax unit, DMA) as its
// Verilated RTL inside the SystemC platform, in place of the models of its blocks (fsgen
// simulate --rtl core). The host's register accesses (TLM-2.0) become AXI4-Lite handshakes on
// its s_* pins (AxiLiteBridge), its AXI4 master reaches the platform's memory target through
// an AxiMasterBridge, its irq line is the done event, and the design's probed registers are
// sampled every cycle of a kernel as the Verilator harness samples them.
//
// One thread clocks the module. While a kernel runs or a bus transfer is open it runs ahead
// of simulation time by up to a quantum of cycles (temporal decoupling: the memory target is
// loosely timed, and the host waits for the interrupt); idle, it sleeps until the host's next
// access and then clocks the idle cycles up to the host's time.
#pragma once
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "generator/graph.h"
#include "models/axi_bridge.h"
#include "models/kernel_regs.h"
#include "models/platform_core.h"
#include "models/rtl_ports.h"
#include "models/run_result.h"

namespace fsgen {

class VerilatedCore : public sc_core::sc_module, public PlatformCore {
 public:
  tlm_utils::simple_target_socket<VerilatedCore> register_socket;
  tlm_utils::simple_initiator_socket<VerilatedCore> memory_socket;
  SC_HAS_PROCESS(VerilatedCore);
  // rtl: the design's fsgen_top built with its probes (RtlBlockSource::probes_header);
  // result: its probes, in Graph::probes() order, are the ones sampled.
  VerilatedCore(sc_core::sc_module_name name, const Graph& g, sc_core::sc_time period, RunResult& result,
                std::unique_ptr<RtlPorts> rtl, uint64_t quantum_cycles);

  tlm::tlm_target_socket<>& registers() override { return register_socket; }
  void bind_memory(tlm::tlm_target_socket<>& memory) override { memory_socket.bind(memory); }
  bool busy() const override;
  const sc_core::sc_event& done_event() const override { return done_event_; }
  std::string refusal() const override { return refusal_; }
  uint64_t last_cycles() const override { return last_cycles_; }
  const std::string& kernel_error() const override { return kernel_error_; }
  std::vector<RtlBlockRun> rtl_block_runs() override;

 private:
  void run();
  void reset();
  void tick();  // one clock cycle of the module, at cycle_
  void catch_up();
  void sync();
  bool quiet() const { return !running_ && !lite_.busy() && axi_.idle(); }
  uint64_t now_cycle() const;  // simulation time's cycle
  void sample_probes();
  void end_register_access();
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool transport(bool write, uint64_t handshake, uint64_t addr, uint8_t* data, uint32_t bytes, uint64_t& end);

  bool fused_;  // the register file takes the fused kernels
  sc_core::sc_time period_;
  RunResult& result_;
  std::unique_ptr<RtlPorts> rtl_;
  uint64_t quantum_;
  AxiMasterBridge axi_;
  AxiLiteBridge lite_;
  uint32_t irq_;
  std::vector<std::vector<uint32_t>> probe_words_;
  uint64_t cycle_ = 0;    // the module's next cycle: simulation time runs behind it by up to a quantum
  bool running_ = false;  // from an accepted start to the done interrupt
  uint64_t cycle0_ = 0;   // the running (or last) kernel's cycle 0
  bool sampling_ = false;
  sc_core::sc_time done_at_;  // the last done interrupt's time
  uint64_t last_cycles_ = 0;
  uint64_t clocked_ = 0;
  std::string refusal_, kernel_error_;
  uint32_t response_ = 0, read_data_ = 0;  // the last register access's
  KernelRegs regs_{};                      // the configuration written, for the reason of a refused start
  sc_core::sc_event wake_, access_done_, done_event_;
};

}  // namespace fsgen
