// A host driver for the accelerator (docs/VP.md), written against the Accelerator
// interface (models/accelerator.h) alone, so that the same host code runs on every platform:
// DRAM buffers, kernel launches through the AXI4-Lite registers, the done interrupt.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/program.h"
#include "models/accelerator.h"

namespace fsgen {

// A region of the accelerator's DRAM the driver handed out.
struct DeviceBuffer {
  uint64_t addr = 0, bytes = 0;
};

// A compiled kernel's run through the driver: its output regions by name and its cycles.
struct KernelRun {
  std::map<std::string, std::vector<uint8_t>> outputs;
  uint64_t cycles = 0;  // the cycles register: the kernel's busy cycles (low 32 bits)
};

class Driver {
 public:
  explicit Driver(Accelerator& device);

  // DRAM on 4 KiB boundaries from 4 KiB up (the zero page is never handed out); UserError
  // when no free range holds `bytes`. release() returns a buffer the driver handed out.
  DeviceBuffer allocate(uint64_t bytes, const std::string& what);
  void release(const DeviceBuffer& b);
  uint64_t free_bytes() const;
  void write(const DeviceBuffer& b, const std::vector<uint8_t>& bytes, uint64_t offset = 0);
  std::vector<uint8_t> read(const DeviceBuffer& b) const;

  // Programs the configuration registers in order, then starts the kernel (ctrl bit 0).
  void launch(const std::vector<RegWrite>& registers);
  // Waits for the done interrupt; returns the cycles register.
  uint64_t wait();

  // A compiled Program (compiler/program.h) on the device: each of its regions allocated
  // and its inputs written, its address registers moved onto the buffers, launched,
  // waited for, its outputs read back and its buffers released.
  KernelRun run(const Program& p);

  uint64_t launches() const { return launches_; }
  Accelerator& device() { return device_; }

 private:
  Accelerator& device_;
  std::map<uint64_t, uint64_t> free_;  // free ranges: address -> bytes
  uint64_t launches_ = 0;
};

}  // namespace fsgen
