// Systolic feeder of a sparse array: the value networks pick a whole row's (column's)
// operands in the same cycle, while a systolic array wants row i's operands i cycles
// after row 0's. Group g of the input (B bytes: one row's or column's lanes) leaves
// through g registers, so the array sees it g cycles late. The registers run every
// cycle; the controller drains them with zeros after a tile's stream.
module fsgen_skew #(
    parameter N = 8,  // groups (PE rows for x, PE columns for w)
    parameter B = 1   // bytes per group (lanes)
) (
    input  wire             clk,
    input  wire             rst_n,
    input  wire [N*B*8-1:0] in,
    output wire [N*B*8-1:0] out
);
  genvar g;
  generate
    for (g = 0; g < N; g = g + 1) begin : grp
      if (g == 0) begin : pass
        assign out[0 +: B*8] = in[0 +: B*8];
      end else begin : delay
        reg [B*8-1:0] q [0:g-1];
        integer d;
        always @(posedge clk) begin
          if (!rst_n) begin
            for (d = 0; d < g; d = d + 1) q[d] <= {B*8{1'b0}};
          end else begin
            q[0] <= in[g*B*8 +: B*8];
            for (d = 1; d < g; d = d + 1) q[d] <= q[d-1];
          end
        end
        assign out[g*B*8 +: B*8] = q[g-1];
      end
    end
  endgenerate
endmodule
