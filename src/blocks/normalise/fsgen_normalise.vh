// The fused kernels' output stage (docs/NUMERICS.md, num::normalise_quotient): O / l rounded half
// up plus the residual (attention), and the saturating residual add both kernels share. One
// definition, included by the controller (fsgen_ctrl.v), whose normaliser it is.
// clamp(a + b, -128, 127) for INT8 a and b: the residual add of both fused kernels.
function [7:0] add_sat8;
  input [7:0] a;
  input [7:0] b;
  reg signed [8:0] sum;
  begin
    sum = $signed({a[7], a}) + $signed({b[7], b});
    add_sat8 = (sum > 9'sd127) ? 8'h7f : (sum < -9'sd128) ? 8'h80 : sum[7:0];
  end
endfunction

// clamp(q + x, -128, 127) with q = clamp(floor((2 o + l) / (2 l)), -128, 127): O / l rounded
// half up. O / l is a weighted mean of INT8 values, so the quotient needs 8 bits: an
// 8-step restoring division of n + 128 d by d gives floor(n / d) + 128 in 0..255 and
// saturates outside it.
function [7:0] normalise;
  input [31:0] o;
  input [31:0] l;
  input [7:0]  x;
  reg signed [41:0] n;
  reg        [41:0] r, d;
  reg        [7:0]  q;
  integer           i;
  begin
    d = {9'd0, l, 1'b0};                                           // 2 l
    n = $signed({{9{o[31]}}, o, 1'b0}) + $signed({10'd0, l}) + $signed({1'b0, d[33:0], 7'd0});  // 2o + l + 128 d
    if ($signed(l) <= 0 || n < 0) q = 8'd0;                        // below -128 (or no keys): saturate
    else if (n >= $signed({1'b0, d[32:0], 8'd0})) q = 8'd255;       // at or above 128: saturate
    else begin
      r = n;
      for (i = 7; i >= 0; i = i - 1)
        if (r >= (d << i)) begin r = r - (d << i); q[i] = 1'b1; end else q[i] = 1'b0;
    end
    normalise = add_sat8(q ^ 8'h80, x);  // q is floor(n / d) + 128: flipping bit 7 subtracts 128
  end
endfunction
