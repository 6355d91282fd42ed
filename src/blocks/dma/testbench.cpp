// The DMA's gate-level testbench driver ("axi_dma").
#include <sstream>

#include "blocks/testbench_driver.h"

namespace fsgen {

namespace {

// The DMA's testbench (driver "axi_dma"): a controller issues bursts of 1 to B beats to
// sequential addresses, a quarter of them writes (B = 1, 2, 4, ... 32 as the seed counts
// through the stimulus grid, so that the points cover a design's short and long bursts),
// one burst at a time; an AXI slave accepts addresses at once, gives a read burst's first
// beat `latency` (1-8, drawn per burst) cycles after its address handshake and one beat per
// cycle after it, takes write beats every cycle and answers the response `latency` cycles
// after the last. Read data changes in read beats, write data in the cycles the DMA takes it
// (drive_data_port); enabled cycles are the data beats, side cycles those a command is
// taken in. A burst runs from its command until the DMA is idle again; after each the
// controller waits so that the DMA is busy about enable_rate of the cycles: in every idle
// cycle it issues with probability 1 / (1 + mean gap), the mean gap being the last burst's
// cycles x (1 - enable_rate) / enable_rate.
std::string axi_dma_cycle(const TestbenchPorts& ports) {
  const size_t data_bits = ports.at("m_rdata");
  std::ostringstream o;
  o << "    top->rst_n = c >= " << kTestbenchResetCycles << ";\n"
    << "    top->rcmd_valid = 0; top->wcmd_valid = 0; top->rcmd_tag = 0;\n"
    << "    if (busy) {\n      ++burst_cycles;\n"
    << "      if (top->rd_idle && top->wr_idle) {\n        busy = false;\n"
    << "        mean_gap = enable_rate >= 1 ? 0.0 : double(burst_cycles) * (1 - enable_rate) / enable_rate;\n"
    << "      }\n    }\n"
    << "    if (!busy && c >= " << kTestbenchResetCycles
    << " && issue(rng, std::bernoulli_distribution::param_type(1.0 / (1.0 + mean_gap)))) {\n"
    << "      const uint32_t beats = beats_of(rng);\n"
    << "      if (write_of(rng)) { top->wcmd_valid = 1; top->wcmd_addr = addr; top->wcmd_beats = beats; }\n"
    << "      else { top->rcmd_valid = 1; top->rcmd_addr = addr; top->rcmd_beats = beats; }\n"
    << "      ++side;\n"
    << "      addr += beats * " << data_bits / 8 << "u;\n"
    << "      latency = latency_of(rng); busy = true; burst_cycles = 0;\n    }\n"
    << "    top->m_arready = 1;\n    top->m_awready = 1;\n    top->m_wready = 1;\n"
    << "    if (top->m_arvalid) {\n"
    << "      const uint64_t first = std::max<uint64_t>(c + latency, read_free);\n"
    << "      read_free = first + top->m_arlen + 1;\n"
    << "      for (uint32_t i = 0; i <= top->m_arlen; ++i) read_beats.push_back(first + i);\n    }\n"
    << "    top->m_rvalid = !read_beats.empty() && read_beats.front() <= c;\n"
    << "    top->m_rlast = top->m_rvalid && read_beats.size() == 1;\n"
    << "    if (top->m_rvalid) read_beats.pop_front();\n"
    << "    top->m_bvalid = !responses.empty() && responses.front() <= c;\n"
    << "    if (top->m_bvalid) responses.pop_front();\n"
    << "    if (top->m_wvalid && top->m_wlast) responses.push_back(c + latency);\n"
    << "    const bool read_beat = top->m_rvalid, write_beat = top->m_wvalid;\n"
    << "    enabled += read_beat || write_beat;\n"
    << "    if (read_beat)\n"
    << drive_data_port("m_rdata", data_bits) << "    if (top->m_awvalid || write_beat)\n"
    << drive_data_port("wr_data", data_bits);
  return o.str();
}

std::string axi_dma_declarations(const TestbenchPorts&) {
  return "  std::bernoulli_distribution issue, write_of(0.25);\n"
         "  std::uniform_int_distribution<uint32_t> beats_of(1, 1u << (seed % 6)), latency_of(1, 8);\n"
         "  bool busy = false;\n  uint32_t addr = 0, latency = 1;\n  uint64_t burst_cycles = 0, read_free = 0;\n"
         "  std::deque<uint64_t> read_beats, responses;\n  double mean_gap = 0;\n";
}

}  // namespace

TestbenchDriver axi_dma_driver() {
  return {"axi_dma", "#include <algorithm>\n#include <deque>\n", axi_dma_declarations, axi_dma_cycle, {}};
}

}  // namespace fsgen
