// The accelerator's AXI4-Lite register map: one definition used by the Verilog
// emitter, the SystemC CSR block, the compiler and the Verilator harness.
#pragma once
#include <array>
#include <cstdint>

namespace fsgen::reg {

enum Offset : uint32_t {
  kCtrl = 0x00,      // W: bit0 = start (ignored while busy)
  kStatus = 0x04,    // R: bit0 = busy, bit1 = done (sticky until the next start; also the irq line)
  kKernel = 0x08,    // kernel id, see Kernel
  kTilesM = 0x0C,    // output tiles along m (M / tile_m)
  kTilesN = 0x10,    // output tiles along n (N / tile_n)
  kTilesK = 0x14,    // reduction tiles along k (K / tile_k); attention: tiles of the head dim (0 or 1: one)
  kAddrA = 0x18,     // byte address of A (int8, row-major M x K)
  kAddrB = 0x1C,     // byte address of B (int8, row-major K x N; N x K with mm_flags bit0)
  kAddrC = 0x20,     // byte address of C (int8, row-major M x N)
  kStrideA = 0x24,   // bytes between rows of A
  kStrideB = 0x28,   // bytes between rows of B (of B^T with mm_flags bit0)
  kStrideC = 0x2C,   // bytes between rows of C
  kReqMult = 0x30,   // requantisation multiplier, unsigned 16 bit
  kReqShift = 0x34,  // requantisation right shift, 0..31
  kCycles = 0x38,    // R: busy cycles of the last run, low 32 bits
  // Fused attention (kernel 1): Q at addr_a, K at addr_b, O at addr_c, all [head][row][head_dim].
  kAddrV = 0x3C,         // byte address of V
  kAddrX = 0x40,         // byte address of the residual X (used when attn_flags bit 1 is set)
  kLenQ = 0x44,          // query rows per head; matmul: rows of A and C (M), 0 = tiles_m x tile_m
  kLenKv = 0x48,         // key/value rows per head
  kHeads = 0x4C,         // query heads
  kGroup = 0x50,         // query heads per KV head (1 = MHA)
  kQPos0 = 0x54,         // position of query row 0 among the keys (decode: context - rows)
  kAttnFlags = 0x58,     // bit0 causal mask, bit1 add residual
  kScoreMult = 0x5C,     // log2-domain score multiplier, unsigned 16 bit (docs/NUMERICS.md)
  kScoreShift = 0x60,    // its right shift, 0..31
  kHeadStrideQ = 0x64,   // bytes between heads of Q, X and O
  kHeadStrideKv = 0x68,  // bytes between heads of K and V (the KV cache capacity x head_dim)
  // FFN (kernel 2) reuses the attention registers: X at addr_a, W1 rows at addr_b, W2^T rows at
  // addr_v, residual at addr_x, Y at addr_c, len_q tokens, len_kv FFN width, attn_flags bit1
  // residual and bit2 gated, score_mult/shift requantise U, req_mult/shift requantise Y.
  kAddrLut = 0x6C,   // 256-byte activation table, indexed by the INT8 code of U
  kAddrW3 = 0x70,    // gate weight rows (gated FFN)
  kGateMult = 0x74,  // requantisation of the gate G
  kGateShift = 0x78,
  kHidMult = 0x7C,  // requantisation of act(U) * G
  kHidShift = 0x80,
  // Memory-value sparsity (compressed matmul operands, src/core/compression.h): per
  // operand tile a record of row bits; a zero bit means the row is all zeros and not fetched.
  kAddrMetaA = 0x84,  // byte address of A's row metadata
  kAddrMetaB = 0x88,  // byte address of B's row metadata
  // Block TopK attention (compute-group sparsity):
  kAddrPool = 0x8C,  // byte address of the pooled keys: [kv head][key tile][head dim] INT8
  // Matmul (kernel 0) operand layout: bit0 = B is given transposed, as rows of its N columns
  // of K bytes (an nn.Linear weight [out, in]), stride_b bytes apart; a B tile then loads as
  // tile_n rows of tile_k bytes, bursts as long as A's. Ignored by a core whose B is compressed.
  // bit1 = the activation epilogue (a fused core whose matmul tile is array a's): C = the
  // activation table (addr_lut) on requant(A B, score_mult, score_shift); bit2 = gated: B's
  // n tiles come in pairs (W1's columns, then W3's), C[:, j] = requant(act(u) x requant(g,
  // gate_mult, gate_shift), hid_mult, hid_shift), C having half of B's columns. len_kv
  // columns of each tile are activated (the rest stored as 0), attn_flags bit0 (causal) clear.
  kMmFlags = 0x90,
};

enum class Kernel : uint32_t { kMatmul = 0, kAttention = 1, kFfn = 2 };

struct RegInfo {
  Offset offset;
  const char* name;  // the Verilog port and wire name; FSGEN_REG_<NAME> is its offset macro
  bool writable;     // a configuration register written by the host (ctrl, status, cycles are not)
  unsigned width;    // bits kept by the hardware
};

inline constexpr std::array<RegInfo, 37> kRegisters = {{
    {kCtrl, "ctrl", false, 1},
    {kStatus, "status", false, 2},
    {kKernel, "kernel", true, 32},
    {kTilesM, "tiles_m", true, 16},
    {kTilesN, "tiles_n", true, 16},
    {kTilesK, "tiles_k", true, 16},
    {kAddrA, "addr_a", true, 32},
    {kAddrB, "addr_b", true, 32},
    {kAddrC, "addr_c", true, 32},
    {kStrideA, "stride_a", true, 32},
    {kStrideB, "stride_b", true, 32},
    {kStrideC, "stride_c", true, 32},
    {kReqMult, "req_mult", true, 16},
    {kReqShift, "req_shift", true, 5},
    {kCycles, "cycles", false, 32},
    {kAddrV, "addr_v", true, 32},
    {kAddrX, "addr_x", true, 32},
    {kLenQ, "len_q", true, 16},
    {kLenKv, "len_kv", true, 16},
    {kHeads, "heads", true, 16},
    {kGroup, "group", true, 16},
    {kQPos0, "q_pos0", true, 16},
    {kAttnFlags, "attn_flags", true, 3},
    {kScoreMult, "score_mult", true, 16},
    {kScoreShift, "score_shift", true, 5},
    {kHeadStrideQ, "head_stride_q", true, 32},
    {kHeadStrideKv, "head_stride_kv", true, 32},
    {kAddrLut, "addr_lut", true, 32},
    {kAddrW3, "addr_w3", true, 32},
    {kGateMult, "gate_mult", true, 16},
    {kGateShift, "gate_shift", true, 5},
    {kHidMult, "hid_mult", true, 16},
    {kHidShift, "hid_shift", true, 5},
    {kAddrMetaA, "addr_meta_a", true, 32},
    {kAddrMetaB, "addr_meta_b", true, 32},
    {kAddrPool, "addr_pool", true, 32},
    {kMmFlags, "mm_flags", true, 3},
}};

// The register at `offset`; nullptr when there is none (an AXI4-Lite DECERR).
inline const RegInfo* register_at(uint32_t offset) {
  for (const RegInfo& r : kRegisters)
    if (r.offset == offset) return &r;
  return nullptr;
}

}  // namespace fsgen::reg
