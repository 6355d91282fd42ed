// The online-softmax rescale of docs/NUMERICS.md (num::rescale_q15): (x * alpha + 2^14) >> 15,
// arithmetic, for alpha <= 2^15 (Q0.15). One definition for every module that rescales.
function [31:0] rescale_q15;
  input [31:0] rs_x;      // names of their own: the including modules have x and alpha ports
  input [16:0] rs_alpha;
  reg signed [49:0] rs_p;
  begin
    rs_p = $signed(rs_x) * $signed({1'b0, rs_alpha}) + 50'sd16384;
    rs_p = rs_p >>> 15;
    rescale_q15 = rs_p[31:0];
  end
endfunction

// The same with operand isolation: the multiplier's operands are held at zero unless `on`,
// so acc x alpha switches only in the cycles that rescale (an accumulator that changes every
// cycle, or a factor written ahead of its step, would otherwise toggle it in every cycle).
function [31:0] rescale_q15_when;
  input        rs_on;
  input [31:0] rs_x;
  input [16:0] rs_alpha;
  begin
    rescale_q15_when = rescale_q15(rs_x & {32{rs_on}}, rs_alpha & {17{rs_on}});
  end
endfunction
