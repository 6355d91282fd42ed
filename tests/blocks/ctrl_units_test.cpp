// The controller's shared sequencers (src/blocks/ctrl/) on their own, Verilated, against the
// timing the models charge for them: a pass of fsgen_ctrl_pass.v at an array plan's
// parameters lasts tile_cycles(plan, reload), phase by phase; a transfer of fsgen_ctrl_rows.v
// with the DMA and a memory behind it lasts what the models charge (row_transfers.h), with
// one burst in flight and with several, and every beat lands in its own row.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "blocks/ctrl/row_transfers.h"
#include "core/memory_timing.h"
#include "flow/tools.h"
#include "generator/graph.h"
#include "generator/rtl_library.h"
#include "generator/spec.h"
#include "test_util.h"

namespace fsgen {
namespace {
namespace fs = std::filesystem;

// Two passes back to back in one state (a dot array b's sub-tiles), the first with the
// stationary load, the second without; then a third after the state was left.
const char* kPassBench = R"(#include "Vfsgen_ctrl_pass.h"
#include <cstdio>
int main() {
  Vfsgen_ctrl_pass m;
  auto tick = [&] { m.clk = 0; m.eval(); m.clk = 1; m.eval(); };
  m.rst_n = 0; m.active = 0; m.load = 0; m.stream_end = 0;
  tick(); tick();
  m.rst_n = 1;
  for (int pass = 0; pass < 3; ++pass) {
    m.active = 1; m.load = pass == 0;
    int load = 0, stream = 0, tail = 0, first_k = -1;
    for (int c = 0; c < 1000; ++c) {
      m.clk = 0; m.eval();
      if (m.streaming && first_k < 0) first_k = m.k;
      load += m.loading; stream += m.streaming; tail += m.tailing;
      const bool last = m.last;
      m.clk = 1; m.eval();
      if (last) break;
    }
    std::printf("pass %d %d %d %d %d\n", pass, load, stream, tail, first_k);
    if (pass == 1) { m.active = 0; tick(); tick(); }
  }
  return 0;
}
)";

TEST(ControllerUnits, APassLastsTheArraysTileCycles) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  // Array a of the example's input-stationary core: a stationary load, a stream, a tail of two.
  const Graph g = elaborate(parse_spec_file(std::string(FSGEN_SOURCE_DIR) + "/examples/is_16x8.yaml"));
  const ArrayPlan& p = g.array_a;
  ASSERT_GT(p.stationary_rows, 0u);
  const std::string out = test::run_verilated_unit(
      "fsgen_ctrl_pass",
      {{"LOAD_ROWS", int(p.stationary_rows)}, {"STREAM", int(p.stream_cycles)}, {"TAIL", int(p.tail_cycles)}},
      kPassBench);
  std::istringstream in(out.substr(out.find("pass 0")));
  for (int pass = 0; pass < 3; ++pass) {
    std::string word;
    int n, load, stream, tail, first_k;
    in >> word >> n >> load >> stream >> tail >> first_k;
    ASSERT_EQ(n, pass) << out;
    const bool reload = pass == 0;
    EXPECT_EQ(uint64_t(load + stream + tail), tile_cycles(p, reload)) << "pass " << pass;
    EXPECT_EQ(load, reload ? int(p.stationary_rows) : 0) << "pass " << pass;
    EXPECT_EQ(stream, int(p.stream_cycles)) << "pass " << pass;
    EXPECT_EQ(tail, int(p.tail_cycles)) << "pass " << pass;
    EXPECT_EQ(first_k, 0) << "pass " << pass << ": the stream starts at step 0";
  }
}

