// Tile sequencer of the matmul kernel. Two machines walk the loop nest (ORD0 outermost ..
// ORD2 innermost over m=0, n=1, k=2): the loader (L_*) finds each tile's operands in the
// buffer slots that hold them (SA tiles of A, SB of B, each slot tagged) or loads them into
// the next slot of a ring once no pass needs it, and queues the tile; the pass machine
// (S_*) takes the queued tiles in order, feeds the PE array as soon as a tile's bursts are
// in, and when the reduction over k is complete requantises the output tile and stores it.
// Loads go to the DMA's read port and stores to its write port, so the loader runs up to
// FD tiles ahead of the pass, as far as the slots allow. The cycle counts are the timing
// contract mirrored by the models (src/blocks/ctrl/sequencer.h and its executors).
//   ST = 0 output-stationary: x = column of A, w = row of B, accumulate in the PEs.
//   ST = 1 weight-stationary: B tile loaded into the PEs, rows of A streamed.
//   ST = 2 input-stationary:  A tile loaded into the PEs, columns of B streamed.
// With ATTN = 1 the same array a computes the fused kernels' score tiles S = Q K^T and
// array b (stationarity STB, same codes) accumulates O = alpha O + P V: an
// output-stationary array b keeps O in its PEs, a dot array b writes it to its
// accumulator cache (acwb_*). K and V tiles of the current KV head stay in cache slots
// of buf_b (KC and VC tiles, slot 0 is the working tile), so later query tiles and the
// other heads of a GQA group read them without a DMA load. With DUAL = 1 a matmul tile
// is NB = TN + TK columns: array a computes the first TN, array b (TM x TK) the next TK
// from the same column of A each step, and a stored row carries both. A systolic
// output-stationary array (SYS_A / SYS_B) is fed skewed operands: lane g of x and w
// enters g cycles late, so a tile streams R + C - 2 cycles longer.
// Units, each instantiated only by a core that uses it:
//   fsgen_ctrl_rows    every load (one instance) and store (another) of every kernel, a DMA
//                      command per row (always);
//   fsgen_ctrl_pass    a pass of each array (always);
//   fsgen_ctrl_walk    the matmul loop nest's walks: the loader's and the pass machine's (always);
//   fsgen_ctrl_buffer  the operand buffers buf_a and buf_b (always): flip-flops, or SRAM
//                      macros at size;
//   fsgen_ctrl_window  SPARSE = 1: compute-value sparsity's window scheduler, beside the
//                      value networks (src/blocks/sparse_net/);
//   fsgen_ctrl_topk    GRP = 1: block TopK's ranking of key tiles (src/blocks/fused_ctrl/);
//   fsgen_ctrl_meta    CMP_A / CMP_B = 1: compressed operands' metadata records;
// and the included functions of the requantiser (fsgen_requant.vh) and the normaliser
// (fsgen_normalise.vh).
module fsgen_ctrl #(
    parameter TM = 8,
    parameter TN = 8,
    parameter TK = 8,
    parameter W = 8,
    parameter ST = 0,
    parameter ORD0 = 0,
    parameter ORD1 = 1,
    parameter ORD2 = 2,
    parameter M_LIVE = 0,
    parameter N_LIVE = 0,
    parameter ATTN = 0,                                // 1: the fused attention kernel is built
    parameter STB = 0,                                 // stationarity of array b (ATTN = 1)
    parameter KC = 0,                                  // K tile cache slots (ATTN = 1)
    parameter VC = 0,                                  // V tile cache slots (ATTN = 1)
    parameter DUAL = 0,                                // 1: matmul on both arrays (a and b output-stationary)
    parameter SYS_A = 0,                               // 1: output-stationary array a is systolic
    parameter SYS_B = 0,                               // 1: output-stationary array b is systolic
    parameter SA = 1,                                  // matmul A tiles the operand buffer holds (slots)
    parameter SB = 1,                                  // matmul B tiles the operand buffer holds
    parameter TAGW = 11,                               // bits of a read burst's tag: {destination, slot, row}
    parameter WIN = 0,                                 // sliding window (ATTN = 1, causal): keys a query attends; 0 = all
    parameter CMP_A = 0,                               // 1: A is compressed (zero rows skipped)
    parameter CMP_B = 0,                               // 1: B is compressed
    parameter MA_BEATS = 1,                            // beats of one A tile's metadata record
    parameter MB_BEATS = 1,                            // beats of one B tile's metadata record
    parameter GRP = 0,                                 // 1: block TopK over key tiles (ATTN = 1)
    /* verilator lint_off UNUSEDPARAM */               // passed to a unit only a core with its feature has
    parameter TOPK = 1,                                // key tiles kept per query tile (GRP = 1)
    parameter GT = 2,                                  // key tiles ranked per head at most (GRP = 1)
    /* verilator lint_on UNUSEDPARAM */
    parameter SPARSE = 0,                              // 1: value networks skip zero operand steps
    parameter SK = 1,                                  // window: k steps offered per cycle (S of k)
    parameter LM = 1,                                  // row lanes (x sparse: TT_m / T_m)
    parameter LN = 1,                                  // column lanes (w sparse: TT_n / T_n)
    /* verilator lint_off UNUSEDPARAM */
    parameter XSP = 0,                                 // 1: skip steps whose x rows are zero
    parameter WSP = 0,                                 // 1: skip steps whose w columns are zero
    /* verilator lint_on UNUSEDPARAM */
    parameter SELW = (SK > 1) ? $clog2(SK) : 1,        // bits of a window step select
    parameter BM = TM,                                 // array b tiling (queries, head dims, keys): a dot
    parameter BN = TK,                                 //   array b smaller than the O tile runs one pass
    parameter BK = TN,                                 //   per sub-tile
    parameter NB = DUAL ? TN + TK : TN,                // columns of a matmul tile (B and C rows, bytes)
    parameter XB = (ST == 0) ? TM : TK,                // bytes on the x bus
    parameter WB = (ST == 2) ? TK : TN,                // bytes on the w bus
    parameter YL = (ST == 2) ? TM : TN,                // lanes of the dot array output
    parameter XBB = (STB == 0) ? TM : BK,              // bytes on array b's x bus
    parameter WBB = (STB == 0) ? TK : (STB == 1) ? BN : BK  // bytes on array b's w bus
) (
    input  wire            clk,
    input  wire            rst_n,
    input  wire            start,
    input  wire [15:0]     tiles_m,
    input  wire [15:0]     tiles_n,
    input  wire [15:0]     tiles_k,
    input  wire [31:0]     addr_a,
    input  wire [31:0]     addr_b,
    input  wire [31:0]     addr_c,
    input  wire [31:0]     stride_a,
    input  wire [31:0]     stride_b,
    input  wire [31:0]     stride_c,
    input  wire [15:0]     req_mult,
    input  wire [4:0]      req_shift,
    input  wire [31:0]     kernel,
    input  wire [31:0]     addr_v,
    input  wire [31:0]     addr_x,
    input  wire [15:0]     len_q,
    input  wire [15:0]     len_kv,
    input  wire [15:0]     heads,
    input  wire [15:0]     group,
    input  wire [15:0]     q_pos0,
    input  wire [2:0]      attn_flags,
    input  wire [31:0]     head_stride_q,
    input  wire [31:0]     head_stride_kv,
    input  wire [31:0]     addr_lut,
    input  wire [31:0]     addr_w3,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [31:0]     addr_meta_a,   // read only with CMP_A = 1
    input  wire [31:0]     addr_meta_b,   // read only with CMP_B = 1
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [31:0]     addr_pool,     // read only with GRP = 1
    // bit0: B given transposed (N x K rows), read only with CMP_B = 0; bit1: the activation
    // epilogue, bit2: gated (read only with ATTN = 1 and DUAL = 0)
    input  wire [2:0]      mm_flags,
    /* verilator lint_on UNUSEDSIGNAL */
    /* verilator lint_on UNUSEDSIGNAL */
    output wire            busy,
    output wire            done_pulse,
    output reg  [31:0]     cycles,
    // DMA: loads on its read port, stores on its write port
    output wire            rcmd_valid,
    output wire [31:0]     rcmd_addr,
    output wire [7:0]      rcmd_beats,
    output wire [TAGW-1:0] rcmd_tag,
    input  wire            rcmd_ready,
    output wire            wcmd_valid,
    output wire [31:0]     wcmd_addr,
    output wire [7:0]      wcmd_beats,
    input  wire            wcmd_ready,
    input  wire            rd_valid,
    input  wire [7:0]      rd_beat,
    input  wire [TAGW-1:0] rd_tag,
    input  wire            rd_last,
    input  wire [W*8-1:0]  rd_data,
    input  wire            rd_idle,
    input  wire [7:0]      wr_beat,
    output wire [W*8-1:0]  wr_data,
    input  wire            w_free,
    input  wire            wr_idle,
    // PE array
    output reg  [XB*8-1:0] x_q /*verilator public_flat_rd*/,
    output reg  [WB*8-1:0] w_q /*verilator public_flat_rd*/,
    output reg             v_q,
    output reg             clr_q,
    output reg             ld_q,
    output reg  [7:0]      idx_q,
    input  wire [YL*32-1:0] y,
    // value networks (SPARSE = 1): the window of operands and each block's step
    output wire [TM*SK*8-1:0] xwin,
    output wire [TN*SK*8-1:0] wwin,
    output wire [LM*LN*SELW-1:0] sp_sel,
    output wire [LM*LN-1:0] sp_has,
    output wire            sp_step,
    // accumulation (PE accumulators or accumulator cache)
    output wire            acw,
    output wire            acw_first,
    output wire [15:0]     ac_slot,
    output reg  [7:0]      acw_idx,
    output wire [YL*32-1:0] acw_data,
    output wire [7:0]      rd_row,
    input  wire [TN*32-1:0] acc_rd_data,
    // array b (attention: O += P V, rows = TM queries, columns = TK head dims)
    output reg  [XBB*8-1:0] xb_q /*verilator public_flat_rd*/,
    output reg  [WBB*8-1:0] wb_q /*verilator public_flat_rd*/,
    output reg              vb_q,
    output reg              clrb_q,
    output reg              scb_q,
    output reg              ldb_q,
    output reg  [7:0]       idxb_q,
    output reg              acwb,        // dot array b: write its output vector to the O cache
    output reg              acwb_first,
    output reg              acwb_sc,
    output reg  [7:0]       acwb_idx,
    output reg  [7:0]       acwb_off,
    output reg  [TM*32-1:0] alpha_q /*verilator public_flat_rd*/,
    output wire [7:0]       rdb_row,
    input  wire [TK*32-1:0] rdb_data,
    // the softmax / activation unit beside the controller (fsgen_softmax, ATTN = 1), on
    // the score rows of acc_rd_data: the row it loads and that row's running state
    output wire             sm_ld,
    output wire             sm_first,
    output wire [31:0]      sm_m_old,
    output wire [31:0]      sm_l_old,
    output wire [15:0]      sm_q_pos,
    output wire [15:0]      sm_j0,
    output wire             sm_ffn,
    output wire             sm_gate,
    output wire [TN*8-1:0]  sm_p_prev,
    output wire [2047:0]    sm_lut,
    /* verilator lint_off UNUSEDSIGNAL */  // read only with ATTN = 1
    input  wire             sm_v,      // the unit holds a row: the next are its outputs
    input  wire [31:0]      sm_mnew,
    input  wire [31:0]      sm_alpha,
    input  wire [31:0]      sm_lnew,
    input  wire [TN*8-1:0]  sm_p
    /* verilator lint_on UNUSEDSIGNAL */
);
  // States that move rows (the loader's L_MA, L_A, L_MB, L_B; S_ST, A_LD, A_FIN) last as
  // long as their transfer on a row sequencer (fsgen_ctrl_rows.v); states that run an
  // array's pass (S_COMP, A_S on array a, A_O on array b) as long as the pass on the pass
  // sequencer (fsgen_ctrl_pass.v). Both start as such a state is entered (a loader state
  // once its slot is free).
  localparam [4:0] S_IDLE = 5'd0, S_TILE = 5'd1, S_COMP = 5'd6, S_ST = 5'd7, S_NEXT = 5'd8, S_DONE = 5'd9;
  // Fused attention / FFN states (ATTN = 1): TM = query rows, TN = key rows, TK = head dim.
  localparam [4:0] A_LUT = 5'd10,                                // FFN: activation table load
                   A_QT = 5'd11, A_LD = 5'd12, A_KT = 5'd13, A_S = 5'd14, A_SM = 5'd15,
                   A_GLD = 5'd16,                                // FFN: gate weight load
                   A_VLD = 5'd17, A_O = 5'd18, A_KNEXT = 5'd19, A_FIN = 5'd20, A_QNEXT = 5'd21,
                   A_TKI = 5'd22, A_TKC = 5'd23, A_TKS = 5'd24;  // block TopK: fetch, score, select
  // Matmul with the gated activation epilogue: a W1 tile's activations into p_buf (ATTN = 1).
  localparam [4:0] S_ACT = 5'd25;
  localparam integer BEATS_A = TK / W;
  localparam integer BEATS_B = NB / W;
  // B given transposed (mm_flags bit0): a B tile loads as NB rows of TK bytes, each beat
  // written down a column of buf_b. A compressed B is always K x N rows.
  wire       bt = (CMP_B == 0) && mm_flags[0];
  // Passes of array a (stationary rows, stream, tail) and of array b over (m, n, k) =
  // (TM queries, TK head dims, TN keys), sub-tile by sub-tile for a dot array b.
  localparam integer S_ROWS = (ST == 1) ? TK : TM;  // rows of the stationary tile
  localparam integer STREAM = (ST == 0) ? TK + (SYS_A ? TM + TN - 2 : 0) : (ST == 1) ? TM : TN;
  localparam integer TAIL = (ST == 0) ? 1 : 2;
  localparam integer SB_ROWS = (STB == 1) ? BK : BM;
  localparam integer STREAM_B = (STB == 0) ? TN + (SYS_B ? TM + TK - 2 : 0) : (STB == 1) ? BM : BN;
  localparam integer TAIL_B = (STB == 0) ? 1 : 2;
  // Index ranges of the x and w selects (x: column of A / row of A / column of B;
  // w: row of B / row of B / row of A); indices are clamped so no select leaves its vector.
  localparam integer X_ROWS = (ST == 0) ? TK : (ST == 1) ? TM : TN;
  localparam integer W_ROWS = (ST == 2) ? TM : TK;
  localparam integer LUT_ROWS = 256 / TK;  // FFN activation table rows of TK bytes
  localparam [15:0] KC16 = KC[15:0];
  localparam [7:0]  BM8 = BM[7:0], BN8 = BN[7:0], BK8 = BK[7:0];

  reg [4:0]  state;
  reg [15:0] pm, pn, pk;                 // the previous pass's tile: its A is (m, k), its B (k, n)
  reg        first;
  reg [7:0]  kk;                         // the softmax pass's row (A_SM)
  reg        yv_q;
  // Operand buffers (fsgen_ctrl_buffer.v: flip-flops, or an SRAM macro at size): SA tiles
  // of A and SB tiles of B in matmul, each slot tagged with its tile; the pass reads the
  // slots sa, sb while the loader fills the next slots (pa, pb: a ring).
  localparam integer A_SLOT = TM*TK, B_SLOT = TK*NB;  // bytes of a matmul slot
  localparam integer SAW = (SA > 1) ? $clog2(SA) : 1, SBW = (SB > 1) ? $clog2(SB) : 1;
  localparam integer SLW = TAGW - 10;                 // slot bits of a read tag (>= SAW, SBW)
  // Read lanes of buf_a, in groups: the array feed (a column of A, or a row), the window
  // scheduler's steps, the normaliser's residual row (ATTN), block TopK's Q tile (GRP).
  localparam integer RA_FEED = 0, NA_FEED = (ST == 0) ? TM : TK;
  localparam integer RA_WIN = RA_FEED + NA_FEED, NA_WIN = TM*SK;
  localparam integer RA_FIN = RA_WIN + NA_WIN, NA_FIN = (ATTN != 0) ? TK : 0;
  localparam integer RA_Q = RA_FIN + NA_FIN, NA_Q = (GRP != 0) ? TM*TK : 0;
  localparam integer RL_A = RA_Q + NA_Q;
  wire [RL_A*32-1:0] ra_a;  // each lane's byte address
  wire [RL_A*8-1:0]  rd_a;  // and the byte there
  // Matmul: TK x NB tiles of B. Fused kernels: slot 0, then the K and V cache slots.
  // Fused kernels: slot 0, the K and V cache slots, and the V working slot (attention's V
  // rows load beside the score pass, so they need a slot of their own).
  localparam integer FB = (ATTN != 0) ? 2 + KC + VC : 1;
  localparam integer BUF_B = (FB*TN > SB*NB) ? FB*TK*TN : SB*TK*NB;
  localparam [SAW-1:0] SA_LAST = SA[SAW-1:0] - 1'b1;  // the ring's last slot
  localparam [SBW-1:0] SB_LAST = SB[SBW-1:0] - 1'b1;
  reg [SAW-1:0] sa, pa;
  reg [SBW-1:0] sb, pb;
  reg [15:0]    ta_m [0:SA-1], ta_k [0:SA-1];  // A tile (m, k) of each slot
  reg [15:0]    tb_k [0:SB-1], tb_n [0:SB-1];  // B tile (k, n) of each slot
  reg [SA-1:0]  ta_v;
  reg [SB-1:0]  tb_v;
  // Read lanes of buf_b: the array feed (a row of B, or a column), array b's matmul columns
  // (DUAL), the window scheduler's steps in both views (matmul B, fused K), and the fused
  // kernels' key feed of array a and V feed of array b (ATTN).
  localparam integer RB_FEED = 0, NB_FEED = (ST == 2) ? TK : TN;
  localparam integer RB_DUAL = RB_FEED + NB_FEED, NB_DUAL = (DUAL != 0) ? TK : 0;
  localparam integer RB_WMM = RB_DUAL + NB_DUAL, NB_WIN = TN*SK;
  localparam integer RB_WAT = RB_WMM + NB_WIN;
  localparam integer RB_KEY = RB_WAT + NB_WIN, NB_KEY = (ATTN == 0) ? 0 : (ST == 2) ? TK : TN;
  localparam integer RB_V = RB_KEY + NB_KEY;
  localparam integer NB_V = (ATTN == 0) ? 0 : (STB == 0) ? TK : (STB == 1) ? BN : BK;
  localparam integer RL_B = RB_V + NB_V;
  wire [RL_B*32-1:0] ra_b;
  wire [RL_B*8-1:0]  rd_b;
  reg [NB*32-1:0] acc_row_q /*verilator public_flat_rd*/;
  reg [NB*8-1:0]  out_row_q /*verilator public_flat_rd*/;
  // The requantiser's pipeline register (fsgen_requant.vh): a stored row's accumulators times
  // the multiplier's low and high bytes, from its CONV cycle; its first ISSUE cycle finishes
  // the row into out_row_q, which the DMA reads from the next cycle on (fsgen_dma.v).
  reg [NB*41-1:0] rq_lo_q, rq_hi_q;

  // Addresses advance by increments: a tile index times a step is kept in a register that a
  // move of the index (fsgen_ctrl_walk.v) adds the step to or clears (no multiplier between a
  // counter and an address).
  function [31:0] offset_next;
    input up, zero;
    input [31:0] offset, step;
    offset_next = zero ? 32'd0 : up ? offset + step : offset;
  endfunction
  // The pass machine's walk of the loop nest (S_NEXT steps it).
  wire [15:0] mt, nt, kt;
  /* verilator lint_off UNUSEDSIGNAL */  // C's address has no k term; the k loop's end is asked alone
  wire [2:0]  c_end, c_up, c_zero;
  /* verilator lint_on UNUSEDSIGNAL */
  wire        last_iter;
  fsgen_ctrl_walk #(.ORD0(ORD0), .ORD1(ORD1), .ORD2(ORD2)) u_walk_c (
      .clk(clk), .rst_n(rst_n), .restart(state == S_IDLE && start), .step(state == S_NEXT && !last_iter),
      .tiles_m(tiles_m), .tiles_n(tiles_n), .tiles_k(tiles_k), .mt(mt), .nt(nt), .kt(kt), .at_end(c_end),
      .last(last_iter), .up(c_up), .zero(c_zero));
  wire        k_last = c_end[2];
  wire [15:0] slot_m = M_LIVE ? mt : 16'd0;
  wire [15:0] slot_w = N_LIVE ? tiles_n : 16'd1;
  wire [15:0] slot_n = N_LIVE ? nt : 16'd0;
  wire [15:0] slot_full = slot_m * slot_w + slot_n;

  // ---- the matmul loader: its own walk of the loop nest (u_walk_l), a tile at a time ----
  // L_LOOK finds the tile's A and B in the slots; each one no slot holds loads into the
  // ring's next slot (L_A, L_B; a compressed operand's metadata record first, L_MA, L_MB)
  // once that slot is free: no queued tile and no running pass reads it. The load's rows
  // are issued without waiting for their data (every beat carries its destination in its
  // tag). L_PUSH queues the tile's slots with the count of read bursts issued so far; the
  // pass machine takes the tile (S_TILE) when that many bursts are done.
  localparam [2:0] L_IDLE = 3'd0, L_LOOK = 3'd1, L_MA = 3'd2, L_A = 3'd3, L_MB = 3'd4, L_B = 3'd5,
                   L_PUSH = 3'd6, L_END = 3'd7;
  localparam integer FD = 4;                     // tiles queued at most
  localparam [1:0] D_A = 2'd0, D_B = 2'd1, D_META = 2'd2, D_FUSED = 2'd3;  // a read beat's destination
  reg  [2:0]  ls;
  reg         need_b;                    // the loader's tile loads B after its A
  reg  [SAW-1:0] l_sa;                   // the loader's tile's slots
  reg  [SBW-1:0] l_sb;
  reg  [SAW-1:0] q_sa [0:FD-1];          // the queue: slots and bursts to wait for of each tile
  reg  [SBW-1:0] q_sb [0:FD-1];
  reg  [15:0] q_bursts [0:FD-1];
  reg  [FD-1:0] q_v;
  reg  [1:0]  q_head, q_tail;
  reg  [15:0] rd_issued, rd_done;        // read bursts taken by the DMA / whose last beat has come
  wire [15:0] lmt, lnt, lkt;              // the loader's tile
  wire [2:0]  l_up, l_zero;
  wire        l_last;
  wire        fused_kernel = (ATTN != 0) && (kernel == 32'd1 || kernel == 32'd2);
  // The activation epilogue (mm_flags bit1; a fused core whose matmul tile is array a's, TN =
  // NB): each output row passes through the activation unit as it is stored, C = act(requant(
  // acc)). Gated (bit2), B's n tiles come in pairs, W1's columns then W3's: an even tile's
  // activations are held in p_buf (S_ACT, no store), the odd tile stores the gate product
  // requant(act x requant(acc)) into C's column block nt / 2.
  wire        mm_act = (ATTN != 0) && (DUAL == 0) && !fused_kernel && mm_flags[1];
  wire        mm_gated = mm_act && mm_flags[2];
  wire        mm_hold = mm_gated && !nt[0];
  // The pass machine takes the queue's head once the bursts issued before it was queued are done.
  /* verilator lint_off UNUSEDSIGNAL */  // its sign: bursts still to come (counts wrap)
  wire [15:0] head_wait = rd_done - q_bursts[q_head];
  /* verilator lint_on UNUSEDSIGNAL */
  wire        tile_ready = q_v[q_head] && !head_wait[15];
  wire        pop = state == S_TILE && tile_ready;
  reg         hit_a, hit_b, a_needed, b_needed;
  reg [SAW-1:0] hit_sa;
  reg [SBW-1:0] hit_sb;
  integer si;
  always @(*) begin
    hit_a = 1'b0; hit_sa = {SAW{1'b0}};
    for (si = SA - 1; si >= 0; si = si - 1)
      if (ta_v[si] && ta_m[si] == lmt && ta_k[si] == lkt) begin hit_a = 1'b1; hit_sa = si[SAW-1:0]; end
    hit_b = 1'b0; hit_sb = {SBW{1'b0}};
    for (si = SB - 1; si >= 0; si = si - 1)
      if (tb_v[si] && tb_k[si] == lkt && tb_n[si] == lnt) begin hit_b = 1'b1; hit_sb = si[SBW-1:0]; end
    // The ring's next slots are needed while the running pass or a queued tile reads them.
    a_needed = state == S_COMP && sa == pa;
    b_needed = state == S_COMP && sb == pb;
    for (si = 0; si < FD; si = si + 1) begin
      if (q_v[si] && q_sa[si] == pa) a_needed = 1'b1;
      if (q_v[si] && q_sb[si] == pb) b_needed = 1'b1;
    end
  end
  wire        l_loads_a = ls == L_MA || ls == L_A, l_loads_b = ls == L_MB || ls == L_B;
  wire        l_meta = ls == L_MA || ls == L_MB;
  wire        l_moves = (l_loads_a && !a_needed) || (l_loads_b && !b_needed);

  // ---- row transfers: loads on the DMA's read port, stores on its write port ----
  wire [7:0] r_row, w_row;               // the row being loaded / stored
  wire       r_issue, r_last, w_issue, w_last, rows_read, rows_conv;
  // The loader starts with the kernel, or, with the activation epilogue, once the table is in.
  wire        mm_start = (state == S_IDLE && start && !fused_kernel && !mm_act) ||
                         (ATTN != 0 && state == A_LD && r_last && !at_mode);
  wire        l_step = ls == L_PUSH && !q_v[q_tail] && !l_last;  // the tile is queued: on to the next
  /* verilator lint_off UNUSEDSIGNAL */  // the loader asks only whether its walk is over
  wire [2:0]  l_end;
  /* verilator lint_on UNUSEDSIGNAL */
  fsgen_ctrl_walk #(.ORD0(ORD0), .ORD1(ORD1), .ORD2(ORD2)) u_walk_l (
      .clk(clk), .rst_n(rst_n), .restart(ls == L_IDLE && mm_start), .step(l_step), .tiles_m(tiles_m),
      .tiles_n(tiles_n), .tiles_k(tiles_k), .mt(lmt), .nt(lnt), .kt(lkt), .at_end(l_end), .last(l_last),
      .up(l_up), .zero(l_zero));
  /* verilator lint_off UNUSEDSIGNAL */  // a load has no READ and CONV, a store issues no skip
  wire       r_read_unused, r_conv_unused;
  /* verilator lint_on UNUSEDSIGNAL */
  // Matmul rows of A and C (len_q; 0: whole tiles): A's rows past them are not fetched (a
  // decode token is one row, not a tile of them) and the feeds read them as zeros; C's are
  // not stored.
  wire        rows_cut = !at_mode && len_q != 16'd0;
  // The rows of m tile t: TM, or those left of len_q in the last.
  function [7:0] m_tile_rows;
    input [15:0] t;
    reg [31:0] left;
    begin
      left = {16'd0, len_q} - {16'd0, t} * TM;
      m_tile_rows = (rows_cut && left < TM) ? left[7:0] : TM[7:0];
    end
  endfunction
  // Registered from the tile indices: the loader's moves at L_PUSH and is read from L_A on, the
  // pass machine's at S_NEXT and is read from S_COMP on.
  reg  [7:0]  la_rows;                     // the loader's tile's rows of A
  reg  [7:0]  m_rows;                      // the pass's tile's rows of A and C
  always @(posedge clk) begin
    la_rows <= m_tile_rows(lmt);
    m_rows <= m_tile_rows(mt);
  end
  wire        r_skip = (ls == L_A && skip_a_row) || (ls == L_B && skip_b_row);
  // (A core without the fused kernels loads only the loader's rows: its terms guarded by ATTN,
  // as rcmd_addr's are, so that the row counts' compares do not wait on the fused states.)
  wire [7:0] r_rows = (ls == L_A) ? la_rows : (ls == L_B) ? (bt ? NB[7:0] : TK[7:0]) :
                      (l_meta || ATTN == 0) ? 8'd1 : v_pre ? at_kv_rows : at_ld_rows;
  wire [31:0] r_stride = (ls == L_A) ? stride_a : (ls == L_B) ? stride_b : at_row;
  wire [31:0] r_off, w_off;              // the row's offset from the transfer's first row
  fsgen_ctrl_rows u_rows_rd (
      .clk(clk), .rst_n(rst_n), .active(l_moves || state == A_LD || v_pre), .store(1'b0),
      .drain(!(ls == L_A || ls == L_B || v_pre)), .clear(1'b0), .rows(r_rows), .stride(r_stride), .skip(r_skip),
      .cmd_ready(rcmd_ready), .w_free(1'b0), .idle(rd_idle), .read(r_read_unused), .conv(r_conv_unused),
      .issue(r_issue), .last(r_last), .row(r_row), .offset(r_off));
  // A tile or a query tile starts storing at row 0 (a store leaves the counter at its last row).
  wire       rows_clear = state == S_TILE || state == A_QT || state == A_LUT || state == A_QNEXT;
  // A stored row's stride, registered: a store's first row advances no earlier than its third
  // cycle (READ, CONV, ISSUE).
  reg  [31:0] w_stride;
  always @(posedge clk) w_stride <= (state == S_ST) ? stride_c : at_row;
  fsgen_ctrl_rows u_rows_wr (
      .clk(clk), .rst_n(rst_n), .active(state == S_ST || state == A_FIN), .store(1'b1), .drain(1'b1),
      .clear(rows_clear), .rows((ATTN == 0 || state == S_ST) ? m_rows : at_rows), .stride(w_stride),
      .skip(1'b0), .cmd_ready(wcmd_ready), .w_free(w_free), .idle(wr_idle), .read(rows_read), .conv(rows_conv),
      .issue(w_issue), .last(w_last), .row(w_row), .offset(w_off));

  // ---- compressed operands (CMP_A, CMP_B): the loader's tile's metadata record ----
  wire        skip_a_row, skip_b_row;
  /* verilator lint_off UNUSEDSIGNAL */  // read only with CMP_A / CMP_B = 1
  wire [31:0] meta_a_addr, meta_b_addr;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [1:0]  rt_dst = rd_tag[TAGW-1 -: 2];  // a read beat's destination, slot and row
  wire [SLW-1:0] rt_slot = rd_tag[8 +: SLW];
  wire [7:0]  rt_row = rd_tag[7:0];
  generate
    if (CMP_A != 0 || CMP_B != 0) begin : meta
      fsgen_ctrl_meta #(.W(W), .CMP_A(CMP_A), .CMP_B(CMP_B), .MA_BEATS(MA_BEATS), .MB_BEATS(MB_BEATS)) u_meta (
          .clk(clk), .rst_n(rst_n), .we(rd_valid && rt_dst == D_META), .beat(rd_beat), .data(rd_data),
          .row(r_row), .mt(lmt), .nt(lnt), .kt(lkt), .tiles_n(tiles_n), .tiles_k(tiles_k),
          .addr_meta_a(addr_meta_a), .addr_meta_b(addr_meta_b), .skip_a_row(skip_a_row), .skip_b_row(skip_b_row),
          .meta_a_addr(meta_a_addr), .meta_b_addr(meta_b_addr));
    end else begin : no_meta
      assign skip_a_row = 1'b0; assign skip_b_row = 1'b0;
      assign meta_a_addr = 32'd0; assign meta_b_addr = 32'd0;
    end
  endgenerate

  always @(posedge clk) begin
    if (!rst_n) begin
      ls <= L_IDLE; need_b <= 1'b0;
      l_sa <= {SAW{1'b0}}; l_sb <= {SBW{1'b0}}; pa <= {SAW{1'b0}}; pb <= {SBW{1'b0}};
      ta_v <= {SA{1'b0}}; tb_v <= {SB{1'b0}}; q_v <= {FD{1'b0}}; q_head <= 2'd0; q_tail <= 2'd0;
      rd_issued <= 16'd0; rd_done <= 16'd0;
    end else begin
      rd_issued <= rd_issued + {15'd0, rcmd_valid && rcmd_ready};
      rd_done <= rd_done + {15'd0, rd_last};
      if (pop) begin q_v[q_head] <= 1'b0; q_head <= q_head + 2'd1; end
      case (ls)
        L_IDLE: if (mm_start) begin
          pa <= {SAW{1'b0}}; pb <= {SBW{1'b0}};
          ta_v <= {SA{1'b0}}; tb_v <= {SB{1'b0}};
          ls <= L_LOOK;
        end
        L_LOOK: begin
          need_b <= !hit_b;
          l_sa <= hit_a ? hit_sa : pa;
          l_sb <= hit_b ? hit_sb : pb;
          ls <= !hit_a ? ((CMP_A != 0) ? L_MA : L_A) : !hit_b ? ((CMP_B != 0) ? L_MB : L_B) : L_PUSH;
        end
        L_MA: if (r_last) ls <= L_A;
        L_A: if (r_last) begin
          ta_m[pa] <= lmt; ta_k[pa] <= lkt; ta_v[pa] <= 1'b1;
          pa <= (pa == SA_LAST) ? {SAW{1'b0}} : pa + 1'b1;
          ls <= need_b ? ((CMP_B != 0) ? L_MB : L_B) : L_PUSH;
        end
        L_MB: if (r_last) ls <= L_B;
        L_B: if (r_last) begin
          tb_k[pb] <= lkt; tb_n[pb] <= lnt; tb_v[pb] <= 1'b1;
          pb <= (pb == SB_LAST) ? {SBW{1'b0}} : pb + 1'b1;
          ls <= L_PUSH;
        end
        L_PUSH: if (!q_v[q_tail]) begin
          q_sa[q_tail] <= l_sa; q_sb[q_tail] <= l_sb; q_bursts[q_tail] <= rd_issued; q_v[q_tail] <= 1'b1;
          q_tail <= q_tail + 2'd1;
          ls <= l_last ? L_END : L_LOOK;
        end
        default: if (state == S_DONE) ls <= L_IDLE;  // L_END: every tile queued
      endcase
    end
  end

  // ---- array passes: array a's in S_COMP (matmul; array b alongside with DUAL = 1) and A_S
  // (scores), array b's in A_O; ka / kbp are their steps ----
  reg        load_a;                     // the next pass of array a loads its stationary operand
  /* verilator lint_off UNUSEDSIGNAL */  // read only with SPARSE = 1
  wire       sp_tile_end;                // a sparse stream's last cycle (the window scheduler)
  /* verilator lint_on UNUSEDSIGNAL */
  wire [7:0] ka, kbp;
  wire       pa_load, pa_stream, pa_tail, pa_last;
  /* verilator lint_off UNUSEDSIGNAL */  // array b's pass runs only with ATTN = 1
  wire       pb_load, pb_stream, pb_tail, pb_last;
  /* verilator lint_on UNUSEDSIGNAL */
  fsgen_ctrl_pass #(.LOAD_ROWS(S_ROWS), .STREAM(STREAM), .TAIL(TAIL), .SPARSE(SPARSE)) u_pass_a (
      .clk(clk), .rst_n(rst_n), .active(state == S_COMP || state == A_S), .load(load_a), .stream_end(sp_tile_end),
      .loading(pa_load), .streaming(pa_stream), .tailing(pa_tail), .last(pa_last), .k(ka));
  fsgen_ctrl_pass #(.LOAD_ROWS(SB_ROWS), .STREAM(STREAM_B), .TAIL(TAIL_B)) u_pass_b (
      .clk(clk), .rst_n(rst_n), .active(state == A_O), .load(STB != 0), .stream_end(1'b0),
      .loading(pb_load), .streaming(pb_stream), .tailing(pb_tail), .last(pb_last), .k(kbp));

  assign busy = (state != S_IDLE);
  assign done_pulse = (state == S_DONE);
  // Loads: the loader's rows (a matmul operand's, of B^T with bt: B's columns) and metadata
  // records, the fused kernels' rows (A_LD). Each tag says where the beats go.
  wire        ld_a = ls == L_A, ld_b = ls == L_B;
  // The slot field of a fused kernel's load: 1 for attention's early V rows (into v_slot), 0
  // for the others (A_LD, where at_ld_dst says).
  wire [SLW-1:0] ld_slot = ld_a ? {{(SLW-SAW){1'b0}}, pa} : ld_b ? {{(SLW-SBW){1'b0}}, pb} : {{(SLW-1){1'b0}}, v_pre};
  assign rcmd_valid = r_issue && !r_skip;
  assign rcmd_tag = {ld_a ? D_A : ld_b ? D_B : l_meta ? D_META : D_FUSED, ld_slot, r_row};
  assign rcmd_beats = (ls == L_MA) ? MA_BEATS[7:0] : (ls == L_MB) ? MB_BEATS[7:0] :
                      (ld_a || (ld_b && bt) || state == A_LD || v_pre) ? BEATS_A[7:0] : BEATS_B[7:0];
  // The loader's tiles: A's (m, k) at addr_a + m TM stride_a + k TK; B's (k, n) at addr_b + k TK
  // stride_b + n NB, or transposed (bt) at addr_b + n NB stride_b + k TK. Each term is an offset
  // the loader's walk keeps (offset_next), the tile's first row address a register from them
  // (valid from the cycle after L_LOOK), a row's address that plus the row's offset.
  // The steps: a stride times a tile size is a shift where the size is a power of two.
  wire [31:0] step_am = stride_a * TM, step_bk = bt ? TK : stride_b * TK, step_bn = bt ? stride_b * NB : NB;
  reg  [31:0] off_am, off_ak, off_bk, off_bn;
  reg  [31:0] tile_a_addr, tile_b_addr;
  always @(posedge clk) begin
    tile_a_addr <= addr_a + off_am + off_ak;
    tile_b_addr <= addr_b + off_bk + off_bn;
    if (ls == L_IDLE) begin
      off_am <= 32'd0; off_ak <= 32'd0; off_bk <= 32'd0; off_bn <= 32'd0;
    end else if (l_step) begin
      off_am <= offset_next(l_up[0], l_zero[0], off_am, step_am);
      off_ak <= offset_next(l_up[2], l_zero[2], off_ak, TK);
      off_bk <= offset_next(l_up[2], l_zero[2], off_bk, step_bk);
      off_bn <= offset_next(l_up[1], l_zero[1], off_bn, step_bn);
    end
  end
  wire [31:0] ld_addr = (ld_a ? tile_a_addr : tile_b_addr) + r_off;
  // States of a feature the core is built without are never entered; their terms are
  // guarded by its parameter as well, so that synthesis drops the logic they read (the
  // metadata and attention address arithmetic) from cores without the feature.
  assign rcmd_addr = (CMP_A != 0 && ls == L_MA) ? meta_a_addr : (CMP_B != 0 && ls == L_MB) ? meta_b_addr :
                     (ATTN != 0 && state == A_LD) ? at_ld_addr + r_off :
                     (ATTN != 0 && v_pre) ? addr_v + at_k_head + {24'd0, at_blk} * TK + r_off : ld_addr;
  // Stores: a matmul output tile's rows (S_ST), the fused kernels' O rows (A_FIN).
  assign wcmd_valid = w_issue;
  assign wcmd_beats = (state == A_FIN) ? BEATS_A[7:0] : BEATS_B[7:0];
  // C's tile (m, n) at addr_c + m TM stride_c + n NB (gated: n / 2), kept as the loader's.
  wire [31:0] step_cm = stride_c * TM;
  reg  [31:0] off_cm, off_cn, tile_c_addr;
  always @(posedge clk) begin
    tile_c_addr <= addr_c + off_cm + off_cn;
    if (state == S_IDLE) begin
      off_cm <= 32'd0; off_cn <= 32'd0;
    end else if (state == S_NEXT && !last_iter) begin
      off_cm <= offset_next(c_up[0], c_zero[0], off_cm, step_cm);
      off_cn <= offset_next(c_up[1] && !mm_hold, c_zero[1], off_cn, NB);  // gated: n / 2
    end
  end
  wire [31:0] st_addr = tile_c_addr + w_off;
  assign wcmd_addr = (ATTN != 0 && state == A_FIN) ? at_o_addr + w_off : st_addr;
  wire a_new = first || (mt != pm) || (kt != pk);  // the tile's A differs from the previous pass's
  wire b_new = first || (kt != pk) || (nt != pn);
  wire [7:0] wr_beat_c = ({24'd0, wr_beat} < BEATS_B) ? wr_beat : 8'd0;
  wire [7:0] wr_beat_o = ({24'd0, wr_beat} < BEATS_A) ? wr_beat : 8'd0;
  assign wr_data = at_mode ? fin_out_q[wr_beat_o*W*8 +: W*8] : out_row_q[wr_beat_c*W*8 +: W*8];
  assign acw = yv_q;
  assign acw_first = at_mode ? at_c == 8'd0 : kt == 16'd0;  // a score tile sums its head tiles
  assign ac_slot = slot_full[15:0];
  assign acw_data = y;
  assign rd_row = (state == A_SM || state == S_ACT) ? sm_rd : w_row;
  assign rdb_row = w_row;

  `include "fsgen_requant.vh"

  // Operand vectors for stream step ka (x) and stationary/broadcast row ka (w).
  wire [XB*8-1:0] x_next;
  /* verilator lint_off UNUSEDSIGNAL */  // read only with DUAL = 1
  wire [TK*8-1:0] wb_mm;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [WB*8-1:0] w_next;
  wire [NB*41-1:0] rq_lo_next, rq_hi_next;
  wire [NB*8-1:0] out_next;
  /* verilator lint_off UNUSEDSIGNAL */  // read only with the activation epilogue
  wire [NB*8-1:0] act_row;
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_off UNUSEDSIGNAL */  // a systolic array's feeds index by skew() instead
  wire [7:0] kx = ({24'd0, ka} < X_ROWS) ? ka : 8'd0;
  wire [7:0] kw = ({24'd0, ka} < W_ROWS) ? ka : 8'd0;
  /* verilator lint_on UNUSEDSIGNAL */
  // Systolic feeds: {valid, step} of lane `lane` at stream cycle k when lanes enter
  // one cycle apart and each carries `len` steps.
  function [8:0] skew;
    input [7:0] k;
    input integer lane;
    input integer len;
    integer d;
    begin
      d = {24'd0, k};
      d = d - lane;
      /* verilator lint_off WIDTH */
      skew = (d >= 0 && d < len) ? {1'b1, d[7:0]} : 9'd0;
      /* verilator lint_on WIDTH */
    end
  endfunction

  // The matmul feeds read the pass's slots; the fused kernels' slot 0 (sa = sb = 0).
  wire [31:0] a_rd = {{(32-SAW){1'b0}}, sa} * A_SLOT;
  wire [31:0] b_rd = {{(32-SBW){1'b0}}, sb} * B_SLOT;
  genvar g;
  generate
    if (ST == 0 && SYS_A != 0) begin : os_sys_feed  // lane g of A's column / B's row, g cycles late
      for (g = 0; g < TM; g = g + 1) begin : xa
        wire [8:0] sk = skew(ka, g, TK);
        assign ra_a[(RA_FEED + g)*32 +: 32] = a_rd + g*TK + {24'd0, sk[7:0]};
        assign x_next[g*8 +: 8] = (sk[8] && g < m_rows) ? rd_a[(RA_FEED + g)*8 +: 8] : 8'd0;
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        wire [8:0] sk = skew(ka, g, TK);
        assign ra_b[(RB_FEED + g)*32 +: 32] = b_rd + {24'd0, sk[7:0]}*NB + g;
        assign w_next[g*8 +: 8] = sk[8] ? rd_b[(RB_FEED + g)*8 +: 8] : 8'd0;
      end
    end else if (ST == 0) begin : os_feed
      for (g = 0; g < TM; g = g + 1) begin : xa
        assign ra_a[(RA_FEED + g)*32 +: 32] = a_rd + g*TK + {24'd0, kx};
        assign x_next[g*8 +: 8] = (g < m_rows) ? rd_a[(RA_FEED + g)*8 +: 8] : 8'd0;
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        assign ra_b[(RB_FEED + g)*32 +: 32] = b_rd + kw*NB + g;
        assign w_next[g*8 +: 8] = rd_b[(RB_FEED + g)*8 +: 8];
      end
    end else if (ST == 1) begin : ws_feed
      for (g = 0; g < TK; g = g + 1) begin : xa
        assign ra_a[(RA_FEED + g)*32 +: 32] = a_rd + kx*TK + g;
        assign x_next[g*8 +: 8] = (kx < m_rows) ? rd_a[(RA_FEED + g)*8 +: 8] : 8'd0;
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        assign ra_b[(RB_FEED + g)*32 +: 32] = b_rd + kw*NB + g;
        assign w_next[g*8 +: 8] = rd_b[(RB_FEED + g)*8 +: 8];
      end
    end else begin : is_feed
      for (g = 0; g < TK; g = g + 1) begin : xb
        assign ra_b[(RB_FEED + g)*32 +: 32] = b_rd + g*NB + {24'd0, kx};
        assign x_next[g*8 +: 8] = rd_b[(RB_FEED + g)*8 +: 8];
      end
      for (g = 0; g < TK; g = g + 1) begin : wa
        assign ra_a[(RA_FEED + g)*32 +: 32] = a_rd + kw*TK + g;
        assign w_next[g*8 +: 8] = (kw < m_rows) ? rd_a[(RA_FEED + g)*8 +: 8] : 8'd0;
      end
    end
    for (g = 0; g < NB; g = g + 1) begin : rq
      assign rq_lo_next[g*41 +: 41] = requant_half(acc_row_q[g*32 +: 32], req_mult[7:0]);
      assign rq_hi_next[g*41 +: 41] = requant_half(acc_row_q[g*32 +: 32], req_mult[15:8]);
      assign out_next[g*8 +: 8] = requant_finish(rq_lo_q[g*41 +: 41], rq_hi_q[g*41 +: 41], req_shift);
    end
    // A row with the activation epilogue: the activation unit's output, from its CONV cycle.
    if (ATTN != 0 && NB == TN) begin : act_conv
      assign act_row = sm_p;
    end else begin : rq_conv
      assign act_row = {NB*8{1'b0}};
    end
    // Matmul on array b: row ka of B's last TK columns.
    if (DUAL != 0 && SYS_B != 0) begin : dual_sys_feed
      for (g = 0; g < TK; g = g + 1) begin : wbm
        wire [8:0] sk = skew(ka, g, TK);
        assign ra_b[(RB_DUAL + g)*32 +: 32] = b_rd + {24'd0, sk[7:0]}*NB + TN + g;
        assign wb_mm[g*8 +: 8] = sk[8] ? rd_b[(RB_DUAL + g)*8 +: 8] : 8'd0;
      end
    end else if (DUAL != 0) begin : dual_feed
      for (g = 0; g < TK; g = g + 1) begin : wbm
        assign ra_b[(RB_DUAL + g)*32 +: 32] = b_rd + kw*NB + TN + g;
        assign wb_mm[g*8 +: 8] = rd_b[(RB_DUAL + g)*8 +: 8];
      end
    end else begin : no_dual_feed
      assign wb_mm = {TK*8{1'b0}};
    end
  endgenerate

  // ---- fused attention: registers, buffers and the online-softmax unit ----
  reg         at_mode;                   // the running kernel is attention
  reg  [15:0] at_h, at_hk, at_g;         // query head, its KV head, position in the group
  reg  [15:0] at_q0, at_j0;              // first query row / key row of the current tiles
  reg  [7:0]  at_rows, at_kv_rows;       // valid query rows / key rows in the current tiles
  reg         at_first_kv;               // the current key tile is the first of the row block
  reg  [31:0] at_ld_addr;                // address of row 0 of the rows being loaded
  reg  [7:0]  at_ld_rows;
  reg  [1:0]  at_ld_dst;                 // load target: 0 buf_a (Q, X), 1 buf_b (K, V, W), 2 the LUT, 3 a pooled key
  reg  [15:0] at_jt;                     // index of the current key tile (at_j0 / TN)
  // A head dim of several tiles of TK (tiles_k, attention only): Q's tiles in buf_a's slots,
  // S summed over them (one pass per tile, at_c), O stored one column block at a time (at_blk),
  // the key loop re-run for each; rows in memory are at_row bytes apart.
  reg  [7:0]  at_c, at_blk;
  reg  [7:0]  at_ld_aslot;               // buf_a slot of a load to buf_a (Q's head tile, the residual)
  reg  [7:0]  b_mo, b_no, b_ko;          // dot array b: the current sub-tile's first query, dim, key
  reg  [15:0] b_slot;                    // buf_b slot the fused kernels read and load
  reg  [15:0] k_tag, v_tag;              // KV head whose tiles the caches hold
  reg  [KC:0] k_valid;                   // valid K / V cache slots (one spare bit: KC may be 0)
  reg  [VC:0] v_valid;
  wire [31:0] bb = {16'd0, b_slot} * (TK*TN);
  /* verilator lint_off UNSIGNED */  // constant false without a cache (KC or VC = 0)
  wire        k_cacheable = ({16'd0, at_jt} < KC) && at_tiles == 8'd1;  // whole key tiles of one head tile
  wire        v_cacheable = ({16'd0, at_jt} < VC) && at_tiles == 8'd1;
  /* verilator lint_on UNSIGNED */
  /* verilator lint_off WIDTH */
  wire [15:0] jk = k_cacheable ? at_jt : 16'd0;
  wire [15:0] jv = v_cacheable ? at_jt : 16'd0;
  wire        k_hit = k_cacheable && k_tag == at_hk && k_valid[jk];
  wire        v_hit = v_cacheable && v_tag == at_hk && v_valid[jv];
  wire [KC:0] k_fill = ((k_tag == at_hk) ? k_valid : {(KC+1){1'b0}}) | ({{KC{1'b0}}, 1'b1} << jk);
  wire [VC:0] v_fill = ((v_tag == at_hk) ? v_valid : {(VC+1){1'b0}}) | ({{VC{1'b0}}, 1'b1} << jv);
  /* verilator lint_on WIDTH */
  reg         v_pre;                     // attention: the key tile's V rows are being issued (early V)
  reg         s_seen;                    // past the first cycle of a score pass (A_S)
  reg  [15:0] v_slot;                    // buf_b slot of the key tile's V
  localparam [15:0] VW16 = 16'd1 + KC[15:0] + VC[15:0];  // the V working slot
  wire [31:0] vb = {16'd0, v_slot} * (TK*TN);
  reg         at_ffn;                    // the running kernel is the FFN
  reg         at_gate;                   // FFN: this score pass is the gate (W3)
  /* verilator lint_off UNUSEDSIGNAL */  // the next buffers are read only with ATTN = 1
  reg  [7:0]  lut [0:255];               // FFN activation table
  reg  [4:0]  at_ld_ret;                 // state after the load
  reg  [7:0]  p_buf [0:TM*TN-1];         // P tile (Q0.7), row-major
  // Per-row state is indexed by 8-bit row counters that stay below TM.
  /* verilator lint_off WIDTH */
  reg  [31:0] m_run [0:TM-1];            // running max per query row (log2 domain, Q.8)
  reg  [31:0] l_run [0:TM-1];            // running sum of P per query row
  reg  [TN*8-1:0]  p_row_q /*verilator public_flat_rd*/;   // probability row leaving it
  reg  [TK*32-1:0] fin_in_q /*verilator public_flat_rd*/;  // O row entering normalisation
  reg  [TK*8-1:0]  fin_out_q /*verilator public_flat_rd*/; // output row
  reg  [7:0]  sm_idx_q;
  wire        sm_v_q = (ATTN != 0) && sm_v;  // the softmax unit holds a row
  wire [7:0]  sm_rd = ({24'd0, kk} < TM) ? kk : 8'd0;
  wire [7:0]  rr_fin = ({24'd0, w_row} < TM) ? w_row : 8'd0;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [7:0]  at_tiles = (at_mode && !at_ffn && tiles_k > 16'd1) ? tiles_k[7:0] : 8'd1;
  wire [31:0] at_row = {24'd0, at_tiles} * TK;                    // bytes between rows of Q, K, V, X, O
  wire [7:0]  at_xslot = (at_tiles > 8'd1) ? at_tiles : 8'd0;    // the residual's slot: beside Q's tiles
  wire [31:0] at_q_head = addr_a + {16'd0, at_h} * head_stride_q;
  wire [31:0] at_o_addr = addr_c + {16'd0, at_h} * head_stride_q + {16'd0, at_q0} * at_row + {24'd0, at_blk} * TK;
  wire [31:0] at_k_head = {16'd0, at_hk} * head_stride_kv + {16'd0, at_j0} * at_row;
  wire [15:0] at_rows_left = len_q - at_q0;
  wire [15:0] at_kv_left = len_kv - at_j0;
  wire [15:0] at_last_q = q_pos0 + at_q0 + {8'd0, at_rows} - 16'd1;  // position of the last valid query
  // Another key tile exists for this query tile: it starts inside the keys and, with the
  // causal mask, at or before the last valid query's position.
  wire [15:0] at_next_jt;                // the key tile after at_jt (block TopK: the next kept one)
  wire [15:0] at_next_j0 = at_next_jt * TN[15:0];
  // Sliding window (memory-group sparsity): a query tile's key loop starts at the tile
  // holding its first query's oldest visible key; the keys before are never loaded.
  localparam [16:0] WIN17 = WIN[16:0];
  localparam [15:0] TN16 = TN[15:0];
  wire [15:0] at_qf = q_pos0 + at_q0;  // position of the tile's first query
  wire        at_win_cut = (WIN != 0) && attn_flags[0] && !at_ffn && ({1'b0, at_qf} + 17'd1 > WIN17);
  wire [15:0] at_win_key = at_qf + 16'd1 - WIN17[15:0];  // the oldest visible key, when at_win_cut
  wire [15:0] at_jt0 = at_win_cut ? at_win_key / TN16 : 16'd0;
  wire        at_more_kv = (at_next_j0 < len_kv) && (!attn_flags[0] || at_next_j0 <= at_last_q);

  // ---- block TopK (GRP = 1): rank the key tiles before a query tile's key loop ----
  wire        at_ranked = (GRP != 0) && !at_ffn;
  /* verilator lint_off UNUSEDSIGNAL */  // read only with GRP = 1
  wire        tk_fetch, tk_picked;
  wire [31:0] tk_pool_addr;
  wire [15:0] tk_first_kept, tk_after;
  /* verilator lint_on UNUSEDSIGNAL */
  generate
    if (GRP != 0) begin : topk
      wire [TM*TK*8-1:0] q_tile;
      genvar gq;
      for (gq = 0; gq < TM*TK; gq = gq + 1) begin : q_bytes
        assign ra_a[(RA_Q + gq)*32 +: 32] = gq;
        assign q_tile[gq*8 +: 8] = rd_a[(RA_Q + gq)*8 +: 8];
      end
      fsgen_ctrl_topk #(.TM(TM), .TN(TN), .TK(TK), .W(W), .TOPK(TOPK), .GT(GT)) u_topk (
          .clk(clk), .begin_tile(state == A_QT), .score(state == A_TKC), .pick(state == A_TKS && !tk_picked),
          .first(at_jt0), .causal(attn_flags[0]), .q_pos(q_pos0 + at_q0), .len_kv(len_kv), .kv_head(at_hk),
          .jt(at_jt), .q_rows(at_rows), .q_tile(q_tile), .addr_pool(addr_pool),
          .pool_we(rd_valid && state == A_LD && at_ld_dst == 2'd3), .pool_beat(rd_beat),
          .pool_data(rd_data), .fetch(tk_fetch), .pool_addr(tk_pool_addr), .picked(tk_picked),
          .first_kept(tk_first_kept), .after(tk_after));
    end else begin : no_topk
      assign tk_fetch = 1'b0; assign tk_picked = 1'b1; assign tk_pool_addr = 32'd0;
      assign tk_first_kept = 16'd0; assign tk_after = 16'd0;
    end
  endgenerate
  assign at_next_jt = at_ranked ? tk_after : at_jt + 16'd1;


  `include "fsgen_normalise.vh"

  // FFN output: clamp(requant(o) + x, -128, 127).
  function [7:0] ffn_out;
    input [31:0] o;
    input [7:0]  x;
    begin
      ffn_out = add_sat8(requant(o, req_mult, req_shift), x);
    end
  endfunction

  // The softmax / activation unit's inputs (fsgen_softmax.v, beside the controller): the
  // score row of query row sm_idx_q, loaded in the softmax state's cycles that present a
  // row. Driven only with the fused datapath (ATTN = 1).
  generate
    if (ATTN != 0) begin : softmax_inputs
      genvar gj;
      for (gj = 0; gj < TN; gj = gj + 1) begin : p_prev_bytes
        assign sm_p_prev[gj*8 +: 8] = p_buf[sm_idx_q*TN + gj];
      end
      for (gj = 0; gj < 256; gj = gj + 1) begin : lut_entries
        assign sm_lut[gj*8 +: 8] = lut[gj];
      end
      assign sm_ld = ((state == A_SM || state == S_ACT) && {24'd0, kk} < TM) || (state == S_ST && mm_act && rows_read);
      assign sm_first = at_first_kv;
      assign sm_m_old = m_run[sm_idx_q];
      assign sm_l_old = l_run[sm_idx_q];
      assign sm_q_pos = q_pos0 + at_q0 + {8'd0, sm_idx_q};
      assign sm_j0 = at_j0;
      assign sm_ffn = at_ffn || mm_act;
      assign sm_gate = at_gate || (state == S_ST && mm_gated);
    end else begin : no_softmax_inputs
      assign sm_p_prev = {TN*8{1'b0}};
      assign sm_lut = 2048'd0;
      assign sm_ld = 1'b0; assign sm_first = 1'b0; assign sm_ffn = 1'b0; assign sm_gate = 1'b0;
      assign sm_m_old = 32'd0; assign sm_l_old = 32'd0; assign sm_q_pos = 16'd0; assign sm_j0 = 16'd0;
    end
  endgenerate
  /* verilator lint_on WIDTH */

  // ---- compute-value sparsity (SPARSE = 1): the window scheduler beside the value networks ----
  wire [7:0] kb;                          // first k step of the current window
  // Window step t of column j: B[kb + t][j] of the matmul tile, or, in the fused kernels,
  // K[j][kb + t] of the key tile in buf_b slot b_slot (B = K^T).
  genvar ga, gb, gt;
  generate
    for (gt = 0; gt < SK; gt = gt + 1) begin : sp_win
      for (ga = 0; ga < TM; ga = ga + 1) begin : xw
        assign ra_a[(RA_WIN + ga*SK + gt)*32 +: 32] = a_rd + ga*TK + {24'd0, kb} + gt;
        assign xwin[(ga*SK + gt)*8 +: 8] = (ga < m_rows) ? rd_a[(RA_WIN + ga*SK + gt)*8 +: 8] : 8'd0;
      end
      for (gb = 0; gb < TN; gb = gb + 1) begin : ww
        assign ra_b[(RB_WMM + gb*SK + gt)*32 +: 32] = b_rd + ({24'd0, kb} + gt)*NB + gb;
        assign ra_b[(RB_WAT + gb*SK + gt)*32 +: 32] = bb + gb*TK + {24'd0, kb} + gt;
        assign wwin[(gb*SK + gt)*8 +: 8] = at_mode ? rd_b[(RB_WAT + gb*SK + gt)*8 +: 8] : rd_b[(RB_WMM + gb*SK + gt)*8 +: 8];
      end
    end
    if (SPARSE != 0) begin : window
      fsgen_ctrl_window #(.TM(TM), .TN(TN), .TK(TK), .SK(SK), .LM(LM), .LN(LN), .XSP(XSP), .WSP(WSP), .SYS(SYS_A))
          u_window (.clk(clk), .rst_n(rst_n), .step(sp_step), .xwin(xwin), .wwin(wwin), .kb(kb), .sel(sp_sel),
                    .has(sp_has), .tile_end(sp_tile_end));
    end else begin : no_window  // what a scheduler that never steps would show
      assign kb = 8'd0; assign sp_sel = {LM*LN*SELW{1'b0}}; assign sp_has = {LM*LN{1'b1}};
      assign sp_tile_end = 1'b0;
    end
  endgenerate
  assign sp_step = (SPARSE != 0) && pa_stream;

  // Operands of the fused kernels. Array a: S = Q K^T with Q rows in buf_a and K rows
  // in buf_b, so B = K^T; x_at / w_at are the x_next / w_next of that view. Array b:
  // O = P V with P in p_buf and V rows in buf_b; xb_next streams, wb_next is broadcast
  // (output-stationary) or loaded into the PEs (dot arrays).
  wire [XB*8-1:0]  x_at;
  wire [WB*8-1:0]  w_at;
  wire [XBB*8-1:0] xb_next;
  wire [WBB*8-1:0] wb_next;
  wire [TK*8-1:0]  fin_next;
  /* verilator lint_off UNUSEDSIGNAL */  // clamped step indices, read only with ATTN = 1
  wire [7:0] kp = ({24'd0, kbp} < TN) ? kbp : 8'd0;  // key
  wire [31:0] kbm = ({24'd0, kbp} < BM) ? {24'd0, kbp} : 32'd0;  // steps within array b's sub-tile
  wire [31:0] kbn = ({24'd0, kbp} < BN) ? {24'd0, kbp} : 32'd0;
  wire [31:0] kbk = ({24'd0, kbp} < BK) ? {24'd0, kbp} : 32'd0;
  /* verilator lint_on UNUSEDSIGNAL */
  generate
    if (ATTN != 0) begin : fused_feed
      if (ST == 2) begin : at_is   // Q rows stationary, K rows streamed
        for (g = 0; g < TK; g = g + 1) begin : xk
          assign ra_b[(RB_KEY + g)*32 +: 32] = bb + kx*TK + g;
          assign x_at[g*8 +: 8] = rd_b[(RB_KEY + g)*8 +: 8];
        end
        assign w_at = w_next;
      end else if (ST == 0 && SYS_A != 0) begin : at_os_sys  // skewed columns of Q and K
        assign x_at = x_next;
        for (g = 0; g < TN; g = g + 1) begin : wkt
          wire [8:0] sk = skew(ka, g, TK);
          assign ra_b[(RB_KEY + g)*32 +: 32] = bb + g*TK + {24'd0, sk[7:0]};
          assign w_at[g*8 +: 8] = sk[8] ? rd_b[(RB_KEY + g)*8 +: 8] : 8'd0;
        end
      end else begin : at_os_ws    // x: column (OS) or row (WS) of Q; w: column ka of the K tile
        assign x_at = x_next;
        for (g = 0; g < TN; g = g + 1) begin : wkt
          assign ra_b[(RB_KEY + g)*32 +: 32] = bb + g*TK + {24'd0, kw};
          assign w_at[g*8 +: 8] = rd_b[(RB_KEY + g)*8 +: 8];
        end
      end
      if (STB == 0 && SYS_B != 0) begin : b_os_sys  // skewed columns of P and rows of V
        for (g = 0; g < TM; g = g + 1) begin : xbp
          wire [8:0] sk = skew(kbp, g, TN);
          assign xb_next[g*8 +: 8] = sk[8] ? p_buf[g*TN + {24'd0, sk[7:0]}] : 8'd0;
        end
        for (g = 0; g < TK; g = g + 1) begin : wbv
          wire [8:0] sk = skew(kbp, g, TN);
          assign ra_b[(RB_V + g)*32 +: 32] = bb + {24'd0, sk[7:0]}*TK + g;
          assign wb_next[g*8 +: 8] = sk[8] ? rd_b[(RB_V + g)*8 +: 8] : 8'd0;
        end
      end else if (STB == 0) begin : b_os     // column kbp of P along rows, row kbp of V down columns
        for (g = 0; g < TM; g = g + 1) begin : xbp
          assign xb_next[g*8 +: 8] = p_buf[g*TN + kp];
        end
        for (g = 0; g < TK; g = g + 1) begin : wbv
          assign ra_b[(RB_V + g)*32 +: 32] = bb + kp*TK + g;
          assign wb_next[g*8 +: 8] = rd_b[(RB_V + g)*8 +: 8];
        end
      end else if (STB == 1) begin : b_ws  // V rows into the PEs, rows of P streamed (sub-tile b_mo, b_no, b_ko)
        for (g = 0; g < BK; g = g + 1) begin : xbp
          assign xb_next[g*8 +: 8] = p_buf[({24'd0, b_mo} + kbm)*TN + {24'd0, b_ko} + g];
        end
        for (g = 0; g < BN; g = g + 1) begin : wbv
          assign ra_b[(RB_V + g)*32 +: 32] = bb + ({24'd0, b_ko} + kbk)*TK + {24'd0, b_no} + g;
          assign wb_next[g*8 +: 8] = rd_b[(RB_V + g)*8 +: 8];
        end
      end else begin : b_is                // P rows into the PEs, columns of V streamed
        for (g = 0; g < BK; g = g + 1) begin : xbv
          assign ra_b[(RB_V + g)*32 +: 32] = bb + ({24'd0, b_ko} + g)*TK + {24'd0, b_no} + kbn;
          assign xb_next[g*8 +: 8] = rd_b[(RB_V + g)*8 +: 8];
        end
        for (g = 0; g < BK; g = g + 1) begin : wbp
          assign wb_next[g*8 +: 8] = p_buf[({24'd0, b_mo} + kbm)*TN + {24'd0, b_ko} + g];
        end
      end
      // Operand isolation: the divider of normalise() and ffn_out() see the row's running sum
      // and residual only in the cycle that stores their result (A_FIN's CONV); otherwise every
      // softmax load (l_run) and residual write (buf_a) would set the divider switching in
      // cycles whose result nobody takes.
      /* verilator lint_off WIDTH */
      wire        fin_go = state == A_FIN && rows_conv;
      wire [31:0] fin_l = (fin_go && !at_ffn) ? l_run[rr_fin] : 32'd0;
      for (g = 0; g < TK; g = g + 1) begin : fin
        assign ra_a[(RA_FIN + g)*32 +: 32] = {24'd0, at_xslot} * A_SLOT + rr_fin*TK + g;
        wire [7:0] fin_x = (fin_go && attn_flags[1]) ? rd_a[(RA_FIN + g)*8 +: 8] : 8'd0;
        assign fin_next[g*8 +: 8] = at_ffn ? ffn_out(fin_in_q[g*32 +: 32], fin_x) : normalise(fin_in_q[g*32 +: 32], fin_l, fin_x);
      end
      /* verilator lint_on WIDTH */
    end else begin : no_fused_feed
      assign x_at = {XB*8{1'b0}};
      assign w_at = {WB*8{1'b0}};
      assign xb_next = {XBB*8{1'b0}};
      assign wb_next = {WBB*8{1'b0}};
      assign fin_next = {TK*8{1'b0}};
    end
  endgenerate

  // Buffer writes: one beat of W bytes per valid read beat, where its tag says (a matmul
  // operand's slot and row), or, in the fused kernels, where the load in A_LD goes.
  wire        beat_a = rd_valid && rt_dst == D_A, beat_b = rd_valid && rt_dst == D_B;
  wire [31:0] a_wr = {{(32-SAW){1'b0}}, rt_slot[SAW-1:0]} * A_SLOT;
  wire [31:0] b_wr = {{(32-SBW){1'b0}}, rt_slot[SBW-1:0]} * B_SLOT;
  wire [31:0] a_clr = {{(32-SAW){1'b0}}, pa} * A_SLOT;  // a skipped row's slot
  wire [31:0] b_clr = {{(32-SBW){1'b0}}, pb} * B_SLOT;
  // buf_a rows are TK bytes for every kernel (A, Q, X); buf_b rows are TN bytes of B in
  // matmul (a transposed B's beat goes down a column) and TK bytes of K, V, W in the fused
  // kernels, whose loads are guarded by their parameters as cmd_addr's terms are (a pooled
  // key, at_ld_dst 3, goes to the TopK unit). Each write lane's byte address:
  wire [4*W*32-1:0] wa_a, wa_b;
  wire [TK*32-1:0]  ca_a;
  wire [NB*32-1:0]  ca_b;
  genvar gl;
  generate
    for (gl = 0; gl < W; gl = gl + 1) begin : wr_lane
      assign wa_a[gl*32 +: 32] =
          (beat_a ? a_wr : {24'd0, at_ld_aslot} * A_SLOT) + {24'd0, rt_row}*TK + rd_beat*W + gl;
      assign wa_b[gl*32 +: 32] = b_wr + rt_row*NB + rd_beat*W + gl;
      assign wa_b[(W + gl)*32 +: 32] = b_wr + (rd_beat*W + gl)*NB + {24'd0, rt_row};
      assign wa_b[(2*W + gl)*32 +: 32] = vb + rt_row*TK + rd_beat*W + gl;
      assign wa_b[(3*W + gl)*32 +: 32] = bb + rt_row*TK + rd_beat*W + gl;
    end
    for (gl = 0; gl < TK; gl = gl + 1) begin : clr_a_lane
      assign ca_a[gl*32 +: 32] = a_clr + r_row*TK + gl;
    end
    for (gl = 0; gl < NB; gl = gl + 1) begin : clr_b_lane
      assign ca_b[gl*32 +: 32] = b_clr + r_row*NB + gl;
    end
  endgenerate
  assign wa_a[4*W*32-1:W*32] = {3*W*32{1'b0}};
  fsgen_ctrl_buffer #(.BYTES(SA*TM*TK), .RL(RL_A), .W(W), .CL(TK)) u_buf_a (
      .clk(clk), .wr({3'b000, beat_a || (rd_valid && state == A_LD && at_ld_dst == 2'd0)}), .wr_addr(wa_a),
      .wr_data({{3*W*8{1'b0}}, rd_data}), .clr(r_issue && ld_a && skip_a_row), .clr_addr(ca_a),
      .rd_addr(ra_a), .rd_data(rd_a));
  fsgen_ctrl_buffer #(.BYTES(BUF_B), .RL(RL_B), .W(W), .CL(NB)) u_buf_b (
      .clk(clk),
      .wr({(ATTN != 0) && rd_valid && state == A_LD && at_ld_dst == 2'd1,
           (ATTN != 0) && rd_valid && rt_dst == D_FUSED && rt_slot[0], beat_b && bt, beat_b && !bt}),
      .wr_addr(wa_b), .wr_data({4{rd_data}}), .clr(r_issue && ld_b && skip_b_row), .clr_addr(ca_b),
      .rd_addr(ra_b), .rd_data(rd_b));

  // ---- the rows and tables, each behind a clock gate (FSGEN_GATED_ALWAYS,
  // fsgen_clock_gate.vh) opened only in the cycles that write it (and in reset, for those
  // with a reset value): they hold for most of a kernel (the activation table for all of
  // it, the output rows between a tile's stores, the softmax state outside its passes), and
  // a held register does not pay its clock pins. ----
  wire lut_we = (ATTN != 0) && rd_valid && state == A_LD && at_ld_dst == 2'd2;
  wire p_buf_we = sm_v_q && (at_ffn || state == S_ACT || (at_mode && !at_ffn));
  wire run_we = sm_v_q && at_mode && !at_ffn;
  // Written only for the tiles that rescale (scb_q's condition): the FFN and the first key
  // tile never do, and holding the factors keeps array b's rescale multipliers (acc x
  // alpha, combinational) from switching in their passes.
  wire alpha_we = state == A_SM && sm_v_q && !at_ffn && !at_first_kv;
  wire p_row_we = sm_v_q && (state == A_SM || state == S_ACT) || (state == S_ST && rows_conv && mm_act);
  wire acc_row_we = state == S_ST && rows_read;
  wire rq_we = state == S_ST && rows_conv && !mm_act;
  wire out_row_we = state == S_ST && ((rows_conv && mm_act) || (w_issue && !mm_act));
  wire fin_in_we = state == A_FIN && rows_read, fin_out_we = state == A_FIN && rows_conv;
  `include "fsgen_clock_gate.vh"
  integer lut_b, p_b;
  `FSGEN_GATED_ALWAYS(lut, lut_we)
    for (lut_b = 0; lut_b < W; lut_b = lut_b + 1) lut[(rt_row*TK + rd_beat*W + lut_b) & 255] <= rd_data[lut_b*8 +: 8];
  `FSGEN_GATED_ALWAYS(p_buf, p_buf_we)
    for (p_b = 0; p_b < TN; p_b = p_b + 1) p_buf[sm_idx_q*TN + p_b] <= sm_p[p_b*8 +: 8];
  `FSGEN_GATED_ALWAYS(run, run_we) begin
    /* verilator lint_off WIDTH */
    m_run[sm_idx_q] <= sm_mnew;
    l_run[sm_idx_q] <= sm_lnew;
    /* verilator lint_on WIDTH */
  end
  `FSGEN_GATED_ALWAYS(alpha, !rst_n || alpha_we)
    if (!rst_n) alpha_q <= {TM*32{1'b0}};
    else alpha_q[sm_idx_q*32 +: 32] <= sm_alpha;
  `FSGEN_GATED_ALWAYS(p_row, !rst_n || p_row_we) p_row_q <= rst_n ? sm_p : {TN*8{1'b0}};
  /* verilator lint_off WIDTH */
  `FSGEN_GATED_ALWAYS(acc_row, !rst_n || acc_row_we)
    acc_row_q <= !rst_n ? {NB*32{1'b0}} : (DUAL != 0) ? {rdb_data, acc_rd_data} : acc_rd_data;
  /* verilator lint_on WIDTH */
  `FSGEN_GATED_ALWAYS(rq, !rst_n || rq_we) begin
    rq_lo_q <= rst_n ? rq_lo_next : {NB*41{1'b0}};
    rq_hi_q <= rst_n ? rq_hi_next : {NB*41{1'b0}};
  end
  `FSGEN_GATED_ALWAYS(out_row, !rst_n || out_row_we) out_row_q <= !rst_n ? {NB*8{1'b0}} : mm_act ? act_row : out_next;
  `FSGEN_GATED_ALWAYS(fin_in, !rst_n || fin_in_we) fin_in_q <= rst_n ? rdb_data : {TK*32{1'b0}};
  `FSGEN_GATED_ALWAYS(fin_out, !rst_n || fin_out_we) fin_out_q <= rst_n ? fin_next : {TK*8{1'b0}};

  always @(posedge clk) begin
    if (!rst_n) begin
      state <= S_IDLE; cycles <= 32'd0;
      pm <= 16'd0; pn <= 16'd0; pk <= 16'd0;
      sa <= {SAW{1'b0}}; sb <= {SBW{1'b0}};
      first <= 1'b0; kk <= 8'd0; load_a <= 1'b0;
      x_q <= {XB*8{1'b0}}; w_q <= {WB*8{1'b0}}; v_q <= 1'b0; clr_q <= 1'b0; ld_q <= 1'b0;
      idx_q <= 8'd0; yv_q <= 1'b0; acw_idx <= 8'd0;
      at_mode <= 1'b0; at_h <= 16'd0; at_hk <= 16'd0; at_g <= 16'd0; at_q0 <= 16'd0; at_j0 <= 16'd0;
      at_rows <= 8'd0; at_kv_rows <= 8'd0; at_first_kv <= 1'b0; at_ld_addr <= 32'd0; at_ld_rows <= 8'd0;
      at_ld_dst <= 2'd0; at_ld_ret <= 5'd0; at_jt <= 16'd0; b_slot <= 16'd0;
      at_c <= 8'd0; at_blk <= 8'd0; at_ld_aslot <= 8'd0;
      v_pre <= 1'b0; s_seen <= 1'b0; v_slot <= 16'd0;
      k_tag <= 16'd0; v_tag <= 16'd0; k_valid <= {(KC+1){1'b0}}; v_valid <= {(VC+1){1'b0}}; at_ffn <= 1'b0; at_gate <= 1'b0; sm_idx_q <= 8'd0;
      xb_q <= {XBB*8{1'b0}}; wb_q <= {WBB*8{1'b0}}; vb_q <= 1'b0; clrb_q <= 1'b0; scb_q <= 1'b0;
      ldb_q <= 1'b0; idxb_q <= 8'd0; acwb <= 1'b0; acwb_first <= 1'b0; acwb_sc <= 1'b0; acwb_idx <= 8'd0;
      acwb_off <= 8'd0; b_mo <= 8'd0; b_no <= 8'd0; b_ko <= 8'd0;
    end else begin
      if (state != S_IDLE) cycles <= cycles + 32'd1;
      s_seen <= state == A_S;
      if (v_pre && r_last) v_pre <= 1'b0;
      // Attention: the key tile's V rows issue from the score pass's second cycle, unless the
      // V cache holds them.
      if ((ATTN != 0) && state == A_S && !s_seen && !at_ffn && at_c + 8'd1 == at_tiles) begin
        v_slot <= v_cacheable ? 16'd1 + KC16 + at_jt : VW16;
        if (!v_hit) begin
          v_pre <= 1'b1;
          if (v_cacheable) begin v_tag <= at_hk; v_valid <= v_fill; end
        end
      end
      yv_q <= v_q && (ST != 0);
      acw_idx <= idx_q;
      acwb <= vb_q && (STB != 0);
      acwb_first <= clrb_q;
      acwb_sc <= scb_q;
      acwb_idx <= idxb_q + ((STB == 1) ? b_mo : b_no);  // row (WS) or column (IS) of O
      acwb_off <= (STB == 1) ? b_no : b_mo;
      case (state)
        S_IDLE: if (start) begin
          cycles <= 32'd0; first <= 1'b1;
          sa <= {SAW{1'b0}}; sb <= {SBW{1'b0}};
          at_mode <= fused_kernel;
          at_ffn <= (ATTN != 0) && (kernel == 32'd2);
          at_h <= 16'd0; at_hk <= 16'd0; at_g <= 16'd0; at_q0 <= 16'd0; at_j0 <= 16'd0;
          at_c <= 8'd0; at_blk <= 8'd0; at_ld_aslot <= 8'd0;
          k_valid <= {(KC+1){1'b0}}; v_valid <= {(VC+1){1'b0}}; b_slot <= 16'd0;
          state <= ((ATTN != 0) && kernel == 32'd1) ? A_QT : (((ATTN != 0) && kernel == 32'd2) || mm_act) ? A_LUT : S_TILE;
        end
        A_LUT: begin
          at_ld_addr <= addr_lut;
          at_ld_rows <= LUT_ROWS[7:0];
          at_ld_dst <= 2'd2;
          at_ld_ret <= at_mode ? A_QT : S_TILE;
          state <= A_LD;
        end
        // ---- fused attention ----
        A_QT: begin
          at_rows <= (at_rows_left < TM) ? at_rows_left[7:0] : TM[7:0];
          at_j0 <= at_jt0 * TN16;
          at_jt <= at_jt0;
          at_first_kv <= 1'b1;
          // Q's head tile at_c into buf_a's slot at_c, then the next tile's (A_QT again).
          at_ld_addr <= at_q_head + {16'd0, at_q0} * at_row + {24'd0, at_c} * TK;
          at_ld_rows <= (at_rows_left < TM) ? at_rows_left[7:0] : TM[7:0];
          at_ld_dst <= 2'd0;
          at_ld_aslot <= at_c;
          at_c <= (at_c + 8'd1 < at_tiles) ? at_c + 8'd1 : 8'd0;
          at_ld_ret <= (at_c + 8'd1 < at_tiles) ? A_QT : at_ranked ? A_TKI : A_KT;
          state <= A_LD;
        end
        // Block TopK (fsgen_ctrl_topk.v): fetch each candidate's pooled key, score it; then
        // keep one candidate per cycle.
        A_TKI: if (tk_fetch) begin
          at_ld_addr <= tk_pool_addr;
          at_ld_rows <= 8'd1;
          at_ld_dst <= 2'd3;
          at_ld_ret <= A_TKC;
          state <= A_LD;
        end else state <= A_TKS;
        A_TKC: state <= A_TKI;
        A_TKS: if (tk_picked) begin  // ranked: start the key loop at the first kept tile
          at_jt <= tk_first_kept;
          at_j0 <= tk_first_kept * TN16;
          state <= A_KT;
        end
        A_LD: if (r_last) state <= at_ld_ret;
        A_KT: begin
          at_kv_rows <= (at_kv_left < TN) ? at_kv_left[7:0] : TN[7:0];
          at_ld_addr <= addr_b + at_k_head + {24'd0, at_c} * TK;  // the key rows' head tile at_c
          at_ld_rows <= (at_kv_left < TN) ? at_kv_left[7:0] : TN[7:0];
          at_ld_dst <= 2'd1;
          // A weight-stationary array a holds the key tile, new every time; an
          // input-stationary one the query tile, loaded once per query tile (each pass
          // with several head tiles).
          at_ld_ret <= A_S;
          load_a <= ST == 1 || (ST == 2 && (at_first_kv || at_tiles > 8'd1));
          sa <= at_c[SAW-1:0];  // the pass reads Q's head tile at_c
          b_slot <= k_cacheable ? 16'd1 + at_jt : 16'd0;
          if (k_hit) state <= A_S;
          else begin
            if (k_cacheable) begin k_tag <= at_hk; k_valid <= k_fill; end
            state <= A_LD;
          end
        end
        A_SM: begin
          if ({24'd0, kk} < TM) sm_idx_q <= kk;  // the softmax unit loads the row (sm_load)
          if ({24'd0, kk} == TM) begin
            kk <= 8'd0;
            state <= (at_ffn && attn_flags[2] && !at_gate) ? A_GLD : A_VLD;
          end else kk <= kk + 8'd1;
        end
        A_GLD: begin
          at_gate <= 1'b1;
          at_ld_addr <= addr_w3 + at_k_head;
          at_ld_rows <= at_kv_rows;
          at_ld_dst <= 2'd1;
          at_ld_ret <= A_S;
          load_a <= ST == 1;
          b_slot <= 16'd0;  // gate weights are not cached
          state <= A_LD;
        end
        // The V rows: attention's, issued during S and the softmax, once their bursts are
        // done; the FFN's (W2^T) loaded now.
        A_VLD: begin
          at_gate <= 1'b0;
          at_ld_addr <= addr_v + at_k_head;
          at_ld_rows <= at_kv_rows;
          at_ld_dst <= 2'd1;
          at_ld_ret <= A_O;
          b_mo <= 8'd0; b_no <= 8'd0; b_ko <= 8'd0;
          if (!at_ffn) begin
            b_slot <= v_slot;
            if (!v_pre && rd_idle) state <= A_O;
          end else begin
            b_slot <= v_cacheable ? 16'd1 + KC16 + at_jt : 16'd0;
            if (v_hit) state <= A_O;
            else begin
              if (v_cacheable) begin v_tag <= at_hk; v_valid <= v_fill; end
              state <= A_LD;
            end
          end
        end
        // One pass of array b (a dot array b: one sub-tile, then the next: keys innermost,
        // then dims, then queries). An output-stationary array b clears or rescales O on the
        // first step; a dot array b writes each O cell once per key tile, so every write does.
        A_O: begin
          if (pb_load) begin
            wb_q <= wb_next;
            ldb_q <= 1'b1;
            idxb_q <= kbp;
          end
          if (pb_stream) begin
            xb_q <= xb_next;
            if (STB == 0) wb_q <= wb_next;
            vb_q <= 1'b1;
            ldb_q <= 1'b0;
            idxb_q <= kbp;
            clrb_q <= at_first_kv && ((STB != 0) ? b_ko == 8'd0 : kbp == 8'd0);
            scb_q <= !at_ffn && !at_first_kv && ((STB != 0) ? b_ko == 8'd0 : kbp == 8'd0);
          end
          if (pb_tail) begin
            vb_q <= 1'b0;
            clrb_q <= 1'b0;
            scb_q <= 1'b0;
          end
          if (pb_last) begin
            if (STB == 0) state <= A_KNEXT;
            else if ({24'd0, b_ko} + BK < TN) b_ko <= b_ko + BK8;
            else if ({24'd0, b_no} + BN < TK) begin b_ko <= 8'd0; b_no <= b_no + BN8; end
            else if ({24'd0, b_mo} + BM < TM) begin b_ko <= 8'd0; b_no <= 8'd0; b_mo <= b_mo + BM8; end
            else state <= A_KNEXT;
          end
        end
        A_KNEXT: begin
          at_first_kv <= 1'b0;
          if (at_more_kv) begin
            at_j0 <= at_next_j0;
            at_jt <= at_next_jt;
            state <= A_KT;
          end else if (attn_flags[1]) begin
            at_ld_addr <= addr_x + {16'd0, at_h} * head_stride_q + {16'd0, at_q0} * at_row + {24'd0, at_blk} * TK;
            at_ld_rows <= at_rows;
            at_ld_dst <= 2'd0;
            at_ld_aslot <= at_xslot;
            at_ld_ret <= A_FIN;
            state <= A_LD;
          end else state <= A_FIN;
        end
        // Each O row: read from array b, normalised, stored.
        A_FIN: begin
          if (w_last) state <= A_QNEXT;
        end
        A_QNEXT: begin
          if (at_blk + 8'd1 < at_tiles) begin  // O's next column block: the key loop again
            at_blk <= at_blk + 8'd1;
            at_j0 <= at_jt0 * TN16;
            at_jt <= at_jt0;
            at_first_kv <= 1'b1;
            state <= A_KT;
          end else if (at_q0 + TM < len_q) begin
            at_blk <= 8'd0;
            at_q0 <= at_q0 + TM;
            state <= A_QT;
          end else if (at_h + 16'd1 < heads) begin
            at_h <= at_h + 16'd1;
            at_blk <= 8'd0;
            at_q0 <= 16'd0;
            if (at_g + 16'd1 == group) begin at_g <= 16'd0; at_hk <= at_hk + 16'd1; end
            else at_g <= at_g + 16'd1;
            state <= A_QT;
          end else state <= S_DONE;
        end
        // The next tile the loader queued, once its bursts are in. A weight-stationary pass
        // reloads a new B, an input-stationary one a new A.
        S_TILE: if (tile_ready) begin
          first <= 1'b0;
          pm <= mt; pn <= nt; pk <= kt;
          load_a <= (ST == 1 && b_new) || (ST == 2 && a_new);
          sa <= q_sa[q_head];
          sb <= q_sb[q_head];
          state <= S_COMP;
        end
        // One pass of array a: a matmul tile (with DUAL = 1 array b alongside, on the tile's
        // last TK columns) or a score tile.
        S_COMP, A_S: begin
          if (pa_load) begin
            w_q <= at_mode ? w_at : w_next;
            ld_q <= 1'b1;
            idx_q <= ka;
          end
          if (pa_stream) begin
            if (SPARSE == 0) begin
              x_q <= at_mode ? x_at : x_next;
              if (ST == 0) w_q <= at_mode ? w_at : w_next;
            end
            v_q <= 1'b1;
            ld_q <= 1'b0;
            clr_q <= (at_mode ? at_c == 8'd0 : kt == 16'd0) && (ka == 8'd0);
            idx_q <= ka;
            if (DUAL != 0 && !at_mode) begin  // widths agree when DUAL = 1 (both arrays output-stationary)
              /* verilator lint_off WIDTH */
              xb_q <= x_next;
              wb_q <= wb_mm;
              /* verilator lint_on WIDTH */
              vb_q <= 1'b1;
              clrb_q <= (kt == 16'd0) && (ka == 8'd0);
            end
          end
          if (pa_tail) begin
            v_q <= 1'b0;
            clr_q <= 1'b0;
            vb_q <= 1'b0;
            clrb_q <= 1'b0;
          end
          if (at_mode && pa_last) begin  // the next head tile's pass, or the softmax
            at_c <= (at_c + 8'd1 < at_tiles) ? at_c + 8'd1 : 8'd0;
            state <= (at_c + 8'd1 < at_tiles) ? A_KT : A_SM;
          end
          if (!at_mode && pa_last) state <= !k_last ? S_NEXT : mm_hold ? S_ACT : S_ST;
        end
        // Each output row: read from the accumulators, requantised (or, with the epilogue,
        // activated by the softmax unit, which loads the row as it is read), stored.
        S_ST: begin
          if (rows_read && mm_act) sm_idx_q <= w_row;  // the row's held activations (gated)
          if (w_last) state <= S_NEXT;
        end
        // A W1 tile's rows through the activation unit into p_buf, one per cycle (as A_SM).
        S_ACT: begin
          if ({24'd0, kk} < TM) sm_idx_q <= kk;
          if ({24'd0, kk} == TM) begin
            kk <= 8'd0;
            state <= S_NEXT;
          end else kk <= kk + 8'd1;
        end
        S_NEXT: state <= last_iter ? S_DONE : S_TILE;
        S_DONE: state <= S_IDLE;
        default: state <= S_IDLE;
      endcase
    end
  end
endmodule
