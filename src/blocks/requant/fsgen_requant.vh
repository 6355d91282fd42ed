// Requantisation of docs/NUMERICS.md (num::requantize): clamp(round(acc * mult / 2^shift),
// -128, 127), rounding half up. One definition for every module that requantises, in two
// stages a pipelined requantiser registers between (the controller's stored rows):
//  1. requant_half: the accumulator times one byte of the multiplier (two per value);
//  2. requant_finish: their sum p, rounded as (t + 1) >> 1 = t[8:1] + t[0] with t = p >>
//     (shift - 1) (so that only the 9 bits of t are selected, no full-width shifter and no
//     rounding adder), and clamped by whether p's bits from shift + 7 up all equal its sign.
// requant is the two in one cycle.
function [40:0] requant_half;
  input [31:0] rq_acc;    // names of their own: the including modules have ports of these names
  input [7:0]  rq_byte;
  requant_half = $signed(rq_acc) * $signed({1'b0, rq_byte});
endfunction

function [7:0] requant_finish;
  input [40:0] rq_lo;     // requant_half of the multiplier's low byte
  input [40:0] rq_hi;     // and of its high byte
  input [4:0]  rq_shift;
  reg signed [48:0] rq_p;
  reg [57:0] rq_px;       // rq_p sign-extended, times 2: bit i + 1 holds rq_p's bit i
  reg [8:0]  rq_t;
  reg [49:0] rq_above;    // rq_px's bits from position shift + 8 (rq_p's from shift + 7) up
  begin
    rq_p = $signed({{8{rq_lo[40]}}, rq_lo}) + ($signed({{8{rq_hi[40]}}, rq_hi}) <<< 8);
    rq_px = {{8{rq_p[48]}}, rq_p, 1'b0};
    rq_t = rq_px[{1'b0, rq_shift} +: 9];
    rq_above = {50{1'b1}} << ({1'b0, rq_shift} + 6'd8);
    if (|((rq_px[49:0] ^ rq_px[50:1]) & rq_above)) requant_finish = rq_p[48] ? 8'h80 : 8'h7f;
    else if (rq_t == 9'h0ff) requant_finish = 8'h7f;  // (255 + 1) >> 1 = 128
    else requant_finish = rq_t[8:1] + {7'd0, rq_t[0]};
  end
endfunction

function [7:0] requant;
  input [31:0] rq_acc;
  input [15:0] rq_mult;
  input [4:0]  rq_shift;
  requant = requant_finish(requant_half(rq_acc, rq_mult[7:0]), requant_half(rq_acc, rq_mult[15:8]), rq_shift);
endfunction
