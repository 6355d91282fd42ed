#include "vp/driver.h"

#include <algorithm>

#include "core/error.h"
#include "core/regmap.h"

namespace fsgen {

namespace {

constexpr uint64_t kPage = 4096;

uint64_t round_to_page(uint64_t bytes) { return (std::max<uint64_t>(bytes, 1) + kPage - 1) / kPage * kPage; }

bool is_address_register(uint32_t offset) {
  const reg::RegInfo* r = reg::register_at(offset);
  return r && std::string(r->name).rfind("addr_", 0) == 0;
}

// A region of a program's layout and the buffer it moved to.
struct Placed {
  std::string name;
  uint64_t program_addr = 0, bytes = 0;
  DeviceBuffer buffer;
  bool output = false;  // read back after the kernel
};

}  // namespace

Driver::Driver(Accelerator& device) : device_(device) {
  const uint64_t top = device.memory_bytes() / kPage * kPage;
  if (top > kPage) free_[kPage] = top - kPage;
}

DeviceBuffer Driver::allocate(uint64_t bytes, const std::string& what) {
  const uint64_t size = round_to_page(bytes);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const DeviceBuffer b{it->first, bytes};
    const uint64_t rest = it->second - size;
    const uint64_t rest_addr = it->first + size;
    free_.erase(it);
    if (rest) free_[rest_addr] = rest;
    return b;
  }
  fail("buffer '" + what + "'", std::to_string(bytes) + " bytes: no free range of the device's " +
                                    std::to_string(device_.memory_bytes()) + " bytes of DRAM holds it (" +
                                    std::to_string(free_bytes()) + " bytes free)");
}

void Driver::release(const DeviceBuffer& b) {
  uint64_t addr = b.addr, size = round_to_page(b.bytes);
  FSGEN_ASSERT(addr % kPage == 0 && addr >= kPage, "a buffer the driver handed out");
  auto next = free_.lower_bound(addr);
  FSGEN_ASSERT(next == free_.end() || next->first >= addr + size, "a buffer released once");
  if (next != free_.end() && next->first == addr + size) {  // merge with the range after
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {  // and the one before
    auto prev = std::prev(next);
    FSGEN_ASSERT(prev->first + prev->second <= addr, "a buffer released once");
    if (prev->first + prev->second == addr) {
      prev->second += size;
      return;
    }
  }
  free_[addr] = size;
}

uint64_t Driver::free_bytes() const {
  uint64_t n = 0;
  for (const auto& [addr, bytes] : free_) n += bytes;
  return n;
}

void Driver::write(const DeviceBuffer& b, const std::vector<uint8_t>& bytes, uint64_t offset) {
  if (offset > b.bytes || bytes.size() > b.bytes - offset)
    fail("buffer at " + hex_address(b.addr), "a write of " + std::to_string(bytes.size()) + " bytes at offset " +
                                                 std::to_string(offset) + " beyond its " + std::to_string(b.bytes) +
                                                 " bytes");
  device_.write_memory(b.addr + offset, bytes.data(), bytes.size());
}

std::vector<uint8_t> Driver::read(const DeviceBuffer& b) const {
  std::vector<uint8_t> bytes(b.bytes);
  device_.read_memory(b.addr, bytes.data(), bytes.size());
  return bytes;
}

void Driver::launch(const std::vector<RegWrite>& registers) {
  for (const RegWrite& w : registers)
    if (w.offset != reg::kCtrl) device_.write_register(w.offset, w.value);
  device_.write_register(reg::kCtrl, 1);
  ++launches_;
}

uint64_t Driver::wait() {
  device_.wait_for_interrupt();
  return device_.read_register(reg::kCycles);
}

KernelRun Driver::run(const Program& p) {
  std::vector<Placed> placed;
  auto release_all = [&] {
    for (const Placed& r : placed) release(r.buffer);
  };
  try {
    for (const MemRegion& in : p.inputs) {
      placed.push_back({in.name, in.addr, in.bytes.size(), allocate(in.bytes.size(), p.kernel + ": " + in.name)});
      write(placed.back().buffer, in.bytes);
    }
    for (const OutputRegion& out : p.outputs)
      placed.push_back({out.name, out.addr, out.bytes, allocate(out.bytes, p.kernel + ": " + out.name), true});
    // The registers with each address moved from the program's layout onto its buffer.
    std::vector<RegWrite> registers;
    for (const RegWrite& w : p.writes) {
      if (w.offset == reg::kCtrl) break;  // the start: launch() writes it
      RegWrite moved = w;
      if (is_address_register(w.offset) && w.value != 0) {
        const auto r = std::find_if(placed.begin(), placed.end(), [&](const Placed& x) {
          return w.value >= x.program_addr && w.value < x.program_addr + std::max<uint64_t>(x.bytes, 1);
        });
        if (r == placed.end())
          fail("program " + p.kernel, std::string("register ") + reg::register_at(w.offset)->name + " = " +
                                          hex_address(w.value) + " lies in none of the program's regions");
        moved.value = uint32_t(r->buffer.addr + (w.value - r->program_addr));
      }
      registers.push_back(moved);
    }
    launch(registers);
    KernelRun k;
    k.cycles = wait();
    for (const Placed& r : placed)
      if (r.output) k.outputs[r.name] = read(r.buffer);
    release_all();
    return k;
  } catch (...) {
    release_all();
    throw;
  }
}

}  // namespace fsgen
