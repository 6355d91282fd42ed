// Block TopK of the fused attention kernel (compute-group sparsity, fsgen_ctrl.v with
// GRP = 1): before a query tile's key loop, rank the candidate key tiles [first, own) (the
// tiles its loop would visit before its own positions; all tiles without the causal mask).
// Per candidate the controller fetches the tile's pooled key (pool_addr, [kv head][tile][TK]
// INT8, written here through pool_we) and strobes `score`: the unit scores it against the
// sum of the tile's query rows (INT32 wrap). Then each `pick` keeps the best candidate not
// kept yet (the earlier tile on a tie) until `picked` says TOPK (or every candidate) are
// kept. The key loop visits the kept tiles and the query tile's own ones: it starts at
// first_kept and moves from key tile jt to `after` (num::key_tile_candidates and
// num::top_key_tiles, src/core/attention_numerics.h; the models' counterpart is
// src/blocks/fused_ctrl/sequencer_topk.cpp).
module fsgen_ctrl_topk #(
    parameter TM = 8,       // query rows of a tile
    parameter TN = 8,       // key rows of a tile
    parameter TK = 8,       // head dimension
    parameter W = 8,        // bytes per DMA beat
    parameter TOPK = 1,     // key tiles kept per query tile
    parameter GT = 2        // key tiles ranked per head at most
) (
    input  wire            clk,
    input  wire            begin_tile,  // a query tile starts: the first candidate is `first`
    input  wire            score,       // the fetched pooled key's score is taken
    input  wire            pick,        // one more candidate is kept
    input  wire [15:0]     first,       // first candidate tile (a sliding window's first tile)
    input  wire            causal,
    input  wire [15:0]     q_pos,       // position of the query tile's first query
    input  wire [15:0]     len_kv,
    input  wire [15:0]     kv_head,
    input  wire [15:0]     jt,          // the key loop's current tile
    input  wire [7:0]      q_rows,      // valid query rows in q_tile
    input  wire [TM*TK*8-1:0] q_tile,   // the query tile, row-major
    input  wire [31:0]     addr_pool,
    input  wire            pool_we,     // a beat of the pooled key arrives
    input  wire [7:0]      pool_beat,
    input  wire [W*8-1:0]  pool_data,
    output wire            fetch,       // a candidate is left to fetch
    output wire [31:0]     pool_addr,   // the next candidate's pooled key
    output wire            picked,      // the kept tiles are chosen
    output reg  [15:0]     first_kept,  // where the key loop starts
    output reg  [15:0]     after        // the kept tile after jt
);
  localparam integer GTW = (GT > 1) ? $clog2(GT) : 1;
  localparam [15:0] TN16 = TN[15:0];
  // Without a sliding window the first candidate is tile 0, so some comparisons are constant.
  /* verilator lint_off UNSIGNED */
  /* verilator lint_off WIDTH */
  reg  [7:0]    kpool [0:TK-1];  // the pooled key just fetched
  reg  [31:0]   tk_score [0:GT-1];
  reg  [GT-1:0] keep;            // candidates kept
  reg  [15:0]   cand;            // candidate being fetched
  reg  [7:0]    kept_n;          // candidates kept so far
  wire [15:0] tiles = (len_kv + TN16 - 16'd1) / TN16;  // key tiles per head
  wire [15:0] own_c = causal ? q_pos / TN16 : tiles;
  wire [15:0] own = (own_c < first) ? first : own_c;   // the first tile is always visited
  wire [15:0] cands = own - first;
  wire [7:0]  sel = (cands < TOPK) ? cands[7:0] : TOPK[7:0];
  assign fetch = cand < own;
  assign picked = kept_n == sel;
  assign pool_addr = addr_pool + ({16'd0, kv_head} * {16'd0, tiles} + {16'd0, cand}) * TK;
  // The sum over the tile's query rows, then the dot product with the pooled key.
  reg  [31:0] qsum [0:TK-1];
  reg  [31:0] dot;
  integer ti, tr;
  always @* begin
    dot = 32'd0;
    for (ti = 0; ti < TK; ti = ti + 1) begin
      qsum[ti] = 32'd0;
      for (tr = 0; tr < TM; tr = tr + 1)
        if (tr < q_rows) qsum[ti] = qsum[ti] + {{24{q_tile[(tr*TK + ti)*8 + 7]}}, q_tile[(tr*TK + ti)*8 +: 8]};
      dot = dot + qsum[ti] * {{24{kpool[ti][7]}}, kpool[ti]};
    end
  end
  // The best candidate not kept yet, the first kept tile, the kept tile after jt.
  /* verilator lint_off UNUSEDSIGNAL */  // a candidate's index fits GTW bits
  reg  [15:0] best;
  /* verilator lint_on UNUSEDSIGNAL */
  reg         found;
  integer tb;
  always @* begin
    best = first; found = 1'b0;
    for (tb = 0; tb < GT; tb = tb + 1)
      if (tb >= first && tb < own && !keep[tb] &&
          (!found || $signed(tk_score[tb]) > $signed(tk_score[best[GTW-1:0]]))) begin
        best = tb; found = 1'b1;
      end
    first_kept = own;
    after = (jt + 16'd1 > own) ? jt + 16'd1 : own;
    for (tb = GT - 1; tb >= 0; tb = tb - 1) begin
      if (keep[tb] && tb < own) first_kept = tb;
      if (keep[tb] && tb > jt && tb < own) after = tb;
    end
  end
  integer b;
  always @(posedge clk) begin
    if (pool_we)
      for (b = 0; b < W; b = b + 1) kpool[pool_beat*W + b] <= pool_data[b*8 +: 8];
    if (begin_tile) begin cand <= first; kept_n <= 8'd0; keep <= {GT{1'b0}}; end
    if (score) begin tk_score[cand[GTW-1:0]] <= dot; cand <= cand + 16'd1; end
    if (pick) begin keep[best[GTW-1:0]] <= 1'b1; kept_n <= kept_n + 8'd1; end
  end
  /* verilator lint_on WIDTH */
  /* verilator lint_on UNSIGNED */
endmodule
