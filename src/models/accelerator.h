// The accelerator as host software sees it (docs/VP.md): its AXI4-Lite registers
// (core/regmap.h), the DRAM its DMA reads and writes, and its done interrupt. A driver
// (vp/driver.h) is written against this interface alone, so the same host code runs on
// every platform that implements it: the SystemC platform (models/platform.h), whose core is
// the models of its blocks, some of them Verilated RTL, or the whole core as RTL.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fsgen {

class Accelerator {
 public:
  virtual ~Accelerator() = default;
  // One AXI4-Lite access. An error response throws UserError naming the register: DECERR
  // for an offset with no register, SLVERR for a write to a read-only one.
  virtual void write_register(uint32_t offset, uint32_t value) = 0;
  virtual uint32_t read_register(uint32_t offset) = 0;
  // The host's accesses to the shared DRAM (its own port: they take no accelerator cycles);
  // UserError for bytes outside it.
  virtual void write_memory(uint64_t addr, const uint8_t* data, size_t bytes) = 0;
  virtual void read_memory(uint64_t addr, uint8_t* data, size_t bytes) = 0;
  virtual uint64_t memory_bytes() const = 0;
  // Blocks until the done interrupt (status bit 1) is up; returns at once when no kernel runs.
  virtual void wait_for_interrupt() = 0;
  // The host's time, in accelerator clock cycles since the platform started.
  virtual uint64_t now_cycles() = 0;
};

}  // namespace fsgen
