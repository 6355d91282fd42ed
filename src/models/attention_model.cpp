// The fused attention and FFN phases of the SystemC platform's FusedCore (the schedule
// is TileSequencer's, states A_* of fsgen_ctrl.v), with the numerics of
// src/core/attention_numerics.h. Array a holds the score tile S = Q K^T, the softmax
// unit produces P one row per cycle, array b accumulates O = alpha O + P V. Either
// array may be output-, weight- or input-stationary (src/models/pe_array_model.h).
#include <algorithm>
#include <climits>

#include "core/attention_numerics.h"
#include "core/numerics.h"
#include "models/core_model.h"
#include "models/pe_array_model.h"

namespace fsgen {

// A_S (a pass of array a: a dot array's stationary operand, stream, tail): S = Q K^T in array a,
// with Q the rows of head tile `head_tile` in buf_a's slot of that number and K^T a transposed
// view of the key rows in buf_b; the first head tile clears S, the others add to it.
void FusedCore::scores(bool reload, uint32_t b_slot, uint32_t head_tile) {
  const uint32_t d = plan_.spec.tile_k;
  buf_a_activity_.read_bytes += uint64_t(plan_.spec.tile_m) * d;
  buf_b_activity_.read_bytes += uint64_t(plan_.spec.tile_n) * d;
  advance(array_a_->run_tile(
      now(), TileView::row_major(buffer({BufferSlot::kA, head_tile}), d), TileView::transposed(b_slot_data(b_slot), d),
      reload, head_tile == 0 ? Accumulate::kClear : Accumulate::kAdd, nullptr, {s_acc_.data(), plan_.spec.tile_n}));
}

// Row i of array a's accumulator tile `acc` (the score tile, or a matmul's output tile),
// loaded into the softmax unit in cycle `cycle`: its probe and operand bytes where the unit's
// row register holds it, a cycle later.
void FusedCore::load_softmax_row(uint64_t cycle, uint32_t i, AccTile acc) {
  const uint32_t tkv = plan_.spec.tile_n;
  array_a_->read_row(i, acc, tkv, s_row_.data());
  sm_in_->update(cycle + 1, s_row_.data());
  record_operands(*sm_activity_, *sm_timeline_, cycle + 1, reinterpret_cast<const uint8_t*>(s_row_.data()),
                  size_t(tkv) * sizeof(int32_t));
}

// The unit's pass over the tile's rows, loaded in cycles [c0, c0 + TM): its loads in its
// timeline (an FFN gate pass's also as its side enable), then TM + 1 cycles.
void FusedCore::end_softmax_pass(uint64_t c0, bool gate_pass) {
  const uint32_t tq = plan_.spec.tile_m;
  sm_activity_->busy_cycles += tq;
  sm_timeline_->busy.push_back({c0, tq});
  sm_timeline_->enabled.push_back({c0, tq});
  if (gate_pass) sm_timeline_->side.push_back({c0, tq});
  advance(tq + 1);
}

// The controller writes query row `row`'s rescale factor into alpha_q, which holds it from
// `cycle` on (with P's row, in the passes that rescale: not a query tile's first key tile).
void FusedCore::write_factor(uint64_t cycle, uint32_t row, uint32_t alpha) {
  if (factor_trace_) alpha_before_ = alpha_q_;
  alpha_q_[row] = alpha;
  if (alpha_probe_) alpha_probe_->update(cycle, alpha_q_.data());
  if (factor_trace_) factor_trace_->record(cycle, alpha_before_.data(), alpha_q_.data());
}

// The softmax unit's settings for the running kernel (its table as loaded).
SoftmaxSettings FusedCore::softmax_settings() const {
  SoftmaxSettings s;
  s.len_kv = regs_.len_kv;
  s.causal = regs_.causal;
  s.window = graph_.sliding_window();
  s.score_mult = regs_.score_mult, s.score_shift = regs_.score_shift;
  s.gate_mult = regs_.gate_mult, s.gate_shift = regs_.gate_shift;
  s.hid_mult = regs_.hid_mult, s.hid_shift = regs_.hid_shift;
  s.lut = lut_.data();
  return s;
}

// A_SM: row r's scores are registered in cycle r, the softmax unit turns them into P
// in cycle r + 1 (TM + 1 cycles in all).
void FusedCore::softmax(uint32_t q0, uint32_t j0, bool first_kv) {
  const uint32_t tq = plan_.spec.tile_m, tkv = plan_.spec.tile_n;
  const uint64_t c0 = now();
  softmax_unit_->configure(softmax_settings());
  for (uint32_t i = 0; i < tq; ++i) {
    load_softmax_row(c0 + i, i, {s_acc_.data(), tkv});
    SoftmaxRowIn in;
    in.scores = s_row_.data();
    in.first = first_kv;
    in.m_old = m_run_[i], in.l_old = l_run_[i];
    in.q_pos = uint32_t(regs_.q_pos0) + q0 + i;
    in.j0 = j0;
    SoftmaxRowOut out;
    out.p = p_row_.data();
    softmax_unit_->row(c0 + i, in, out);
    std::copy(p_row_.begin(), p_row_.end(), reinterpret_cast<uint8_t*>(p_buf_.data()) + size_t(i) * tkv);
    l_run_[i] = out.l_new;
    m_run_[i] = out.m_new;
    alpha_[i] = out.alpha;
    sm_out_->update(c0 + i + 2, p_row_.data());
    if (!first_kv) write_factor(c0 + i + 2, i, out.alpha);
  }
  end_softmax_pass(c0, false);
}

// The unit in FFN mode on the row in s_row_ (row i of its tile, loaded in `cycle`): the
// activation table (first pass) or the gate with row i's activations held in p_buf. Into p_row_.
void FusedCore::activate_row(uint64_t cycle, uint32_t i, uint32_t j0, bool gate_pass) {
  SoftmaxRowIn in;
  in.scores = s_row_.data();
  in.j0 = j0;
  in.ffn = true;
  in.gate = gate_pass;
  in.p_prev = p_buf_.data() + size_t(i) * plan_.spec.tile_n;
  SoftmaxRowOut out;
  out.p = p_row_.data();
  softmax_unit_->row(cycle, in, out);
}

// A pass of the unit in FFN mode over the rows of array a's tile `acc`, row r loaded in cycle
// c0 + r, its output written to p_buf (A_SM of the FFN; S_ACT of a gated matmul).
void FusedCore::activation_pass(AccTile acc, uint32_t j0, bool gate_pass) {
  const uint32_t tq = plan_.spec.tile_m, tkv = plan_.spec.tile_n;
  const uint64_t c0 = now();
  softmax_unit_->configure(softmax_settings());
  for (uint32_t i = 0; i < tq; ++i) {
    load_softmax_row(c0 + i, i, acc);
    activate_row(c0 + i, i, j0, gate_pass);
    std::copy(p_row_.begin(), p_row_.end(), reinterpret_cast<uint8_t*>(p_buf_.data()) + size_t(i) * tkv);
    sm_out_->update(c0 + i + 2, p_row_.data());
  }
  end_softmax_pass(c0, gate_pass);
}

// A_SM in FFN mode: the activation of U's tile (first pass) or the gate on G's.
void FusedCore::activation(uint32_t j0, bool gate_pass) {
  activation_pass({s_acc_.data(), plan_.spec.tile_n}, j0, gate_pass);
}

// S_ACT: a gated matmul's W1 tile, its activations held for the W3 tile's store.
void FusedCore::hold_activations() { activation_pass({tile_ptr_, plan_.spec.tile_n}, 0, false); }

// A_O (passes of array b, one per sub-tile of a dot array): O = alpha O + P V (FFN: O += H W2);
// P is the tile the softmax unit wrote, V the rows in buf_b. A dot array b smaller than
// the O tile runs one pass per sub-tile (queries outermost, keys innermost, as
// fsgen_ctrl.v); the first pass over the keys applies the rescale, the others add.
void FusedCore::update_o(bool first_kv, uint32_t b_slot) {
  const uint32_t tkv = plan_.spec.tile_n, d = plan_.spec.tile_k;
  const Accumulate mode = first_kv ? Accumulate::kClear : ffn() ? Accumulate::kAdd : Accumulate::kRescale;
  const TileView p = TileView::row_major(reinterpret_cast<const uint8_t*>(p_buf_.data()), tkv);
  const TileView v = TileView::row_major(b_slot_data(b_slot), d);
  const ArraySpec& b = graph_.array_b.spec;
  const bool os = graph_.array_b.stationarity == Stationarity::kOutput;  // holds all of O: one pass
  const uint32_t sm = os ? plan_.spec.tile_m : b.tile_m, sn = os ? d : b.tile_n, sk = os ? tkv : b.tile_k;
  for (uint32_t m0 = 0; m0 < plan_.spec.tile_m; m0 += sm)
    for (uint32_t n0 = 0; n0 < d; n0 += sn)
      for (uint32_t k0 = 0; k0 < tkv; k0 += sk) {
        buf_b_activity_.read_bytes += uint64_t(sk) * sn;  // the pass's V rows
        advance(array_b_->run_tile(now(), p.offset(m0, k0), v.offset(k0, n0), true, k0 == 0 ? mode : Accumulate::kAdd,
                                   alpha_.data() + m0, {o_acc_.data() + size_t(m0) * d + n0, d}));
      }
}

// A_FIN: per valid query row READ, CONV (normalise), ISSUE and its write burst, into O's
// column block `block`; the residual's block in buf_a's slot x_slot.
void FusedCore::store_o_rows(uint32_t h, uint32_t q0, uint32_t rows, uint32_t block, uint32_t x_slot) {
  const uint32_t d = plan_.spec.tile_k, row = ffn() ? d : regs_.head_tiles() * d;
  const uint8_t* x = buffer({BufferSlot::kA, x_slot});
  auto prepare = [&](uint32_t r, uint64_t read_cycle) {
    array_b_->read_row(r, {o_acc_.data(), d}, d, fin_in_.data());
    fin_in_probe_->update(read_cycle + 1, fin_in_.data());
    if (!ffn()) fin_timeline_->busy.push_back({read_cycle + 1, 2});  // the sum gated in (A_FIN's CONV), then out
    for (uint32_t c = 0; c < d; ++c) {
      int32_t y = ffn() ? num::requantize(fin_in_[c], regs_.req_mult, regs_.req_shift)
                        : num::normalise_quotient(fin_in_[c], l_run_[r]);
      if (regs_.residual) y += static_cast<int8_t>(x[size_t(r) * d + c]);
      fin_out_[c] = static_cast<uint8_t>(static_cast<int8_t>(std::clamp(y, -128, 127)));
    }
    if (regs_.residual) buf_a_activity_.read_bytes += d;
    fin_out_probe_->update(read_cycle + 2, fin_out_.data());
  };
  auto row_addr = [&](uint32_t r) { return regs_.addr_c + h * regs_.head_stride_q + (q0 + r) * row + block * d; };
  const uint32_t beats = d / graph_.memory.beat_bytes;
  end_transfer(store_transfer_end(now(), rows, beats, prepare, dma_writes(row_addr, beats, fin_out_.data())));
}

}  // namespace fsgen
