// The DMA's gate-level testbench driver ("axi_dma").
#include <sstream>

#include "blocks/testbench_driver.h"

namespace fsgen {

namespace {

// The DMA's testbench (driver "axi_dma"): a controller issues bursts of 1 to B beats to
// sequential addresses, a quarter of them writes (B = 1, 2, 4, ... 32 as the seed counts
// through the stimulus grid, so that the points cover a design's short and long bursts);
// an AXI slave accepts addresses at once, gives the first read beat `latency` (1-8, drawn
// per burst) cycles after the address handshake and one beat per cycle after it, takes
// write beats every cycle and answers the response `latency` cycles after the last. Read
// data changes in read beats, write data in the cycles the DMA takes it
// (drive_data_port); enabled cycles are the data beats, side cycles those a command is
// taken in. After each burst the controller waits so that the DMA is busy about
// enable_rate of the cycles: in every idle cycle it issues with probability
// 1 / (1 + mean gap), the mean gap being the last burst's cycles x (1 - enable_rate) /
// enable_rate.
std::string axi_dma_cycle(const TestbenchPorts& ports) {
  const size_t data_bits = ports.at("m_rdata");
  std::ostringstream o;
  o << "    top->rst_n = c >= " << kTestbenchResetCycles << ";\n"
    << "    top->cmd_valid = 0;\n"
    << "    if (busy) ++burst_cycles;\n"
    << "    else if (c >= " << kTestbenchResetCycles
    << " && issue(rng, std::bernoulli_distribution::param_type(1.0 / (1.0 + mean_gap)))) {\n"
    << "      const uint32_t beats = beats_of(rng);\n"
    << "      top->cmd_valid = 1; top->cmd_write = write_of(rng); top->cmd_addr = addr; top->cmd_beats = beats;\n"
    << "      ++side;\n"
    << "      addr += beats * " << data_bits / 8 << "u;\n"
    << "      wait = latency_of(rng) - 1; busy = true; burst_cycles = 0;\n    }\n"
    << "    top->m_arready = top->m_arvalid;\n    top->m_awready = top->m_awvalid;\n"
    << "    top->m_wready = top->m_wvalid;\n"
    << "    top->m_rvalid = top->m_rready && wait == 0;\n"
    << "    top->m_bvalid = top->m_bready && wait == 0;\n"
    << "    if ((top->m_rready || top->m_bready) && wait > 0) --wait;\n"
    << "    const bool read_beat = top->m_rvalid, write_beat = top->m_wvalid;\n"
    << "    enabled += read_beat || write_beat;\n"
    << "    if (read_beat)\n"
    << drive_data_port("m_rdata", data_bits) << "    if (top->m_awvalid || write_beat)\n"
    << drive_data_port("wr_data", data_bits) << "    if (top->cmd_done) {\n      busy = false;\n"
    << "      mean_gap = enable_rate >= 1 ? 0.0 : double(burst_cycles + 1) * (1 - enable_rate) / enable_rate;\n    }\n";
  return o.str();
}

std::string axi_dma_declarations(const TestbenchPorts&) {
  return "  std::bernoulli_distribution issue, write_of(0.25);\n"
         "  std::uniform_int_distribution<uint32_t> beats_of(1, 1u << (seed % 6)), latency_of(1, 8);\n"
         "  bool busy = false;\n  uint32_t addr = 0, wait = 0;\n  uint64_t burst_cycles = 0;\n  double mean_gap = 0;\n";
}

}  // namespace

TestbenchDriver axi_dma_driver() { return {"axi_dma", "", axi_dma_declarations, axi_dma_cycle, {}}; }

}  // namespace fsgen
