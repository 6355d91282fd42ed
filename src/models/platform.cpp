#include "models/platform.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <exception>
#include <functional>
#include <systemc>
// After the kernel's header, which it needs.
#include <tlm_utils/tlm_quantumkeeper.h>

#include "core/error.h"
#include "core/regmap.h"
#include "core/window_series.h"
#include "models/core_model.h"
#include "models/rtl_core.h"

// The SystemC library expects an sc_main; fsgen drives the kernel itself.
int sc_main(int, char**) { return 0; }

using sc_core::sc_time;

namespace fsgen {

namespace {

// The host's port on the platform: an SC_THREAD that runs the host code, its register
// accesses loosely timed through a quantum keeper (temporal decoupling: host time runs ahead
// of the simulation by up to a quantum), synchronised where the core must see the host's
// time: a start, a status read, an interrupt wait.
class HostPort : public sc_core::sc_module, public Accelerator {
 public:
  tlm_utils::simple_initiator_socket<HostPort> socket;
  SC_HAS_PROCESS(HostPort);
  HostPort(sc_core::sc_module_name name, const HostOptions& o, MemoryTarget& memory, PlatformCore& core, sc_time period,
           const std::function<void(Accelerator&)>& host)
      : sc_module(name), socket("socket"), memory_(memory), core_(core), period_(period), host_(host) {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(period * static_cast<double>(o.quantum_cycles));
    keeper_.reset();
    SC_THREAD(run);
    set_stack_size(o.stack_bytes);
  }
  std::exception_ptr error;  // what the host code threw

  void write_register(uint32_t offset, uint32_t value) override {
    if (offset == reg::kCtrl) keeper_.sync();  // the core starts at the host's time
    access(true, offset, value);
  }
  uint32_t read_register(uint32_t offset) override {
    keeper_.sync();
    return access(false, offset, 0);
  }
  void write_memory(uint64_t addr, const uint8_t* data, size_t bytes) override {
    std::memcpy(memory_bytes_at(addr, bytes, "write"), data, bytes);
  }
  void read_memory(uint64_t addr, uint8_t* data, size_t bytes) override {
    std::memcpy(data, memory_bytes_at(addr, bytes, "read"), bytes);
  }
  uint64_t memory_bytes() const override { return memory_.data().size(); }
  void wait_for_interrupt() override {
    keeper_.sync();
    if (core_.busy()) wait(core_.done_event());
  }
  uint64_t now_cycles() override { return static_cast<uint64_t>(keeper_.get_current_time() / period_); }

 private:
  uint32_t access(bool write, uint32_t offset, uint32_t value) {
    tlm::tlm_generic_payload t;
    sc_time delay = keeper_.get_local_time();
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(offset);
    t.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(t, delay);
    keeper_.set(delay + period_);  // one bus cycle per access
    if (keeper_.need_sync()) keeper_.sync();
    if (t.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE)
      fail("register " + hex_address(offset), "DECERR: no register at this AXI4-Lite address (core/regmap.h)");
    if (t.is_response_error())
      fail("register " + hex_address(offset) + " (" + reg::register_at(offset)->name + ")",
           "SLVERR: " + (offset == reg::kCtrl ? "the start is refused: " + core_.refusal()
                         : write              ? std::string("the register is read-only")
                                              : std::string("the read failed")));
    return value;
  }
  uint8_t* memory_bytes_at(uint64_t addr, size_t bytes, const char* what) {
    if (addr > memory_.data().size() || bytes > memory_.data().size() - addr)
      fail("DRAM " + hex_address(addr), std::string("host ") + what + " of " + std::to_string(bytes) +
                                            " bytes beyond the platform's " + std::to_string(memory_.data().size()) +
                                            " bytes of memory");
    return memory_.data().data() + addr;
  }
  void run() {
    try {
      host_(*this);
      keeper_.sync();
    } catch (...) {
      error = std::current_exception();
    }
    if (core_.busy()) sc_core::sc_stop();  // a kernel the host left running ends with it
  }
  MemoryTarget& memory_;
  PlatformCore& core_;
  sc_time period_;
  const std::function<void(Accelerator&)>& host_;
  tlm_utils::tlm_quantumkeeper keeper_;
};

// The core as the models of its blocks: DMA, fused core (controller, arrays, caches, softmax
// unit) and register file; in a mixed-level run the DMA, arrays and softmax unit as chosen are
// Verilated RTL.
class ModelCore : public PlatformCore {
 public:
  ModelCore(const Graph& g, CycleClock& clock, RunResult& r, const SimOptions& sim)
      : dma_("dma", g.memory, clock, *r.find_probe("dma", "rdata"), *r.find_probe("dma", "wdata"), r.activity["dma"],
             r.timelines["dma"]),
        core_("core", g, dma_, clock, r, sim.rtl),
        csr_("csr", core_, bool(g.attention)) {
    const auto dma = sim.rtl.find("dma");
    if (dma != sim.rtl.end()) dma_.use_rtl(dma->second, g.read_tag_bits(), sim.keep_events);
  }
  tlm::tlm_target_socket<>& registers() override { return csr_.socket; }
  void bind_memory(tlm::tlm_target_socket<>& memory) override { dma_.socket.bind(memory); }
  bool busy() const override { return core_.busy(); }
  const sc_core::sc_event& done_event() const override { return core_.done_event; }
  std::string refusal() const override { return csr_.refusal(); }
  uint64_t last_cycles() const override { return core_.last_cycles(); }
  const std::string& kernel_error() const override { return core_.kernel_error(); }
  std::vector<RtlBlockRun> rtl_block_runs() override {
    std::vector<RtlBlockRun> runs = core_.rtl_block_runs();
    for (RtlBlockRun& r : dma_.rtl_block_runs()) runs.push_back(std::move(r));
    return runs;
  }

