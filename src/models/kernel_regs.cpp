#include "models/kernel_regs.h"

#include "core/error.h"
#include "core/regmap.h"

namespace fsgen {

void write_register(KernelRegs& regs, uint32_t offset, uint32_t v) {
  auto u16 = [](uint32_t x) { return static_cast<uint16_t>(x); };
  auto shift = [](uint32_t x) { return static_cast<uint8_t>(x & 31); };
  switch (offset) {
    case reg::kKernel: regs.kernel = v; break;
    case reg::kTilesM: regs.tiles_m = v & 0xFFFF; break;
    case reg::kTilesN: regs.tiles_n = v & 0xFFFF; break;
    case reg::kTilesK: regs.tiles_k = v & 0xFFFF; break;
    case reg::kAddrA: regs.addr_a = v; break;
    case reg::kAddrB: regs.addr_b = v; break;
    case reg::kAddrC: regs.addr_c = v; break;
    case reg::kStrideA: regs.stride_a = v; break;
    case reg::kStrideB: regs.stride_b = v; break;
    case reg::kStrideC: regs.stride_c = v; break;
    case reg::kReqMult: regs.req_mult = u16(v); break;
    case reg::kReqShift: regs.req_shift = shift(v); break;
    case reg::kAddrV: regs.addr_v = v; break;
    case reg::kAddrX: regs.addr_x = v; break;
    case reg::kLenQ: regs.len_q = u16(v); break;
    case reg::kLenKv: regs.len_kv = u16(v); break;
    case reg::kHeads: regs.heads = u16(v); break;
    case reg::kGroup: regs.group = u16(v); break;
    case reg::kQPos0: regs.q_pos0 = u16(v); break;
    case reg::kAttnFlags:
      regs.causal = v & 1;
      regs.residual = v & 2;
      regs.gated = v & 4;
      break;
    case reg::kAddrLut: regs.addr_lut = v; break;
    case reg::kAddrW3: regs.addr_w3 = v; break;
    case reg::kGateMult: regs.gate_mult = u16(v); break;
    case reg::kGateShift: regs.gate_shift = shift(v); break;
    case reg::kHidMult: regs.hid_mult = u16(v); break;
    case reg::kHidShift: regs.hid_shift = shift(v); break;
    case reg::kScoreMult: regs.score_mult = u16(v); break;
    case reg::kScoreShift: regs.score_shift = shift(v); break;
    case reg::kHeadStrideQ: regs.head_stride_q = v; break;
    case reg::kHeadStrideKv: regs.head_stride_kv = v; break;
    case reg::kAddrMetaA: regs.addr_meta_a = v; break;
    case reg::kAddrMetaB: regs.addr_meta_b = v; break;
    case reg::kAddrPool: regs.addr_pool = v; break;
    case reg::kMmFlags:
      regs.b_transposed = v & 1;
      regs.mm_act = v & 2;
      regs.mm_gated = v & 4;
      break;
    default: break;
  }
}

std::string descriptor_error(const KernelRegs& r, bool fused) {
  const bool attention = r.kernel == uint32_t(reg::Kernel::kAttention), ffn = r.kernel == uint32_t(reg::Kernel::kFfn);
  if (r.kernel > uint32_t(reg::Kernel::kFfn) || ((attention || ffn) && !fused))
    return "kernel " + std::to_string(r.kernel) + " is not built into this core (" +
           (fused ? "matmul 0, attention 1, FFN 2" : "matmul 0 only: no fused datapath") + ")";
  if (r.kernel == uint32_t(reg::Kernel::kMatmul) && (r.tiles_m == 0 || r.tiles_n == 0 || r.tiles_k == 0))
    return "a matmul of zero tiles (tiles_m, tiles_n and tiles_k are at least 1)";
  if (attention && (r.heads == 0 || r.group == 0 || r.len_q == 0 || r.len_kv == 0))
    return "attention of zero heads, group, len_q or len_kv";
  if (ffn && (r.len_q == 0 || r.len_kv == 0)) return "an FFN of zero len_q (tokens) or len_kv (width)";
  return "";
}

KernelRegs registers_at_start(const Program& p) {
  KernelRegs regs;
  for (const auto& w : p.writes) {
    if (w.offset == reg::kCtrl && (w.value & 1)) return regs;
    write_register(regs, w.offset, w.value);
  }
  fail("program " + p.kernel, "no register write sets the start bit (ctrl bit 0)");
}

}  // namespace fsgen
