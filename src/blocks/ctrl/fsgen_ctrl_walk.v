// A walk of the matmul loop nest (fsgen_ctrl.v's loader and pass machine each keep one): the
// tile indices x0 (outermost), x1, x2 of the loops over dimensions ORD0, ORD1, ORD2 (m = 0,
// n = 1, k = 2). `restart` returns to the first tile, `step` moves to the next (the innermost
// index counts first). Whether each index is at its last value is kept in a register, set as
// the index moves, so that a step compares nothing and the moves are known a cycle ahead: the
// callers keep their addresses as offsets the moves advance (fsgen_ctrl.v, offset_next).
// The tile counts are a kernel's, held while it runs.
module fsgen_ctrl_walk #(
    parameter ORD0 = 0,
    parameter ORD1 = 1,
    parameter ORD2 = 2
) (
    input  wire        clk,
    input  wire        rst_n,
    input  wire        restart,
    input  wire        step,
    input  wire [15:0] tiles_m,
    input  wire [15:0] tiles_n,
    input  wire [15:0] tiles_k,
    output wire [15:0] mt,
    output wire [15:0] nt,
    output wire [15:0] kt,
    output wire [2:0]  at_end,  // per dimension (bit 0 m, 1 n, 2 k): its index is its last
    output wire        last,    // the walk's last tile
    output wire [2:0]  up,      // per dimension: the next step adds one to its index
    output wire [2:0]  zero     // per dimension: the next step returns its index to 0
);
  wire [15:0] n0 = (ORD0 == 0) ? tiles_m : (ORD0 == 1) ? tiles_n : tiles_k;  // each loop's tiles
  wire [15:0] n1 = (ORD1 == 0) ? tiles_m : (ORD1 == 1) ? tiles_n : tiles_k;
  wire [15:0] n2 = (ORD2 == 0) ? tiles_m : (ORD2 == 1) ? tiles_n : tiles_k;
  reg [15:0] x0, x1, x2;
  reg        z0, z1, z2;  // xN is loop N's last index (nN - 1)
  always @(posedge clk) begin
    if (!rst_n) begin
      x0 <= 16'd0; x1 <= 16'd0; x2 <= 16'd0; z0 <= 1'b0; z1 <= 1'b0; z2 <= 1'b0;
    end else if (restart) begin
      x0 <= 16'd0; x1 <= 16'd0; x2 <= 16'd0;
      z0 <= n0 == 16'd1; z1 <= n1 == 16'd1; z2 <= n2 == 16'd1;
    end else if (step) begin
      x2 <= z2 ? 16'd0 : x2 + 16'd1;
      z2 <= z2 ? n2 == 16'd1 : x2 + 16'd2 == n2;
      if (z2) begin
        x1 <= z1 ? 16'd0 : x1 + 16'd1;
        z1 <= z1 ? n1 == 16'd1 : x1 + 16'd2 == n1;
      end
      if (z2 && z1) begin
        x0 <= x0 + 16'd1;
        z0 <= x0 + 16'd2 == n0;
      end
    end
  end
  // The moves of the loops (bit L: loop L), then of the dimensions.
  wire [2:0] up_l = {!z2, z2 && !z1, z2 && z1}, zero_l = {z2, z2 && z1, 1'b0};
  genvar d;
  generate
    for (d = 0; d < 3; d = d + 1) begin : dim
      localparam integer L = (ORD0 == d) ? 0 : (ORD1 == d) ? 1 : 2;  // its loop
      assign up[d] = up_l[L];
      assign zero[d] = zero_l[L];
      assign at_end[d] = (L == 0) ? z0 : (L == 1) ? z1 : z2;
    end
  endgenerate
  assign mt = (ORD0 == 0) ? x0 : (ORD1 == 0) ? x1 : x2;
  assign nt = (ORD0 == 1) ? x0 : (ORD1 == 1) ? x1 : x2;
  assign kt = (ORD0 == 2) ? x0 : (ORD1 == 2) ? x1 : x2;
  assign last = z0 && z1 && z2;
endmodule
