// The register values a kernel launch programs (src/core/regmap.h), as the
// controller sees them when the start bit is written. Shared by the SystemC CSR
// block and the fast model, which both decode a Program's register writes.
#pragma once
#include <cstdint>
#include <string>

#include "compiler/program.h"

namespace fsgen {

struct KernelRegs {
  uint32_t kernel = 0;
  uint32_t tiles_m = 0, tiles_n = 0, tiles_k = 0;
  uint32_t addr_a = 0, addr_b = 0, addr_c = 0;
  uint32_t stride_a = 0, stride_b = 0, stride_c = 0;
  bool b_transposed = false;  // mm_flags bit0: B given as N x K rows
  bool mm_act = false;        // mm_flags bit1: the activation epilogue
  bool mm_gated = false;      // mm_flags bit2: gated, B's n tiles in W1 / W3 pairs
  uint16_t req_mult = 0;
  uint8_t req_shift = 0;
  // attention (kernel 1)
  uint32_t addr_v = 0, addr_x = 0;
  uint16_t len_q = 0, len_kv = 0, heads = 0, group = 0, q_pos0 = 0;
  bool causal = false, residual = false;
  uint16_t score_mult = 0;
  uint8_t score_shift = 0;
  uint32_t head_stride_q = 0, head_stride_kv = 0;
  // attention: the head dim's tiles of tiling.k (tiles_k; 0 reads as 1)
  uint32_t head_tiles() const { return tiles_k > 1 ? tiles_k : 1; }
  // FFN (kernel 2)
  bool gated = false;
  uint32_t addr_lut = 0, addr_w3 = 0;
  uint16_t gate_mult = 0, hid_mult = 0;
  uint8_t gate_shift = 0, hid_shift = 0;
  // compressed matmul operands
  uint32_t addr_meta_a = 0, addr_meta_b = 0;
  uint32_t addr_pool = 0;  // pooled keys of block TopK attention
};

// One AXI4-Lite write to a configuration register, kept at the register's width.
// Writes to ctrl, status, cycles and unmapped offsets change nothing.
void write_register(KernelRegs& regs, uint32_t offset, uint32_t value);

// Why a start with these registers is refused ("" when it is not): a kernel id the core
// lacks (attention 1 and FFN 2 need the fused datapath, `fused`), or a kernel of no work
// (zero tiles, heads, rows). fsgen_csr.v's desc_ok applies the same rules.
std::string descriptor_error(const KernelRegs& regs, bool fused);

// The registers in force when the program's last start write lands (UserError when
// the program never writes the start bit).
KernelRegs registers_at_start(const Program& p);

}  // namespace fsgen
