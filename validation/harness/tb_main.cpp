// Verilator testbench for a generated fsgen design.
//
// Runs a Program on the Verilated RTL the way the SystemC platform runs it: an
// AXI4-Lite host issues the program's register writes, a C++ AXI4 memory with the
// timing of src/core/memory_timing.h serves the DMA, and the probed registers
// listed in the design's probes.h are sampled every cycle for toggles.
//
// usage: fsgen_tb <program.json> <result.bin> [--no-probes] [--max-cycles N] [--vcd FILE]
// --vcd (a build with FSGEN_TRACE): a VCD of every signal from the kernel's cycle 0 on,
// kernel cycle c at times 2c (inputs of the cycle, after the falling edge) and 2c + 1.
#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "Vfsgen_top.h"
#include "Vfsgen_top___024root.h"
#include "compiler/program.h"
#include "core/error.h"
#include "core/memory_timing.h"
#include "core/regmap.h"
#include "models/run_result.h"
#include "probes.h"
#include "verilated.h"
#ifdef FSGEN_TRACE
#include "verilated_vcd_c.h"
#endif

namespace {

using fsgen::MemoryTiming;

// Little-endian copies between Verilator signals (any width) and byte buffers.
template <typename T>
void get_bytes(const T& sig, uint8_t* out, size_t n) { std::memcpy(out, &sig, n); }
template <typename T>
void set_bytes(T& sig, const uint8_t* in, size_t n) { std::memcpy(&sig, in, n); }

class AxiMemory {
 public:
  AxiMemory(MemoryTiming t, size_t bytes) : timing_(t), channel_(t), mem_(bytes, 0), last_rdata_(t.beat_bytes, 0) {}
  std::vector<uint8_t>& data() { return mem_; }

  // Drive the slave outputs for cycle c (before the design settles).
  void drive(Vfsgen_top* top, uint64_t c) {
    top->m_arready = 1;
    top->m_awready = 1;
    top->m_wready = 1;
    top->m_rresp = 0;
    top->m_bresp = 0;
    const bool beat = !reads_.empty() && reads_.front().cycle <= c;
    top->m_rvalid = beat;
    top->m_rlast = beat && reads_.front().last;
    if (beat) last_rdata_ = reads_.front().data;
    set_bytes(top->m_rdata, last_rdata_.data(), timing_.beat_bytes);
    top->m_bvalid = !bresp_.empty() && bresp_.front() <= c;
  }

  // Observe the handshakes of cycle c (after the design settled, before the clock edge).
  void sample(Vfsgen_top* top, uint64_t c) {
    const uint32_t w = timing_.beat_bytes;
    if (top->m_arvalid && top->m_arready) {
      const uint32_t beats = top->m_arlen + 1u;
      const uint64_t first = channel_.book(c, beats);
      for (uint32_t i = 0; i < beats; ++i) {
        const uint64_t addr = uint64_t(top->m_araddr) + uint64_t(i) * w;
        if (addr + w > mem_.size()) fsgen::fail("rtl memory", "read outside memory at " + std::to_string(addr));
        reads_.push_back({first + i, std::vector<uint8_t>(mem_.begin() + addr, mem_.begin() + addr + w),
                          i + 1 == beats});
      }
    }
    if (top->m_rvalid && top->m_rready) reads_.pop_front();
    if (top->m_awvalid && top->m_awready) {
      waddr_ = top->m_awaddr;
      wbeat_ = 0;
    }
    if (top->m_wvalid && top->m_wready) {
      const uint64_t addr = waddr_ + uint64_t(wbeat_++) * w;
      if (addr + w > mem_.size()) fsgen::fail("rtl memory", "write outside memory at " + std::to_string(addr));
      get_bytes(top->m_wdata, mem_.data() + addr, w);
      if (top->m_wlast) bresp_.push_back(c + timing_.latency_cycles);
    }
    if (top->m_bvalid && top->m_bready) bresp_.pop_front();
  }

 private:
  struct Beat {
    uint64_t cycle;
    std::vector<uint8_t> data;
    bool last;
  };
  MemoryTiming timing_;
  fsgen::ReadDataChannel channel_;  // bursts in AR order, their beats back to back
  std::vector<uint8_t> mem_;
  std::vector<uint8_t> last_rdata_;
  std::deque<Beat> reads_;
  std::deque<uint64_t> bresp_;
  uint64_t waddr_ = 0;
  uint32_t wbeat_ = 0;
};

struct Probe {
  fsgen::ToggleProbe* probe;
  size_t bytes;
  std::function<void(uint8_t*)> read;
};

}  // namespace

