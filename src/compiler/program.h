// Program: the accelerator's real input, shared by the SystemC platform and the
// Verilated RTL. It is what a host driver does: preload off-chip memory, write
// AXI4-Lite registers in order (the last write starts the kernel), wait for the
// interrupt, then read the output regions back. Stored as versioned JSON
// (docs/PROGRAM.md); byte regions are hex strings.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace fsgen {

struct RegWrite {
  uint32_t offset;
  uint32_t value;
};

struct MemRegion {
  std::string name;
  uint64_t addr;
  std::vector<uint8_t> bytes;
};

struct OutputRegion {
  std::string name;
  uint64_t addr;
  uint64_t bytes;
};

// What a compiler materialises: the operands too (a runnable program), or only the
// layout (register writes and region addresses, all the fast model needs).
enum class Materialise { kOperands, kLayoutOnly };

struct Program {
  static constexpr int kVersion = 1;
  std::string design;  // design name the program was compiled for
  std::string kernel;  // human-readable kernel description
  std::vector<MemRegion> inputs;
  std::vector<RegWrite> writes;
  std::vector<OutputRegion> outputs;
  uint64_t memory_bytes() const;  // smallest off-chip memory that holds every region

  // Places regions one after another on 4 KiB boundaries from 4 KiB up; returns the
  // address as the 32-bit register value (UserError past the 32-bit address space).
  uint32_t add_input(const std::string& name, const std::vector<int8_t>& values);
  uint32_t add_output(const std::string& name, uint64_t bytes);
  // Reserves an input region's addresses without its data (a layout-only program).
  uint32_t reserve_input(const std::string& name, uint64_t bytes) { return reserve(bytes, name); }

 private:
  uint64_t next_free_ = 4096;
  uint32_t reserve(uint64_t bytes, const std::string& name);
};

void save_program(const Program& p, const std::string& path);
Program load_program(const std::string& path);

}  // namespace fsgen
