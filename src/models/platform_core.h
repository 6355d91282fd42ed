// The accelerator inside the SystemC platform, between the host's register bus and the
// memory: the models of its blocks (DMA, fused core, register file: models/core_model.h) or
// its Verilated RTL (models/rtl_core.h). The host's port (models/platform.cpp) sees it only
// through this interface.
#pragma once
#include <cstdint>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

#include "models/run_result.h"

namespace fsgen {

class PlatformCore {
 public:
  virtual ~PlatformCore() = default;
  // The AXI4-Lite register file's TLM-2.0 target, and the AXI4 master's binding to the memory.
  virtual tlm::tlm_target_socket<>& registers() = 0;
  virtual void bind_memory(tlm::tlm_target_socket<>& memory) = 0;
  // A kernel runs: from its accepted start until its done interrupt, in simulation time.
  virtual bool busy() const = 0;
  // Notified at the done interrupt's cycle (the irq line rises).
  virtual const sc_core::sc_event& done_event() const = 0;
  // Why the last refused start was refused (the descriptor's error).
  virtual std::string refusal() const = 0;
  // The last kernel's busy cycles (the cycles register).
  virtual uint64_t last_cycles() const = 0;
  // What stopped the last kernel ("" when it ran to its end): a DMA burst's bus error.
  virtual const std::string& kernel_error() const = 0;
  // What the RTL inside recorded (RunResult::rtl_blocks), once the run is over.
  virtual std::vector<RtlBlockRun> rtl_block_runs() = 0;
};

}  // namespace fsgen
