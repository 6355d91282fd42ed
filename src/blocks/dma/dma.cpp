// dma: the DMA with an AXI4 master to off-chip memory, driven by the controller's row
// commands: up to `outstanding` read bursts in flight, write bursts posted with as many
// responses outstanding, the read and write channels at once.
#include "blocks/block_kind.h"

namespace fsgen {

TestbenchDriver axi_dma_driver();  // testbench.cpp

namespace {
constexpr int kCharacterisedOutstanding = 8;  // the queue of bursts in flight: the spec's default

// Driven as in a design: a controller issues read and write bursts, an AXI slave answers
// them (testbench.cpp, "axi_dma"). Its alpha is measured on the buses the SystemC model
// probes (read data in, the write data register out); its enable is the data beats, its
// side enable the commands taken.
PrimitiveDef power_primitive() {
  PrimitiveDef d;
  d.kind = "dma", d.module = "fsgen_dma";
  // W: the data width in bytes; TAGW: the bits of a read burst's tag (where its beats go in
  // the controller's buffers: wider with larger buffers, llm_16x16's 15).
  d.params = {"W", "TAGW"};
  d.sizes = {{1, 11}, {2, 11}, {4, 11}, {8, 11}, {16, 11}, {4, 13}, {8, 13}, {16, 13}, {4, 15}, {8, 15}, {16, 15}};
  d.elements = [](const std::vector<int>& h) { return double(h[0]); };
  // Area and leakage: the fit's constant (address registers, beat counters), a write data
  // register byte per lane, and the tags of the queue of bursts in flight and of its head
  // burst (characterised at kCharacterisedOutstanding).
  d.size_terms = [](const std::vector<int>& h) {
    return std::vector<double>{double(h[0]), (kCharacterisedOutstanding + 1.0) * h[1]};
  };
  d.alpha_ports = {"m_rdata", "m_wdata"};
  d.driver = "axi_dma";
  d.side_enable = "commands";
  d.side_opens_burst = true;
  d.fixed = {{"OUT", kCharacterisedOutstanding}};
  return d;
}
}  // namespace

const BlockKind& dma_kind() {
  static const BlockKind kind = [] {
    BlockKind k;
    k.name = "dma";
    k.description = "DMA with an AXI4 master to off-chip memory, several bursts in flight";
    k.params = {{"beat_bytes", "byte", "AXI4 data width"},
                {"latency", "cycle", "off-chip access latency"},
                {"outstanding", "burst", "read bursts in flight and write responses outstanding"}};
    k.ports = {{"rdata", false, "AXI4 read data from memory"}, {"wdata", true, "AXI4 write data to memory"}};
    k.statistics = {{"busy_cycles", "cycle", "cycles with a burst in flight (address handshake to last read beat or write response)"},
                    {"operand_bytes", "byte", "bytes moved to and from memory"}};
    k.rtl_files = {"fsgen_dma.v"};
    k.module = "fsgen_dma";
    k.systemc_model = "src/models/core_model.h (Dma, MemoryTarget)";
    k.power = power_primitive();
    k.testbench = axi_dma_driver();
    return k;
  }();
  return kind;
}

}  // namespace fsgen
