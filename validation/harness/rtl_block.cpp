// The C interface of one Verilated block, built into a shared library that fsgen loads for a
// mixed-level run (src/flow/rtl_block.cpp): create and delete an instance, set an input and
// get a port by index (as 32-bit words, little-endian), evaluate. fsgen_block_ports.h, made
// from the Verilated header, lists the ports in declaration order. Built for a whole core
// (FSGEN_BLOCK_PROBES), it also reads the design's probed registers (its probes.h) by index.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "Vfsgen_block.h"
#include "fsgen_block_ports.h"
#include "verilated.h"

namespace {

struct Block {
  VerilatedContext context;
  Vfsgen_block top{&context};
};

template <typename T>
void put(T& port, const uint32_t* w) {
  if constexpr (sizeof(T) == 8)
    port = T(w[0]) | (T(w[1]) << 32);
  else
    port = T(w[0]);
}
template <std::size_t N>
void put(VlWide<N>& port, const uint32_t* w) {
  for (std::size_t i = 0; i < N; ++i) port[i] = w[i];
}
template <typename T>
void take(const T& port, uint32_t* w) {
  w[0] = uint32_t(port);
  if constexpr (sizeof(T) == 8) w[1] = uint32_t(uint64_t(port) >> 32);
}
template <std::size_t N>
void take(const VlWide<N>& port, uint32_t* w) {
  for (std::size_t i = 0; i < N; ++i) w[i] = port[i];
}

}  // namespace

#ifdef FSGEN_BLOCK_PROBES
#include "Vfsgen_block___024root.h"
#include "probes.h"
namespace {
// probes.h's expressions name the module `top`.
using ProbeReader = void (*)(Vfsgen_block* top, uint32_t* words);
#define FSGEN_PROBE_READER(block, port, width, expr) \
  [](Vfsgen_block* top, uint32_t* words) { std::memcpy(words, &(expr), ((width) + 7) / 8); },
const ProbeReader kProbeReaders[] = {FSGEN_PROBES(FSGEN_PROBE_READER)};
#undef FSGEN_PROBE_READER
}  // namespace

extern "C" {
int fsgen_rtl_probe_count() { return int(sizeof(kProbeReaders) / sizeof(kProbeReaders[0])); }
void fsgen_rtl_probe(void* b, int index, uint32_t* words) { kProbeReaders[index](&static_cast<Block*>(b)->top, words); }
}
#endif

extern "C" {

void* fsgen_rtl_new() { return new Block; }
void fsgen_rtl_delete(void* b) {
  Block* block = static_cast<Block*>(b);
  block->top.final();
  // A module's public scopes unregister from the thread's current context, which must be the
  // instance's own (another instance's may be gone already).
  Verilated::threadContextp(&block->context);
  delete block;
}
void fsgen_rtl_eval(void* b) { static_cast<Block*>(b)->top.eval(); }

void fsgen_rtl_set(void* b, int port, const uint32_t* words) {
  Vfsgen_block& top = static_cast<Block*>(b)->top;
  switch (port) {
#define FSGEN_SET(index, name) \
  case index:                  \
    put(top.name, words);      \
    break;
    FSGEN_BLOCK_INPUTS(FSGEN_SET)
#undef FSGEN_SET
    default:
      break;
  }
}

void fsgen_rtl_get(void* b, int port, uint32_t* words) {
  Vfsgen_block& top = static_cast<Block*>(b)->top;
  switch (port) {
#define FSGEN_GET(index, name) \
  case index:                  \
    take(top.name, words);     \
    break;
    FSGEN_BLOCK_INPUTS(FSGEN_GET)
    FSGEN_BLOCK_OUTPUTS(FSGEN_GET)
#undef FSGEN_GET
    default:
      break;
  }
}
}