// The row sequencer with the DMA (fsgen_dma.v, 2-byte beats) behind it: a row's command
// addresses it at the sequencer's offset (stride 256: r * 256, which the data checks carry), a
// store's data beat i of row r is r * 256 + i.
const char* kRowsDma = R"(module rows_dma #(parameter OUT = 1) (
    input wire clk, input wire rst_n, input wire active, input wire store, input wire [7:0] rows,
    input wire [7:0] beats, input wire skip,
    output wire issue, output wire last, output wire [7:0] row,
    output wire rd_valid, output wire [7:0] rd_tag, output wire [7:0] rd_beat, output wire [15:0] rd_data,
    output wire [31:0] m_araddr, output wire [7:0] m_arlen, output wire m_arvalid, input wire [15:0] m_rdata,
    input wire m_rvalid, output wire [31:0] m_awaddr, output wire m_awvalid, output wire [15:0] m_wdata,
    output wire m_wvalid, output wire m_wlast, input wire m_bvalid);
  wire rcmd_ready, wcmd_ready, rd_idle, w_free, wr_idle;
  wire [7:0] wr_beat;
  /* verilator lint_off UNUSEDSIGNAL */
  wire read, conv, rd_last;
  wire [2:0] arsize, awsize;
  wire [1:0] arburst, awburst;
  wire [7:0] awlen;
  wire [1:0] wstrb;
  wire rready, bready;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] offset;
  fsgen_ctrl_rows u_rows (.clk(clk), .rst_n(rst_n), .active(active), .store(store), .drain(1'b1), .clear(1'b0),
      .rows(rows), .stride(32'd256), .skip(skip), .cmd_ready(store ? wcmd_ready : rcmd_ready), .w_free(w_free),
      .idle(store ? wr_idle : rd_idle), .read(read), .conv(conv), .issue(issue), .last(last), .row(row),
      .offset(offset));
  fsgen_dma #(.W(2), .OUT(OUT), .TAGW(8)) u_dma (.clk(clk), .rst_n(rst_n), .rcmd_valid(issue && !skip && !store),
      .rcmd_addr(offset), .rcmd_beats(beats), .rcmd_tag(row), .rcmd_ready(rcmd_ready),
      .wcmd_valid(issue && store), .wcmd_addr(offset), .wcmd_beats(beats), .wcmd_ready(wcmd_ready),
      .rd_valid(rd_valid), .rd_beat(rd_beat), .rd_tag(rd_tag), .rd_last(rd_last), .rd_data(rd_data),
      .rd_idle(rd_idle), .wr_beat(wr_beat),
      .wr_data({row, wr_beat}), .w_free(w_free), .wr_idle(wr_idle),
      .m_araddr(m_araddr), .m_arlen(m_arlen), .m_arsize(arsize), .m_arburst(arburst), .m_arvalid(m_arvalid),
      .m_arready(1'b1), .m_rdata(m_rdata), .m_rresp(2'b00), .m_rlast(1'b0), .m_rvalid(m_rvalid), .m_rready(rready),
      .m_awaddr(m_awaddr), .m_awlen(awlen), .m_awsize(awsize), .m_awburst(awburst), .m_awvalid(m_awvalid),
      .m_awready(1'b1), .m_wdata(m_wdata), .m_wstrb(wstrb), .m_wlast(m_wlast), .m_wvalid(m_wvalid),
      .m_wready(1'b1), .m_bresp(2'b00), .m_bvalid(m_bvalid), .m_bready(bready));
endmodule
)";

// Transfers of `rows` rows of `beats` beats against a memory of `latency` cycles that serves
// read bursts in AR order with their beats back to back (its own code, not the models'):
// 6 loaded rows, 6 loaded rows with rows 1 and 2 skipped, 5 stored rows; each in a state of
// its own (active drops for a cycle between them). Per transfer: cycles, commands, the read
// beats whose data was not their row's, the write beats whose data was not their row's.
const char* kRowsBench = R"(#include "Vrows_dma.h"
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <algorithm>
int main(int argc, char** argv) {
  const unsigned latency = std::atoi(argv[1]), beats = std::atoi(argv[2]);
  Vrows_dma m;
  struct Beat { unsigned long long cycle; unsigned data; };
  std::deque<Beat> reads;
  std::deque<unsigned long long> responses;
  unsigned long long c = 0, free_from = 0;
  unsigned waddr = 0, wbeat = 0;
  m.rst_n = 0; m.active = 0; m.store = 0; m.rows = 0; m.beats = beats; m.skip = 0;
  auto cycle = [&](bool report) {
    m.clk = 0;
    m.m_rvalid = !reads.empty() && reads.front().cycle <= c;
    m.m_rdata = m.m_rvalid ? reads.front().data : 0;
    m.m_bvalid = !responses.empty() && responses.front() <= c;
    m.eval();
    int bad_read = m.rd_valid && m.rd_data != ((m.rd_tag << 8) | m.rd_beat * 2);
    int bad_write = 0;
    if (m.m_arvalid) {
      const unsigned long long first = std::max(c + latency, free_from);
      free_from = first + m.m_arlen + 1;
      for (unsigned i = 0; i <= m.m_arlen; ++i) reads.push_back({first + i, m.m_araddr + 2 * i});
    }
    if (m.m_rvalid) reads.pop_front();
    if (m.m_awvalid) { waddr = m.m_awaddr; wbeat = 0; }
    if (m.m_wvalid) {
      bad_write = m.m_wdata != ((waddr >> 8 << 8) | wbeat++);
      if (m.m_wlast) responses.push_back(c + latency);
    }
    if (m.m_bvalid) responses.pop_front();
    const bool last = m.last;
    m.clk = 1; m.eval();
    ++c;
    return report ? (last ? 1 : 0) | bad_read << 1 | bad_write << 2 : 0;
  };
  cycle(false); cycle(false);
  m.rst_n = 1;
  const int rows[3] = {6, 6, 5};
  for (int t = 0; t < 3; ++t) {
    m.active = 1; m.store = t == 2; m.rows = rows[t];
    int cycles = 0, commands = 0, bad_reads = 0, bad_writes = 0;
    for (int k = 0; k < 10000; ++k) {
      m.skip = t == 1 && (m.row == 1 || m.row == 2);
      m.clk = 0; m.eval();
      ++cycles;
      const int r = cycle(true);
      commands += m.m_arvalid || m.m_awvalid;
      bad_reads += r >> 1 & 1, bad_writes += r >> 2 & 1;
      if (r & 1) break;
    }
    m.active = 0;
    for (int k = 0; k < 3; ++k) cycle(false);
    std::printf("transfer %d %d %d %d %d\n", t, cycles, commands, bad_reads, bad_writes);
  }
  return 0;
}
)";

