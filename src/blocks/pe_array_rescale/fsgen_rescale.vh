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