 private:
  Dma dma_;
  FusedCore core_;
  Csr csr_;
};

std::unique_ptr<PlatformCore> make_core(const Graph& g, CycleClock& clock, RunResult& r, const HostOptions& o) {
  if (o.sim.core) return std::make_unique<VerilatedCore>("core", g, clock.period, r, o.sim.core(), o.quantum_cycles);
  return std::make_unique<ModelCore>(g, clock, r, o.sim);
}

struct Platform {
  CycleClock clock;
  MemoryTarget memory;
  std::unique_ptr<PlatformCore> core;
  HostPort host;
  Platform(const Graph& g, const HostOptions& o, RunResult& r, const std::function<void(Accelerator&)>& run_host)
      : clock{sc_time(1000.0 / g.spec.clock_mhz, sc_core::SC_NS), sc_core::SC_ZERO_TIME},
        memory("memory", g.memory, clock.period, o.memory_bytes),
        core(make_core(g, clock, r, o)),
        host("host", o, memory, *core, clock.period, run_host) {
    core->bind_memory(memory.socket);
    host.socket.bind(core->registers());
  }
};

}  // namespace

RunResult run_host_on_systemc_in_process(const Graph& g, const HostOptions& o,
                                         const std::function<void(Accelerator&)>& host) {
  RunResult r;
  r.model = "systemc";
  for (const auto& pr : g.probes()) r.probes.emplace_back(pr.block, pr.port, pr.width_bits, o.sim.keep_events);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);  // sc_stop's
  const auto t0 = std::chrono::steady_clock::now();
  auto platform = std::make_unique<Platform>(g, o, r, host);
  sc_core::sc_start();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!platform->core->kernel_error().empty()) throw UserError(platform->core->kernel_error());
  if (platform->host.error) std::rethrow_exception(platform->host.error);
  r.cycles = platform->core->last_cycles();
  r.rtl_blocks = platform->core->rtl_block_runs();
  r.model = r.rtl_blocks.empty() ? "systemc" : "mixed";
  return r;
}

RunResult run_on_systemc_in_process(const Graph& g, const Program& p, const SimOptions& opts) {
  HostOptions o;
  o.memory_bytes = p.memory_bytes();
  o.sim = opts;
  std::map<std::string, std::vector<uint8_t>> outputs;
  // What a driver does (compiler/program.h): preload, program, start, wait, read back.
  RunResult r = run_host_on_systemc_in_process(g, o, [&](Accelerator& a) {
    for (const auto& in : p.inputs) a.write_memory(in.addr, in.bytes.data(), in.bytes.size());
    for (const auto& w : p.writes) a.write_register(w.offset, w.value);
    a.wait_for_interrupt();
    a.read_register(reg::kCycles);
    for (const auto& out : p.outputs) {
      std::vector<uint8_t>& bytes = outputs[out.name];
      bytes.resize(out.bytes);
      a.read_memory(out.addr, bytes.data(), bytes.size());
    }
  });
  r.outputs = std::move(outputs);
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

std::string run_in_simulation_process(const std::function<std::string()>& work) {
  int fds[2];
  if (pipe(fds) != 0) fail("systemc", "cannot create a pipe for the simulation process");
  const pid_t pid = fork();
  if (pid < 0) fail("systemc", "cannot fork the simulation process");
  if (pid == 0) {
    ::close(fds[0]);
    std::string payload;
    char kind = 'R';
    try {
      payload = work();
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
  return data;
}

RunResult run_on_systemc(const Graph& g, const Program& p, const SimOptions& opts) {
  return decode_run_result(
      run_in_simulation_process([&] { return encode_run_result(run_on_systemc_in_process(g, p, opts)); }));
}

}  // namespace fsgen
