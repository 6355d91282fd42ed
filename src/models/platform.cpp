#include "models/platform.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <systemc>

#include "core/error.h"
#include "core/regmap.h"
#include "core/window_series.h"
#include "models/core_model.h"

// The SystemC library expects an sc_main; fsgen drives the kernel itself.
int sc_main(int, char**) { return 0; }

using sc_core::sc_time;

namespace fsgen {

namespace {

// Drives the AXI4-Lite port like a host driver: the program's register writes,
// then waits for the done interrupt and reads back the cycle counter.
class Host : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Host> socket;
  SC_HAS_PROCESS(Host);
  Host(sc_core::sc_module_name name, const Program& p, FusedCore& core, sc_time period, RunResult& result)
      : sc_module(name), socket("socket"), program_(p), core_(core), period_(period), result_(result) {
    SC_THREAD(run);
  }

 private:
  uint32_t access(bool write, uint32_t offset, uint32_t value) {
    tlm::tlm_generic_payload t;
    sc_time delay = sc_core::SC_ZERO_TIME;
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(offset);
    t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    t.set_data_length(4);
    t.set_streaming_width(4);
    socket->b_transport(t, delay);
    wait(period_);
    return value;
  }
  void run() {
    for (const auto& w : program_.writes) access(true, w.offset, w.value);
    if (core_.busy()) wait(core_.done_event);
    // The cycles register holds the low 32 bits (what a driver reads); the run's count is
    // the core's own 64-bit one, so kernels beyond 2^32 cycles are counted whole.
    access(false, reg::kCycles, 0);
    result_.cycles = core_.last_cycles();
    // Nothing else is scheduled: the simulation ends when this process returns.
  }
  const Program& program_;
  FusedCore& core_;
  sc_time period_;
  RunResult& result_;
};

struct Platform {
  CycleClock clock;
  MemoryTarget memory;
  Dma dma;
  FusedCore core;
  Csr csr;
  Host host;
  Platform(const Graph& g, const Program& p, RunResult& r)
      : clock{sc_time(1000.0 / g.spec.clock_mhz, sc_core::SC_NS), sc_core::SC_ZERO_TIME},
        memory("memory", g.memory, clock.period, p.memory_bytes()),
        dma("dma", g.memory, clock, *r.find_probe("dma", "rdata"), *r.find_probe("dma", "wdata"), r.activity["dma"],
            r.timelines["dma"]),
        core("core", g, dma, clock, r),
        csr("csr", core),
        host("host", p, core, clock.period, r) {
    dma.socket.bind(memory.socket);
    host.socket.bind(csr.socket);
    for (const auto& in : p.inputs) std::memcpy(memory.data().data() + in.addr, in.bytes.data(), in.bytes.size());
  }
};

}  // namespace

RunResult run_on_systemc_in_process(const Graph& g, const Program& p, const SimOptions& opts) {
  RunResult r;
  r.model = "systemc";
  for (const auto& pr : g.probes()) r.probes.emplace_back(pr.block, pr.port, pr.width_bits, opts.keep_events);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  const auto t0 = std::chrono::steady_clock::now();
  auto platform = std::make_unique<Platform>(g, p, r);
  sc_core::sc_start();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& o : p.outputs)
    r.outputs[o.name] = std::vector<uint8_t>(platform->memory.data().begin() + o.addr,
                                             platform->memory.data().begin() + o.addr + o.bytes);
  return r;
}

namespace {

// The simulation process's answer on its pipe: a kind ('R' a run record, 'E' an error's
// text), the payload's length (8 bytes), the payload.
constexpr size_t kAnswerHeader = 9;

void write_all(int fd, const char* p, size_t bytes) {
  for (size_t off = 0; off < bytes;) {
    const ssize_t n = ::write(fd, p + off, bytes - off);
    if (n <= 0) _exit(3);
    off += static_cast<size_t>(n);
  }
}

void write_answer(int fd, char kind, const std::string& payload) {
  char header[kAnswerHeader] = {kind};
  const uint64_t bytes = payload.size();
  std::memcpy(header + 1, &bytes, 8);
  write_all(fd, header, kAnswerHeader);
  write_all(fd, payload.data(), payload.size());
}

// Reads up to `bytes` into p; returns how many came before the end of the pipe.
size_t read_up_to(int fd, char* p, size_t bytes) {
  size_t got = 0;
  while (got < bytes) {
    const ssize_t n = ::read(fd, p + got, bytes - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

}  // namespace

RunResult run_on_systemc(const Graph& g, const Program& p, const SimOptions& opts) {
  int fds[2];
  if (pipe(fds) != 0) fail("systemc", "cannot create a pipe for the simulation process");
  const pid_t pid = fork();
  if (pid < 0) fail("systemc", "cannot fork the simulation process");
  if (pid == 0) {
    ::close(fds[0]);
    std::string payload;
    char kind = 'R';
    try {
      payload = encode_run_result(run_on_systemc_in_process(g, p, opts));
    } catch (const std::exception& e) {
      kind = 'E', payload = e.what();
    }
    write_answer(fds[1], kind, payload);
    ::close(fds[1]);
    _exit(0);
  }
  ::close(fds[1]);
  char header[kAnswerHeader];
  uint64_t bytes = 0;
  const bool has_header = read_up_to(fds[0], header, kAnswerHeader) == kAnswerHeader;
  if (has_header) std::memcpy(&bytes, header + 1, 8);
  std::string data;
  if (has_header) {
    data.reserve(bytes);
    advise_huge_pages(data.data(), bytes);  // before the memory is first touched
    data.resize(bytes);
  }
  const bool whole = has_header && read_up_to(fds[0], data.data(), bytes) == bytes;
  ::close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!whole)
    fail("systemc", "the simulation process ended without a whole result (status " + std::to_string(status) + ")");
  if (header[0] == 'E') throw UserError(data);
  return decode_run_result(data);
}

}  // namespace fsgen