// The models' account of the bench's transfers (row_transfers.h on DmaReads / DmaWrites),
// each on an idle DMA and memory.
std::vector<uint64_t> model_transfer_cycles(const MemoryTiming& mem, uint32_t beats) {
  auto load = [&](const std::function<bool(uint32_t)>& skipped) {
    ReadDataChannel channel(mem);
    DmaReads reads(mem);
    return load_transfer_end(0, 6, skipped, timed_reads(reads, channel, beats)) + 1;
  };
  DmaWrites writes(mem);
  return {load(nullptr), load([](uint32_t r) { return r == 1 || r == 2; }),
          store_transfer_end(0, 5, beats, [](uint32_t, uint64_t) {}, timed_writes(writes, beats)) + 1};
}

void expect_transfers_as_modelled(uint32_t outstanding, uint32_t latency, uint32_t beats) {
  const std::string out = test::run_verilated_unit("rows_dma", {{"OUT", int(outstanding)}}, kRowsBench,
                                                   std::to_string(latency) + " " + std::to_string(beats),
                                                   {{"rows_dma.v", kRowsDma}}, {"fsgen_ctrl_rows.v", "fsgen_dma.v"});
  ASSERT_NE(out.find("transfer 0"), std::string::npos) << out;
  std::istringstream in(out.substr(out.find("transfer 0")));
  const std::vector<uint64_t> expected = model_transfer_cycles(MemoryTiming{latency, 2, outstanding}, beats);
  const int commands[3] = {6, 4, 5};
  for (int t = 0; t < 3; ++t) {
    std::string word;
    int n, cycles, issued, bad_reads, bad_writes;
    in >> word >> n >> cycles >> issued >> bad_reads >> bad_writes;
    ASSERT_EQ(n, t) << out;
    const std::string at = "OUT " + std::to_string(outstanding) + ", transfer " + std::to_string(t);
    EXPECT_EQ(uint64_t(cycles), expected[t]) << at;
    EXPECT_EQ(issued, commands[t]) << at;
    EXPECT_EQ(bad_reads, 0) << at << ": read beats land in their own rows";
    EXPECT_EQ(bad_writes, 0) << at << ": write beats carry their own rows";
  }
}

TEST(ControllerUnits, ATransferWithOneBurstInFlightLastsWhatTheModelsCharge) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  expect_transfers_as_modelled(1, 7, 2);
}

TEST(ControllerUnits, ATransferWithBurstsInFlightLastsWhatTheModelsCharge) {
  if (!test::have_tool("verilator")) GTEST_SKIP() << "verilator not installed (scripts/install-deps.sh)";
  expect_transfers_as_modelled(3, 11, 2);  // 3 bursts of 2 beats do not cover the latency: the slots decide
}

}  // namespace
}  // namespace fsgen