namespace {
int run(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <program.json> <result.bin> [--no-probes] [--max-cycles N] [--vcd FILE]\n", argv[0]);
    return 2;
  }
  bool probes_on = true;
  uint64_t max_cycles = 200000000ull;
  const char* vcd_path = nullptr;
  for (int i = 3; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-probes")) probes_on = false;
    else if (!std::strcmp(argv[i], "--max-cycles") && i + 1 < argc) max_cycles = std::stoull(argv[++i]);
    else if (!std::strcmp(argv[i], "--vcd") && i + 1 < argc) vcd_path = argv[++i];
  }
  try {
    const fsgen::Program prog = fsgen::load_program(argv[1]);
    MemoryTiming timing{FSGEN_LATENCY, FSGEN_BEAT_BYTES};
    AxiMemory mem(timing, prog.memory_bytes());
    for (const auto& in : prog.inputs) std::memcpy(mem.data().data() + in.addr, in.bytes.data(), in.bytes.size());

    VerilatedContext ctx;
#ifdef FSGEN_TRACE
    ctx.traceEverOn(true);
#endif
    auto top = std::make_unique<Vfsgen_top>(&ctx);
#ifdef FSGEN_TRACE
    std::unique_ptr<VerilatedVcdC> vcd;
    if (vcd_path) {
      vcd = std::make_unique<VerilatedVcdC>();
      top->trace(vcd.get(), 99);
      vcd->open(vcd_path);
    }
#else
    if (vcd_path) fsgen::fail("--vcd", "this harness was built without tracing");
#endif
    fsgen::RunResult result;
    result.model = "verilator";
    std::vector<Probe> probes;
#define FSGEN_ADD_PROBE(block, port, width, expr) \
  result.probes.emplace_back(block, port, width, true);
    FSGEN_PROBES(FSGEN_ADD_PROBE)
    size_t pi = 0;
#define FSGEN_BIND_PROBE(block, port, width, expr) \
  probes.push_back({&result.probes[pi++], (width + 7) / 8, [&top](uint8_t* out) { get_bytes(expr, out, (width + 7) / 8); }});
    FSGEN_PROBES(FSGEN_BIND_PROBE)
    std::vector<uint8_t> scratch(4096);

    uint64_t cycle = 0;
    size_t next_write = 0;
    int64_t cycle0 = -1;
    bool read_issued = false, done = false;
    auto dump = [&](uint64_t half) {
#ifdef FSGEN_TRACE
      if (vcd && cycle0 >= 0 && int64_t(cycle) >= cycle0) vcd->dump(2 * (cycle - uint64_t(cycle0)) + half);
#else
      (void)half;
#endif
    };
    auto tick = [&](bool sample_probes) {
      top->clk = 0;
      mem.drive(top.get(), cycle);
      top->eval();
      dump(0);
      if (sample_probes && cycle0 >= 0 && int64_t(cycle) >= cycle0)
        for (auto& p : probes) {
          p.read(scratch.data());
          p.probe->update(cycle - uint64_t(cycle0), scratch.data());
        }
      mem.sample(top.get(), cycle);
      top->clk = 1;
      top->eval();
      dump(1);
      ++cycle;
    };

    top->rst_n = 0;
    for (int i = 0; i < 4; ++i) tick(false);
    top->rst_n = 1;
    top->s_bready = 1;
    top->s_rready = 1;
    const auto t0 = std::chrono::steady_clock::now();
    while (!done) {
      if (cycle > max_cycles) fsgen::fail("verilator", "no done interrupt within " + std::to_string(max_cycles) + " cycles");
      // AXI4-Lite host: one write at a time, then wait for irq and read the cycle counter.
      const bool writing = next_write < prog.writes.size();
      top->s_awvalid = writing;
      top->s_wvalid = writing;
      top->s_awaddr = writing ? prog.writes[next_write].offset : 0;
      top->s_wdata = writing ? prog.writes[next_write].value : 0;
      top->s_arvalid = !writing && top->irq && !read_issued;
      top->s_araddr = fsgen::reg::kCycles;
      top->clk = 0;
      top->eval();
      const bool wfire = top->s_awvalid && top->s_awready;
      const bool rfire = top->s_arvalid && top->s_arready;
      const bool rdone = top->s_rvalid;
      if (rdone && read_issued) {
        result.cycles = top->s_rdata;
        done = true;
      }
      if (wfire && next_write + 1 == prog.writes.size()) cycle0 = int64_t(cycle) + 2;
      tick(probes_on);
      if (wfire) ++next_write;
      if (rfire) read_issued = true;
    }
    result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& o : prog.outputs)
      result.outputs[o.name] = std::vector<uint8_t>(mem.data().begin() + o.addr, mem.data().begin() + o.addr + o.bytes);
    top->final();
#ifdef FSGEN_TRACE
    if (vcd) vcd->close();
#endif
    std::ofstream out(argv[2], std::ios::binary);
    out << fsgen::encode_run_result(result);
    if (!out) fsgen::fail(argv[2], "cannot write the result");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}

struct Args {
  int argc;
  char** argv;
  int status;
};
}  // namespace

// Verilated models of wide arrays keep large temporaries on the stack in their
// settle functions; run the simulation on a thread with a 1 GiB stack.
int main(int argc, char** argv) {
  Args args{argc, argv, 1};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(1) << 30);
  pthread_t thread;
  auto body = [](void* p) -> void* {
    auto* a = static_cast<Args*>(p);
    a->status = run(a->argc, a->argv);
    return nullptr;
  };
  if (pthread_create(&thread, &attr, body, &args) != 0) return run(argc, argv);
  pthread_join(thread, nullptr);
  return args.status;
}
