// Requantisation of docs/NUMERICS.md (num::requantize): clamp(round(acc * mult / 2^shift),
// -128, 127), rounding half up. One definition for every module that requantises.
function [7:0] requant;
  input [31:0] rq_acc;    // names of their own: the including modules have ports of these names
  input [15:0] rq_mult;
  input [4:0]  rq_shift;
  reg signed [48:0] rq_p;
  begin
    rq_p = $signed(rq_acc) * $signed({1'b0, rq_mult});
    if (rq_shift != 5'd0) rq_p = rq_p + (49'sd1 <<< (rq_shift - 5'd1));
    rq_p = rq_p >>> rq_shift;
    if (rq_p > 49'sd127) requant = 8'h7f;
    else if (rq_p < -49'sd128) requant = 8'h80;
    else requant = rq_p[7:0];
  end
endfunction
