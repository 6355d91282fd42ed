// The softmax / activation unit of the fused datapath (docs/NUMERICS.md): one score row of
// TN INT32 scores per cycle. A row loaded with ld is registered (row_q, valid in the next
// cycle: v) and transformed combinationally for the controller to store in the same cycle:
//   attention: the online softmax of the row against the row's running max m_old and sum
//     l_old: the new max m_new, the rescale factor alpha of the old sum and O row (Q0.15),
//     the probabilities p (Q0.7, 0 for keys the row does not see: past len_kv, or after the
//     query's position, or outside the sliding window of WIN keys, with causal) and the new
//     sum l_new;
//   FFN (ffn): the activation table on the requantised row (first pass), or the gate (gate:
//     the first pass's activations p_prev times the requantised row, requantised again).
// Outputs are meaningful only with v. gate is registered with the row (gate_q), so that the
// controller's turning it between passes does not transform the held row again.
module fsgen_softmax #(
    parameter integer TN = 8,   // scores per row
    parameter integer WIN = 0   // causal sliding window in keys; 0 = none
) (
    input  wire             clk,
    input  wire             rst_n,
    input  wire             ld,          // a score row is presented on row
    input  wire [TN*32-1:0] row,
    input  wire             first,       // the row block's first key tile: no running state yet
    input  wire [31:0]      m_old,       // the row's running max (log2 domain, Q.8)
    input  wire [31:0]      l_old,       // the row's running sum of p
    input  wire [15:0]      q_pos,       // the row's query position
    input  wire [15:0]      j0,          // the tile's first key
    input  wire [15:0]      len_kv,      // keys in the sequence
    input  wire             causal,
    input  wire [15:0]      score_mult,  // scores to the log2 domain (attention), to INT8 (FFN)
    input  wire [4:0]       score_shift,
    input  wire             ffn,
    input  wire             gate,        // with ld: the row belongs to the FFN's gate pass
    input  wire [15:0]      gate_mult,
    input  wire [4:0]       gate_shift,
    input  wire [15:0]      hid_mult,
    input  wire [4:0]       hid_shift,
    input  wire [TN*8-1:0]  p_prev,      // FFN gate pass: the row's activations of the first pass
    input  wire [2047:0]    lut,         // FFN activation table: entry u at lut[u*8 +: 8]
    output reg              v,           // row_q holds a row: the outputs are its
    output reg  [TN*32-1:0] row_q /*verilator public_flat_rd*/,
    output reg  [31:0]      m_new,
    output reg  [31:0]      alpha,
    output reg  [31:0]      l_new,
    output reg  [TN*8-1:0]  p
);
  reg gate_q;
  always @(posedge clk) begin
    if (!rst_n) begin
      v <= 1'b0;
      row_q <= {TN*32{1'b0}};
      gate_q <= 1'b0;
    end else begin
      v <= ld;
      if (ld) row_q <= row;
      if (ld) gate_q <= gate;
    end
  end

  `include "fsgen_requant.vh"
  `include "fsgen_rescale.vh"
  `include "fsgen_exp2.vh"

  function [7:0] exp2_q7;  // 2^(x/256) in Q0.7 for x = -e <= 0, saturated to 127
    input [32:0] e;
    reg   [8:0]  t;
    reg   [8:0]  t_shifted;
    begin
      t = {1'b0, fsgen_exp2_t7(e[7:0])};
      t_shifted = t >> e[11:8];
      exp2_q7 = (e[32:8] >= 25'd8) ? 8'd0 : (t_shifted > 9'd127) ? 8'd127 : t_shifted[7:0];
    end
  endfunction

  function [31:0] exp2_q15;  // 2^(x/256) in Q0.15 for x = -e <= 0 (0..32768)
    input [32:0] e;
    reg   [16:0] t;
    begin
      t = {1'b0, fsgen_exp2_t15(e[7:0])};
      exp2_q15 = (e[32:8] >= 25'd16) ? 32'd0 : {15'd0, t >> e[11:8]};
    end
  endfunction

  localparam [16:0] WIN17 = WIN[16:0];
  // One multiplier per score scales it: to the log2 domain for the softmax (score_mult), to
  // INT8 for the activation table (the same factor) or for the gate (gate_mult, in the gate
  // pass, when the softmax's outputs are not used).
  wire [15:0] mult  = gate_q ? gate_mult : score_mult;
  wire [4:0]  shift = gate_q ? gate_shift : score_shift;
  /* verilator lint_off WIDTH */
  reg  [31:0]       z [0:TN-1];
  reg  [7:0]        q [0:TN-1];   // z saturated to INT8: requant(row, mult, shift)
  reg  [TN-1:0]     vis;
  reg  [31:0]       tmax, psum;
  reg signed [48:0] zp;
  reg  [15:0]       jg;
  reg  [32:0]       e;
  reg  [15:0]       ag;
  integer j;
  always @* begin
    tmax = 32'h80000000;
    for (j = 0; j < TN; j = j + 1) begin
      zp = $signed(row_q[j*32 +: 32]) * $signed({1'b0, mult});
      if (shift != 5'd0) zp = zp + (49'sd1 <<< (shift - 5'd1));
      zp = zp >>> shift;
      z[j] = zp[31:0];
      q[j] = (zp > 49'sd127) ? 8'h7f : (zp < -49'sd128) ? 8'h80 : zp[7:0];
      jg = j0 + j[15:0];
      vis[j] = (jg < len_kv) && (!causal || (jg <= q_pos && (WIN == 0 || {1'b0, jg} + WIN17 > {1'b0, q_pos})));
      if (vis[j] && $signed(z[j]) > $signed(tmax)) tmax = z[j];
    end
    m_new = first ? tmax : ($signed(tmax) > $signed(m_old) ? tmax : m_old);
    e = {m_new[31], m_new} - {m_old[31], m_old};
    alpha = first ? 32'd32768 : exp2_q15(e);
    psum = 32'd0;
    for (j = 0; j < TN; j = j + 1) begin
      e = {m_new[31], m_new} - {z[j][31], z[j]};
      p[j*8 +: 8] = vis[j] ? exp2_q7(e) : 8'd0;
      psum = psum + {24'd0, p[j*8 +: 8]};
    end
    l_new = (first ? 32'd0 : rescale_q15(l_old, alpha[16:0])) + psum;
    // FFN: the activation table (first pass) or the gate (second pass) on the INT8 scores.
    // Each sees its operands only in its own pass (operand isolation): the gate multiplier
    // p_prev x q and the table's 256-way select would otherwise switch with every row the
    // controller presents, in attention too.
    ag = 16'd0;
    if (ffn)
      for (j = 0; j < TN; j = j + 1) begin
        ag = $signed(p_prev[j*8 +: 8] & {8{gate_q}}) * $signed(q[j]);
        p[j*8 +: 8] = !vis[j] ? 8'd0 : gate_q ? requant({{16{ag[15]}}, ag}, hid_mult, hid_shift)
                                              : lut[(q[j] & {8{ffn && !gate_q}})*8 +: 8];
      end
  end
  /* verilator lint_on WIDTH */
endmodule
