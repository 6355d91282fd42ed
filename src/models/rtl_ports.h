// A block's RTL seen from the platform through its ports: in a mixed-level run (fsgen
// simulate --rtl) the block's Verilated module (flow/rtl_block.h) stands in for its cycle
// model. The kind's RTL model (blocks/<kind>/model_rtl.cpp) drives the module's inputs at
// the cycles the controller model schedules, clocks it, and reads its outputs, which the
// platform then uses; the block's cycle model runs beside it as the reference, so the first
// output that differs is named with its cycle and port.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/run_result.h"

namespace fsgen {

class RtlPorts {
 public:
  virtual ~RtlPorts() = default;
  // The module's ports (clk and rst_n among them), in declaration order.
  struct PortInfo {
    std::string name;
    uint32_t width_bits;
    bool output;
  };
  virtual const std::vector<PortInfo>& ports() const = 0;
  // A port's index; throws UserError naming the module's source and the port when it has none.
  virtual uint32_t port(const std::string& name) const = 0;
  // An input's value: width_bits bits, little-endian bytes (bits above the width ignored).
  virtual void set_bytes(uint32_t port, const void* bytes) = 0;
  virtual void set(uint32_t port, uint64_t value) = 0;
  // An output's (or input's) value now, little-endian, (width_bits + 7) / 8 bytes.
  virtual void get(uint32_t port, void* bytes) = 0;
  // A whole core's probed registers (its design's probes.h, in Graph::probes() order), read
  // as they are now into (width + 31) / 32 words, little-endian; a block has none.
  virtual uint32_t probe_count() const = 0;
  virtual void read_probe(uint32_t index, uint32_t* words) = 0;
  // Settles the combinational logic after inputs changed.
  virtual void eval() = 0;
  // One clock cycle: the rising edge, then the falling edge.
  virtual void clock() = 0;
  // Reset held low over `cycles` cycles, then released.
  virtual void reset(uint32_t cycles) = 0;
  virtual const std::string& source() const = 0;  // the Verilog it was built from

  // A port of at most 64 bits, as a number.
  uint64_t value(uint32_t port) {
    uint64_t v = 0;
    get(port, &v);
    return v;
  }
};

// Throws UserError naming the module's source when the port is not `bits` wide (`what`: what it carries).
void expect_port_width(const RtlPorts& rtl, uint32_t port, uint32_t bits, const std::string& what);
// The port's index, refused as expect_port_width does unless it is `bits` wide (0: any width).
uint32_t port_of_width(const RtlPorts& rtl, const std::string& name, uint32_t bits, const std::string& what);

// The name a mixed-level run gives the whole core as RTL (fsgen simulate --rtl core).
inline constexpr const char* kWholeCore = "core";

// Makes the Verilated module of a block (each call a fresh instance).
using RtlPortsMaker = std::function<std::unique_ptr<RtlPorts>()>;
// The blocks a mixed-level run simulates as RTL, by block name.
using RtlBlockMakers = std::map<std::string, RtlPortsMaker>;

// What a kind's RTL model records while it drives the module: the module's ports' toggles
// (probes named like the model's: block, port) and the first output that differs from the
// reference model's.
class RtlBlockMonitor {
 public:
  // model_ports: the block's ports the model probes; only they are sampled (under their model
  // names, probe_as), the others' toggles having nothing to compare with. part: what of the
  // block the instance runs (RtlBlockRun::part), "" for all of it.
  RtlBlockMonitor(std::string block, RtlPorts& rtl, bool keep_events, std::vector<std::string> model_ports,
                  std::string part = "");
  // Samples every port (after the caller set the inputs of the coming edge, and after each
  // edge for the outputs) as holding its value from `cycle` on.
  void sample(uint64_t cycle);
  // The same for the inputs only, or the outputs only (at cycle + their lag: probe_as).
  void sample_inputs(uint64_t cycle);
  void sample_outputs(uint64_t cycle);
  // Records RTL port `rtl_port` as the model's probe `model_port` of the block, `lag` cycles
  // after the cycle it is sampled in (where the model probes the register the port feeds).
  void probe_as(const std::string& rtl_port, const std::string& model_port, uint32_t lag);
  // Records the first mismatch only: an output's value in `cycle` against the model's.
  void mismatch(uint64_t cycle, const std::string& port, const std::string& what, int64_t rtl, int64_t model);
  void clocked(uint64_t cycles) { run_.clocked_cycles += cycles; }
  // A port whose toggles compare with the model's in total only (RtlBlockRun::totals_only).
  void totals_only(const std::string& port);
  RtlBlockRun finish() &&;

 private:
  void sample_port(uint32_t port, uint64_t cycle);
  const std::vector<uint32_t>& sampled();  // the ports the model probes, fixed at the first sample
  RtlPorts& rtl_;
  RtlBlockRun run_;
  std::vector<std::string> model_ports_;
  std::vector<uint32_t> sampled_;
  bool sampling_ = false;
  std::vector<uint32_t> lag_;
  std::vector<uint8_t> value_;
};

}  // namespace fsgen
