// Tile sequencer of the matmul kernel. For every tile iteration of the loop nest
// (ORD0 outermost .. ORD2 innermost over m=0, n=1, k=2) it loads the operand tiles
// that changed (reuse), feeds the PE array, and when the reduction over k is
// complete requantises the output tile and stores it. Phases run one after the
// other; their cycle counts are the timing contract mirrored by the SystemC model
// (src/models/core_model.cpp, attention_model.cpp and pe_array_model.cpp).
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
// With SPARSE = 1 (output-stationary array a: matmul tiles, the fused kernels' score tiles)
// the stream skips zero operands (compute-value sparsity): the k tile (the head dim of a
// score tile) is cut into windows of SK steps, the PE grid into LM x LN blocks (row lanes
// x column lanes). A block needs step t of the window when
// its x rows (XSP = 1) and its w columns (WSP = 1) hold a non-zero at that step; each
// cycle every block issues its lowest needed step (sp_sel, sp_has) and the value
// networks (fsgen_sparse_net.v) route the window (xwin, wwin) to the array's lanes. A
// window lasts as many cycles as its busiest block needs, at least one. A systolic array
// a takes the lanes through skew registers (fsgen_skew.v): after the last window the
// stream drains for TM + TN - 2 cycles, the networks issuing nothing (zeros).
// With GRP = 1 (compute-group sparsity, block TopK attention) each query tile first ranks
// the key tiles its loop would visit before its own positions (all tiles without the causal
// mask): per candidate it fetches the tile's pooled key (addr_pool, [kv head][tile][TK] INT8)
// and scores it against the sum of the tile's query rows (A_TKI, load, A_TKC); then it keeps
// the TOPK highest scores, one per cycle (A_TKS), and the key loop visits the kept tiles and
// the query tile's own ones (num::key_tile_candidates, src/core/attention_numerics.h).
// With CMP_A / CMP_B = 1 (memory-value sparsity, matmul) operand A / B is compressed: before
// a tile the controller reads the tile's metadata record (MA_BEATS / MB_BEATS beats, one bit
// per tile row, src/core/compression.h) and then fetches only the rows marked non-zero;
// a skipped row is cleared in the buffer in its ISSUE cycle and costs ISSUE + WAIT.
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
    parameter WIN = 0,                                 // sliding window (ATTN = 1, causal): keys a query attends; 0 = all
    parameter CMP_A = 0,                               // 1: A is compressed (zero rows skipped)
    parameter CMP_B = 0,                               // 1: B is compressed
    parameter MA_BEATS = 1,                            // beats of one A tile's metadata record
    parameter MB_BEATS = 1,                            // beats of one B tile's metadata record
    parameter GRP = 0,                                 // 1: block TopK over key tiles (ATTN = 1)
    parameter TOPK = 1,                                // key tiles kept per query tile (GRP = 1)
    parameter GT = 2,                                  // key tiles ranked per head at most (GRP = 1)
    parameter SPARSE = 0,                              // 1: value networks skip zero operand steps
    parameter SK = 1,                                  // window: k steps offered per cycle (S of k)
    parameter LM = 1,                                  // row lanes (x sparse: TT_m / T_m)
    parameter LN = 1,                                  // column lanes (w sparse: TT_n / T_n)
    parameter XSP = 0,                                 // 1: skip steps whose x rows are zero
    parameter WSP = 0,                                 // 1: skip steps whose w columns are zero
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
    /* verilator lint_on UNUSEDSIGNAL */
    /* verilator lint_on UNUSEDSIGNAL */
    output wire            busy,
    output wire            done_pulse,
    output reg  [31:0]     cycles,
    // DMA
    output wire            cmd_valid,
    output wire            cmd_write,
    output wire [31:0]     cmd_addr,
    output wire [7:0]      cmd_beats,
    input  wire            cmd_done,
    input  wire            rd_valid,
    input  wire [7:0]      rd_beat,
    input  wire [W*8-1:0]  rd_data,
    input  wire [7:0]      wr_beat,
    output wire [W*8-1:0]  wr_data,
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
  localparam [5:0] S_IDLE = 6'd0, S_TILE = 6'd1, S_LDA_ISSUE = 6'd2, S_LDA_WAIT = 6'd3,
                   S_LDB_ISSUE = 6'd4, S_LDB_WAIT = 6'd5, S_LDS = 6'd6, S_COMP = 6'd7, S_TAIL = 6'd8,
                   S_ST_READ = 6'd9, S_ST_REQ = 6'd10, S_ST_ISSUE = 6'd11, S_ST_WAIT = 6'd12,
                   S_NEXT = 6'd13, S_DONE = 6'd14,
                   S_MDA_ISSUE = 6'd36, S_MDA_WAIT = 6'd37,  // metadata records of compressed A / B
                   S_MDB_ISSUE = 6'd38, S_MDB_WAIT = 6'd39;
  localparam [5:0] A_TKI = 6'd40, A_TKC = 6'd41, A_TKS = 6'd42;  // block TopK: fetch, score, select
  // Fused attention states (ATTN = 1): TM = query rows, TN = key rows, TK = head dim.
  localparam [5:0] A_QT = 6'd16, A_LD_ISSUE = 6'd17, A_LD_WAIT = 6'd18, A_KT = 6'd19, A_S = 6'd20,
                   A_S_TAIL = 6'd21, A_SM = 6'd22, A_VLD = 6'd23, A_O = 6'd24, A_O_TAIL = 6'd25,
                   A_KNEXT = 6'd26, A_FIN_READ = 6'd28, A_FIN_DIV = 6'd29,
                   A_FIN_ISSUE = 6'd30, A_FIN_WAIT = 6'd31, A_QNEXT = 6'd15,
                   A_LUT = 6'd32, A_GLD = 6'd33,  // FFN: activation table load, gate weight load
                   A_SLD = 6'd34, A_OLD = 6'd35;  // dot arrays a / b: stationary operand load
  localparam integer BEATS_A = TK / W;
  localparam integer BEATS_B = NB / W;
  localparam integer S_ROWS = (ST == 1) ? TK : TM;  // rows of the stationary tile
  localparam integer STREAM = (ST == 0) ? TK + (SYS_A ? TM + TN - 2 : 0) : (ST == 1) ? TM : TN;
  localparam integer TAIL = (ST == 0) ? 1 : 2;
  localparam integer S_ROWS_LAST_I = S_ROWS - 1;
  localparam integer STREAM_LAST_I = STREAM - 1;
  localparam integer TM_LAST_I = TM - 1;
  localparam integer TK_LAST_I = TK - 1;
  localparam integer TAIL_LAST_I = TAIL - 1;
  localparam [7:0]  S_ROWS_LAST = S_ROWS_LAST_I[7:0];
  // Index ranges of the x and w selects (x: column of A / row of A / column of B;
  // w: row of B / row of B / row of A); indices are clamped so no select leaves its vector.
  localparam integer X_ROWS = (ST == 0) ? TK : (ST == 1) ? TM : TN;
  localparam integer W_ROWS = (ST == 2) ? TM : TK;
  localparam integer LUT_ROWS = 256 / TK;  // FFN activation table rows of TK bytes
  localparam [7:0]  STREAM_LAST = STREAM_LAST_I[7:0];
  localparam [7:0]  TM_LAST = TM_LAST_I[7:0];
  localparam [7:0]  TK_LAST = TK_LAST_I[7:0];
  localparam [1:0]  TAIL_LAST = TAIL_LAST_I[1:0];
  // Array b over (m, n, k) = (TM queries, TK head dims, TN keys).
  localparam integer SB_ROWS_LAST_I = ((STB == 1) ? BK : BM) - 1;
  localparam integer STREAM_B_LAST_I = ((STB == 0) ? TN + (SYS_B ? TM + TK - 2 : 0) : (STB == 1) ? BM : BN) - 1;
  localparam integer TAIL_B_LAST_I = ((STB == 0) ? 1 : 2) - 1;
  localparam [7:0]  SB_ROWS_LAST = SB_ROWS_LAST_I[7:0];
  localparam [7:0]  STREAM_B_LAST = STREAM_B_LAST_I[7:0];
  localparam [1:0]  TAIL_B_LAST = TAIL_B_LAST_I[1:0];
  localparam [15:0] KC16 = KC[15:0];
  localparam [7:0]  BM8 = BM[7:0], BN8 = BN[7:0], BK8 = BK[7:0];

  reg [5:0]  state;
  reg [15:0] c0, c1, c2;
  reg [15:0] la_m, la_k, lb_k, lb_n;
  reg        first, need_a, need_b;
  reg [7:0]  row, kk;
  reg [1:0]  tail;
  reg        yv_q;
  // Operand buffers (register files / SRAM): one A tile and one B tile, row-major.
  reg [7:0] buf_a [0:TM*TK-1];
  // Matmul: one TK x NB tile of B. Fused kernels: slot 0, then the K and V cache slots.
  localparam integer BUF_B = ((1+KC+VC)*TN > NB) ? (1+KC+VC)*TK*TN : TK*NB;
  reg [7:0] buf_b [0:BUF_B-1];
  reg [NB*32-1:0] acc_row_q /*verilator public_flat_rd*/;
  reg [NB*8-1:0]  out_row_q /*verilator public_flat_rd*/;

  wire [15:0] b0 = (ORD0 == 0) ? tiles_m : (ORD0 == 1) ? tiles_n : tiles_k;
  wire [15:0] b1 = (ORD1 == 0) ? tiles_m : (ORD1 == 1) ? tiles_n : tiles_k;
  wire [15:0] b2 = (ORD2 == 0) ? tiles_m : (ORD2 == 1) ? tiles_n : tiles_k;
  wire [15:0] mt = (ORD0 == 0) ? c0 : (ORD1 == 0) ? c1 : c2;
  wire [15:0] nt = (ORD0 == 1) ? c0 : (ORD1 == 1) ? c1 : c2;
  wire [15:0] kt = (ORD0 == 2) ? c0 : (ORD1 == 2) ? c1 : c2;
  wire        k_last = (kt == tiles_k - 16'd1);
  wire        last_iter = (c0 == b0 - 16'd1) && (c1 == b1 - 16'd1) && (c2 == b2 - 16'd1);
  wire [15:0] slot_m = M_LIVE ? mt : 16'd0;
  wire [15:0] slot_w = N_LIVE ? tiles_n : 16'd1;
  wire [15:0] slot_n = N_LIVE ? nt : 16'd0;
  wire [15:0] slot_full = slot_m * slot_w + slot_n;

  // ---- compressed operands (CMP_A, CMP_B): the current tile's metadata record ----
  localparam integer MD_BEATS = (MA_BEATS > MB_BEATS) ? MA_BEATS : MB_BEATS;
  reg  [MD_BEATS*W*8-1:0] meta_q;       // bit r: tile row r is non-zero
  reg                     row_skip_q;   // the row just passed was skipped (WAIT moves on without the DMA)
  /* verilator lint_off WIDTH */
  wire skip_a_row = (CMP_A != 0) && !meta_q[row];
  wire skip_b_row = (CMP_B != 0) && !meta_q[row];
  /* verilator lint_on WIDTH */
  wire [7:0]  md_beat = ({24'd0, rd_beat} < MD_BEATS) ? rd_beat : 8'd0;
  wire [5:0]  lda_first = (CMP_A != 0) ? S_MDA_ISSUE : S_LDA_ISSUE;  // where loading A / B starts
  wire [5:0]  ldb_first = (CMP_B != 0) ? S_MDB_ISSUE : S_LDB_ISSUE;
  wire [31:0] meta_a_addr = addr_meta_a + ({16'd0, mt} * tiles_k + {16'd0, kt}) * (MA_BEATS * W);
  wire [31:0] meta_b_addr = addr_meta_b + ({16'd0, kt} * tiles_n + {16'd0, nt}) * (MB_BEATS * W);

  assign busy = (state != S_IDLE);
  assign done_pulse = (state == S_DONE);
  assign cmd_valid = (state == S_LDA_ISSUE && !skip_a_row) || (state == S_LDB_ISSUE && !skip_b_row) ||
                     (state == S_ST_ISSUE) || (state == A_LD_ISSUE) || (state == A_FIN_ISSUE) ||
                     (state == S_MDA_ISSUE) || (state == S_MDB_ISSUE);
  assign cmd_write = (state == S_ST_ISSUE) || (state == A_FIN_ISSUE);
  assign cmd_beats = (state == S_MDA_ISSUE) ? MA_BEATS[7:0] : (state == S_MDB_ISSUE) ? MB_BEATS[7:0] :
                     (state == S_LDA_ISSUE || state == A_LD_ISSUE || state == A_FIN_ISSUE) ? BEATS_A[7:0]
                                                                                         : BEATS_B[7:0];
  // The row of a matmul tile a command moves: A's (LDA), B's (LDB), else C's. One
  // multiplier serves the three, as one command is issued at a time.
  wire        row_of_a = (state == S_LDA_ISSUE), row_of_b = (state == S_LDB_ISSUE);
  wire [31:0] mm_base = row_of_a ? addr_a : row_of_b ? addr_b : addr_c;
  wire [31:0] mm_stride = row_of_a ? stride_a : row_of_b ? stride_b : stride_c;
  wire [31:0] mm_row = row_of_b ? {16'd0, kt} * TK + {24'd0, row} : {16'd0, mt} * TM + {24'd0, row};
  wire [31:0] mm_col = row_of_a ? {16'd0, kt} * TK : {16'd0, nt} * NB;
  wire [31:0] mm_row_addr = mm_base + mm_row * mm_stride + mm_col;
  // States of a feature the core is built without are never entered; their terms are
  // guarded by its parameter as well, so that synthesis drops the logic they read (the
  // metadata and attention address arithmetic) from cores without the feature.
  assign cmd_addr = (CMP_A != 0 && state == S_MDA_ISSUE) ? meta_a_addr :
                    (CMP_B != 0 && state == S_MDB_ISSUE) ? meta_b_addr :
                    (ATTN != 0 && state == A_LD_ISSUE) ? at_ld_addr + {24'd0, row} * TK :
                    (ATTN != 0 && state == A_FIN_ISSUE) ? at_o_addr + {24'd0, row} * TK : mm_row_addr;
  wire need_a_now = first || (mt != la_m) || (kt != la_k);
  wire need_b_now = first || (kt != lb_k) || (nt != lb_n);
  wire [7:0] wr_beat_c = ({24'd0, wr_beat} < BEATS_B) ? wr_beat : 8'd0;
  wire [7:0] wr_beat_o = ({24'd0, wr_beat} < BEATS_A) ? wr_beat : 8'd0;
  assign wr_data = at_mode ? fin_out_q[wr_beat_o*W*8 +: W*8] : out_row_q[wr_beat_c*W*8 +: W*8];
  assign acw = yv_q;
  assign acw_first = at_mode || (kt == 16'd0);  // score tiles are never accumulated
  assign ac_slot = slot_full[15:0];
  assign acw_data = y;
  assign rd_row = (state == A_SM) ? sm_rd : row;
  assign rdb_row = row;

  `include "fsgen_requant.vh"

  // Operand vectors for stream step kk (x) and stationary/broadcast row kk (w).
  wire [XB*8-1:0] x_next;
  /* verilator lint_off UNUSEDSIGNAL */  // read only with DUAL = 1
  wire [TK*8-1:0] wb_mm;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [WB*8-1:0] w_next;
  wire [NB*8-1:0] out_next;
  /* verilator lint_off UNUSEDSIGNAL */  // a systolic array's feeds index by skew() instead
  wire [7:0] kx = ({24'd0, kk} < X_ROWS) ? kk : 8'd0;
  wire [7:0] kw = ({24'd0, kk} < W_ROWS) ? kk : 8'd0;
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

  genvar g;
  generate
    if (ST == 0 && SYS_A != 0) begin : os_sys_feed  // lane g of A's column / B's row, g cycles late
      for (g = 0; g < TM; g = g + 1) begin : xa
        wire [8:0] sk = skew(kk, g, TK);
        assign x_next[g*8 +: 8] = sk[8] ? buf_a[g*TK + {24'd0, sk[7:0]}] : 8'd0;
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        wire [8:0] sk = skew(kk, g, TK);
        assign w_next[g*8 +: 8] = sk[8] ? buf_b[{24'd0, sk[7:0]}*NB + g] : 8'd0;
      end
    end else if (ST == 0) begin : os_feed
      for (g = 0; g < TM; g = g + 1) begin : xa
        assign x_next[g*8 +: 8] = buf_a[g*TK + kx];
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        assign w_next[g*8 +: 8] = buf_b[kw*NB + g];
      end
    end else if (ST == 1) begin : ws_feed
      for (g = 0; g < TK; g = g + 1) begin : xa
        assign x_next[g*8 +: 8] = buf_a[kx*TK + g];
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        assign w_next[g*8 +: 8] = buf_b[kw*NB + g];
      end
    end else begin : is_feed
      for (g = 0; g < TK; g = g + 1) begin : xb
        assign x_next[g*8 +: 8] = buf_b[g*NB + kx];
      end
      for (g = 0; g < TK; g = g + 1) begin : wa
        assign w_next[g*8 +: 8] = buf_a[kw*TK + g];
      end
    end
    for (g = 0; g < NB; g = g + 1) begin : rq
      assign out_next[g*8 +: 8] = requant(acc_row_q[g*32 +: 32], req_mult, req_shift);
    end
    // Matmul on array b: row kk of B's last TK columns.
    if (DUAL != 0 && SYS_B != 0) begin : dual_sys_feed
      for (g = 0; g < TK; g = g + 1) begin : wbm
        wire [8:0] sk = skew(kk, g, TK);
        assign wb_mm[g*8 +: 8] = sk[8] ? buf_b[{24'd0, sk[7:0]}*NB + TN + g] : 8'd0;
      end
    end else if (DUAL != 0) begin : dual_feed
      for (g = 0; g < TK; g = g + 1) begin : wbm
        assign wb_mm[g*8 +: 8] = buf_b[kw*NB + TN + g];
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
  reg  [7:0]  b_mo, b_no, b_ko;          // dot array b: the current sub-tile's first query, dim, key
  reg  [15:0] b_slot;                    // buf_b slot the fused kernels read and load
  reg  [15:0] k_tag, v_tag;              // KV head whose tiles the caches hold
  reg  [KC:0] k_valid;                   // valid K / V cache slots (one spare bit: KC may be 0)
  reg  [VC:0] v_valid;
  wire [31:0] bb = {16'd0, b_slot} * (TK*TN);
  /* verilator lint_off UNSIGNED */  // constant false without a cache (KC or VC = 0)
  wire        k_cacheable = ({16'd0, at_jt} < KC);
  wire        v_cacheable = ({16'd0, at_jt} < VC);
  /* verilator lint_on UNSIGNED */
  /* verilator lint_off WIDTH */
  wire [15:0] jk = k_cacheable ? at_jt : 16'd0;
  wire [15:0] jv = v_cacheable ? at_jt : 16'd0;
  wire        k_hit = k_cacheable && k_tag == at_hk && k_valid[jk];
  wire        v_hit = v_cacheable && v_tag == at_hk && v_valid[jv];
  wire [KC:0] k_fill = ((k_tag == at_hk) ? k_valid : {(KC+1){1'b0}}) | ({{KC{1'b0}}, 1'b1} << jk);
  wire [VC:0] v_fill = ((v_tag == at_hk) ? v_valid : {(VC+1){1'b0}}) | ({{VC{1'b0}}, 1'b1} << jv);
  /* verilator lint_on WIDTH */
  reg         at_ffn;                    // the running kernel is the FFN
  reg         at_gate;                   // FFN: this score pass is the gate (W3)
  /* verilator lint_off UNUSEDSIGNAL */  // the next buffers are read only with ATTN = 1
  reg  [7:0]  lut [0:255];               // FFN activation table
  reg  [5:0]  at_ld_ret;                 // state after the load
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
  wire [7:0]  rr_fin = ({24'd0, row} < TM) ? row : 8'd0;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [31:0] at_q_head = addr_a + {16'd0, at_h} * head_stride_q;
  wire [31:0] at_o_addr = addr_c + {16'd0, at_h} * head_stride_q + {16'd0, at_q0} * TK;
  wire [31:0] at_k_head = {16'd0, at_hk} * head_stride_kv + {16'd0, at_j0} * TK;
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

  // ---- block TopK (GRP = 1): rank the candidate key tiles [tk_first, tk_own) of a query tile ----
  localparam integer GTW = (GT > 1) ? $clog2(GT) : 1;
  // (Inside the softmax unit's WIDTH-free region; without a sliding window the first
  // candidate is tile 0, so some comparisons are constant.)
  /* verilator lint_off UNUSEDSIGNAL */
  /* verilator lint_off UNSIGNED */
  reg  [7:0]  kpool [0:TK-1];            // the pooled key just fetched
  reg  [31:0] tk_score [0:GT-1];         // score of each candidate tile
  reg  [GT-1:0] tk_keep;                 // candidates kept
  reg  [15:0] tk_j;                      // candidate being fetched
  reg  [7:0]  tk_n;                      // candidates kept so far
  wire        at_ranked = (GRP != 0) && !at_ffn;
  wire [15:0] tk_tiles = (len_kv + TN16 - 16'd1) / TN16;             // key tiles per head
  wire [15:0] tk_first = at_jt0;                                      // a sliding window's first tile
  wire [15:0] tk_own_c = attn_flags[0] ? (q_pos0 + at_q0) / TN16 : tk_tiles;
  wire [15:0] tk_own = (tk_own_c < tk_first) ? tk_first : tk_own_c;  // first tile always visited
  wire [15:0] tk_cands = tk_own - tk_first;
  wire [7:0]  tk_sel = (tk_cands < TOPK) ? tk_cands[7:0] : TOPK[7:0];
  wire [31:0] tk_pool_addr = addr_pool + ({16'd0, at_hk} * {16'd0, tk_tiles} + {16'd0, tk_j}) * TK;
  // sum over the tile's query rows, then the dot product with the pooled key (INT32 wrap)
  reg  [31:0] tk_qsum [0:TK-1];
  reg  [31:0] tk_dot;
  integer ti, tr;
  always @* begin
    tk_dot = 32'd0;
    for (ti = 0; ti < TK; ti = ti + 1) begin
      tk_qsum[ti] = 32'd0;
      for (tr = 0; tr < TM; tr = tr + 1)
        if (tr < at_rows) tk_qsum[ti] = tk_qsum[ti] + {{24{buf_a[tr*TK + ti][7]}}, buf_a[tr*TK + ti]};
      tk_dot = tk_dot + tk_qsum[ti] * {{24{kpool[ti][7]}}, kpool[ti]};
    end
  end
  // The best candidate not kept yet (the earlier tile on a tie), the first kept tile, the
  // kept tile after at_jt.
  reg  [15:0] tk_best, tk_first_kept, tk_after;
  reg         tk_found;
  integer tb;
  always @* begin
    tk_best = tk_first; tk_found = 1'b0;
    for (tb = 0; tb < GT; tb = tb + 1)
      if (tb >= tk_first && tb < tk_own && !tk_keep[tb] &&
          (!tk_found || $signed(tk_score[tb]) > $signed(tk_score[tk_best[GTW-1:0]]))) begin
        tk_best = tb; tk_found = 1'b1;
      end
    tk_first_kept = tk_own;
    tk_after = (at_jt + 16'd1 > tk_own) ? at_jt + 16'd1 : tk_own;
    for (tb = GT - 1; tb >= 0; tb = tb - 1) begin
      if (tk_keep[tb] && tb < tk_own) tk_first_kept = tb;
      if (tk_keep[tb] && tb > at_jt && tb < tk_own) tk_after = tb;
    end
  end
  /* verilator lint_on UNSIGNED */
  /* verilator lint_on UNUSEDSIGNAL */
  assign at_next_jt = at_ranked ? tk_after : at_jt + 16'd1;


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
      assign sm_ld = state == A_SM && {24'd0, kk} < TM;
      assign sm_first = at_first_kv;
      assign sm_m_old = m_run[sm_idx_q];
      assign sm_l_old = l_run[sm_idx_q];
      assign sm_q_pos = q_pos0 + at_q0 + {8'd0, sm_idx_q};
      assign sm_j0 = at_j0;
      assign sm_ffn = at_ffn;
      assign sm_gate = at_gate;
    end else begin : no_softmax_inputs
      assign sm_p_prev = {TN*8{1'b0}};
      assign sm_lut = 2048'd0;
      assign sm_ld = 1'b0; assign sm_first = 1'b0; assign sm_ffn = 1'b0; assign sm_gate = 1'b0;
      assign sm_m_old = 32'd0; assign sm_l_old = 32'd0; assign sm_q_pos = 16'd0; assign sm_j0 = 16'd0;
    end
  endgenerate
  /* verilator lint_on WIDTH */

  // ---- compute-value sparsity (SPARSE = 1): window, per-block needs and selects ----
  localparam integer RPL = TM / LM, CPL = TN / LN;  // rows per row lane, columns per column lane
  localparam integer SK_LAST_I = TK - SK;
  localparam [7:0]   SK8 = SK[7:0], KB_LAST = SK_LAST_I[7:0];
  reg  [7:0]          kb;                 // first k step of the current window
  reg                 sp_drain;           // the windows are done; the systolic feeders drain
  reg  [LM*LN*SK-1:0] sp_done;            // window steps each block has issued
  reg  [LM*SK-1:0]    xnz;                // row lane a has a non-zero x at window step t
  reg  [LN*SK-1:0]    wnz;                // column lane b has a non-zero w at window step t
  wire [LM*LN*SK-1:0] sp_need;
  wire [LM*LN*SK-1:0] sp_left;            // still needed after this cycle's issue
  wire                sp_win_last = ~|sp_left;
  // Window step t of column j: B[kb + t][j] of the matmul tile, or, in the fused kernels,
  // K[j][kb + t] of the key tile in buf_b slot b_slot (B = K^T).
  function [7:0] b_at;
    input integer t;
    input integer j;
    begin
      b_at = at_mode ? buf_b[bb + j*TK + {24'd0, kb} + t] : buf_b[({24'd0, kb} + t)*NB + j];
    end
  endfunction
  integer za, zb, zt, zr;
  always @* begin
    xnz = {LM*SK{1'b1}};
    wnz = {LN*SK{1'b1}};
    if (XSP != 0) begin
      xnz = {LM*SK{1'b0}};
      for (za = 0; za < LM; za = za + 1)
        for (zt = 0; zt < SK; zt = zt + 1)
          for (zr = 0; zr < RPL; zr = zr + 1)
            if (buf_a[(za*RPL + zr)*TK + {24'd0, kb} + zt] != 8'd0) xnz[za*SK + zt] = 1'b1;
    end
    if (WSP != 0) begin
      wnz = {LN*SK{1'b0}};
      for (zb = 0; zb < LN; zb = zb + 1)
        for (zt = 0; zt < SK; zt = zt + 1)
          for (zr = 0; zr < CPL; zr = zr + 1)
            if (b_at(zt, zb*CPL + zr) != 8'd0) wnz[zb*SK + zt] = 1'b1;
    end
  end
  genvar ga, gb, gt;
  generate
    for (ga = 0; ga < LM; ga = ga + 1) begin : sp_row
      for (gb = 0; gb < LN; gb = gb + 1) begin : sp_col
        localparam integer BLK = ga*LN + gb;
        wire [SK-1:0] need = xnz[ga*SK +: SK] & wnz[gb*SK +: SK] & ~sp_done[BLK*SK +: SK];
        // Lowest needed step: isolate the lowest set bit, then encode it.
        wire [SK-1:0] low = need & (~need + {{(SK-1){1'b0}}, 1'b1});
        reg  [SELW-1:0] enc;
        integer e;
        always @* begin
          enc = {SELW{1'b0}};
          for (e = 0; e < SK; e = e + 1) if (low[e]) enc = e[SELW-1:0];
        end
        assign sp_need[BLK*SK +: SK] = need;
        assign sp_left[BLK*SK +: SK] = need & ~low;
        assign sp_sel[BLK*SELW +: SELW] = enc;
        assign sp_has[BLK] = |need & ~sp_drain;
      end
    end
    for (gt = 0; gt < SK; gt = gt + 1) begin : sp_win
      for (ga = 0; ga < TM; ga = ga + 1) begin : xw
        assign xwin[(ga*SK + gt)*8 +: 8] = buf_a[ga*TK + {24'd0, kb} + gt];
      end
      for (gb = 0; gb < TN; gb = gb + 1) begin : ww
        assign wwin[(gb*SK + gt)*8 +: 8] = b_at(gt, gb);
      end
    end
  endgenerate
  assign sp_step = (SPARSE != 0) && (state == S_COMP || state == A_S);
  // After this cycle: the blocks' issued steps, the next window, the end of the tile's stream.
  wire [LM*LN*SK-1:0] sp_done_next = sp_win_last ? {LM*LN*SK{1'b0}} : sp_done | (sp_need & ~sp_left);
  wire [7:0]          kb_next = (kb == KB_LAST) ? 8'd0 : kb + SK8;
  wire                sp_stream_end = sp_win_last && (kb == KB_LAST);
  // A systolic array's drain after the windows (DRAIN cycles), then the tile's tail.
  localparam integer DRAIN = (SYS_A != 0) ? TM + TN - 2 : 0;
  localparam integer DRAIN_LAST_I = (DRAIN > 0) ? DRAIN - 1 : 0;
  localparam [7:0]   DRAIN_LAST = DRAIN_LAST_I[7:0];
  reg  [7:0]          drain_n;
  wire                sp_tile_end = sp_drain ? (drain_n == DRAIN_LAST) : (sp_stream_end && DRAIN == 0);
  // The window scheduler advances on every stream cycle (sp_step) outside the drain.
  always @(posedge clk) begin
    if (!rst_n) begin
      kb <= 8'd0; sp_done <= {LM*LN*SK{1'b0}}; sp_drain <= 1'b0; drain_n <= 8'd0;
    end else if (sp_step && sp_drain) begin
      drain_n <= drain_n + 8'd1;
      if (drain_n == DRAIN_LAST) sp_drain <= 1'b0;
    end else if (sp_step) begin
      sp_done <= sp_done_next;
      if (sp_win_last) kb <= kb_next;
      if (sp_stream_end && DRAIN != 0) begin sp_drain <= 1'b1; drain_n <= 8'd0; end
    end
  end

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
  wire [7:0] kp = ({24'd0, kk} < TN) ? kk : 8'd0;  // key
  wire [7:0] kq = ({24'd0, kk} < TM) ? kk : 8'd0;  // query
  wire [7:0] kd = ({24'd0, kk} < TK) ? kk : 8'd0;  // head dim
  wire [31:0] kbm = ({24'd0, kk} < BM) ? {24'd0, kk} : 32'd0;  // steps within array b's sub-tile
  wire [31:0] kbn = ({24'd0, kk} < BN) ? {24'd0, kk} : 32'd0;
  wire [31:0] kbk = ({24'd0, kk} < BK) ? {24'd0, kk} : 32'd0;
  /* verilator lint_on UNUSEDSIGNAL */
  generate
    if (ATTN != 0) begin : fused_feed
      if (ST == 2) begin : at_is   // Q rows stationary, K rows streamed
        for (g = 0; g < TK; g = g + 1) begin : xk
          assign x_at[g*8 +: 8] = buf_b[bb + kx*TK + g];
        end
        assign w_at = w_next;
      end else if (ST == 0 && SYS_A != 0) begin : at_os_sys  // skewed columns of Q and K
        assign x_at = x_next;
        for (g = 0; g < TN; g = g + 1) begin : wkt
          wire [8:0] sk = skew(kk, g, TK);
          assign w_at[g*8 +: 8] = sk[8] ? buf_b[bb + g*TK + {24'd0, sk[7:0]}] : 8'd0;
        end
      end else begin : at_os_ws    // x: column (OS) or row (WS) of Q; w: column kk of the K tile
        assign x_at = x_next;
        for (g = 0; g < TN; g = g + 1) begin : wkt
          assign w_at[g*8 +: 8] = buf_b[bb + g*TK + {24'd0, kw}];
        end
      end
      if (STB == 0 && SYS_B != 0) begin : b_os_sys  // skewed columns of P and rows of V
        for (g = 0; g < TM; g = g + 1) begin : xbp
          wire [8:0] sk = skew(kk, g, TN);
          assign xb_next[g*8 +: 8] = sk[8] ? p_buf[g*TN + {24'd0, sk[7:0]}] : 8'd0;
        end
        for (g = 0; g < TK; g = g + 1) begin : wbv
          wire [8:0] sk = skew(kk, g, TN);
          assign wb_next[g*8 +: 8] = sk[8] ? buf_b[bb + {24'd0, sk[7:0]}*TK + g] : 8'd0;
        end
      end else if (STB == 0) begin : b_os     // column kk of P along rows, row kk of V down columns
        for (g = 0; g < TM; g = g + 1) begin : xbp
          assign xb_next[g*8 +: 8] = p_buf[g*TN + kp];
        end
        for (g = 0; g < TK; g = g + 1) begin : wbv
          assign wb_next[g*8 +: 8] = buf_b[bb + kp*TK + g];
        end
      end else if (STB == 1) begin : b_ws  // V rows into the PEs, rows of P streamed (sub-tile b_mo, b_no, b_ko)
        for (g = 0; g < BK; g = g + 1) begin : xbp
          assign xb_next[g*8 +: 8] = p_buf[({24'd0, b_mo} + kbm)*TN + {24'd0, b_ko} + g];
        end
        for (g = 0; g < BN; g = g + 1) begin : wbv
          assign wb_next[g*8 +: 8] = buf_b[bb + ({24'd0, b_ko} + kbk)*TK + {24'd0, b_no} + g];
        end
      end else begin : b_is                // P rows into the PEs, columns of V streamed
        for (g = 0; g < BK; g = g + 1) begin : xbv
          assign xb_next[g*8 +: 8] = buf_b[bb + ({24'd0, b_ko} + g)*TK + {24'd0, b_no} + kbn];
        end
        for (g = 0; g < BK; g = g + 1) begin : wbp
          assign wb_next[g*8 +: 8] = p_buf[({24'd0, b_mo} + kbm)*TN + {24'd0, b_ko} + g];
        end
      end
      // Operand isolation: the divider of normalise() and ffn_out() see the row's running sum
      // and residual only in the cycle that stores their result (A_FIN_DIV); otherwise every
      // softmax load (l_run) and residual write (buf_a) would set the divider switching in
      // cycles whose result nobody takes.
      /* verilator lint_off WIDTH */
      wire        fin_go = state == A_FIN_DIV;
      wire [31:0] fin_l = (fin_go && !at_ffn) ? l_run[rr_fin] : 32'd0;
      for (g = 0; g < TK; g = g + 1) begin : fin
        wire [7:0] fin_x = (fin_go && attn_flags[1]) ? buf_a[rr_fin*TK + g] : 8'd0;
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

  // Buffer writes: one beat of W bytes per valid read beat.
  integer b;
  always @(posedge clk) begin
    // buf_a rows are TK bytes for every kernel (A, Q, X); buf_b rows are TN bytes of B
    // in matmul and TK bytes of K, V, W in the fused kernels.
    if (rd_valid && (state == S_LDA_WAIT || (state == A_LD_WAIT && at_ld_dst == 2'd0)))
      for (b = 0; b < W; b = b + 1) buf_a[row*TK + rd_beat*W + b] <= rd_data[b*8 +: 8];
    if (rd_valid && state == S_LDB_WAIT)
      for (b = 0; b < W; b = b + 1) buf_b[row*NB + rd_beat*W + b] <= rd_data[b*8 +: 8];
    if (state == S_LDA_ISSUE && skip_a_row)
      for (b = 0; b < TK; b = b + 1) buf_a[row*TK + b] <= 8'd0;
    if (state == S_LDB_ISSUE && skip_b_row)
      for (b = 0; b < NB; b = b + 1) buf_b[row*NB + b] <= 8'd0;
    // Loads of the fused kernels, guarded by their parameters as cmd_addr's terms are.
    if ((ATTN != 0) && rd_valid && state == A_LD_WAIT && at_ld_dst == 2'd1)
      for (b = 0; b < W; b = b + 1) buf_b[bb + row*TK + rd_beat*W + b] <= rd_data[b*8 +: 8];
    if ((ATTN != 0) && rd_valid && state == A_LD_WAIT && at_ld_dst == 2'd2)
      for (b = 0; b < W; b = b + 1) lut[(row*TK + rd_beat*W + b) & 255] <= rd_data[b*8 +: 8];
    if ((GRP != 0) && rd_valid && state == A_LD_WAIT && at_ld_dst == 2'd3)
      for (b = 0; b < W; b = b + 1) kpool[rd_beat*W + b] <= rd_data[b*8 +: 8];
    if (sm_v_q && at_ffn)
      for (b = 0; b < TN; b = b + 1) p_buf[sm_idx_q*TN + b] <= sm_p[b*8 +: 8];
    if (sm_v_q && !at_ffn) begin
      for (b = 0; b < TN; b = b + 1) p_buf[sm_idx_q*TN + b] <= sm_p[b*8 +: 8];
      /* verilator lint_off WIDTH */
      m_run[sm_idx_q] <= sm_mnew;
      l_run[sm_idx_q] <= sm_lnew;
      /* verilator lint_on WIDTH */
    end
  end

  always @(posedge clk) begin
    if (!rst_n) begin
      state <= S_IDLE; cycles <= 32'd0; c0 <= 16'd0; c1 <= 16'd0; c2 <= 16'd0;
      la_m <= 16'd0; la_k <= 16'd0; lb_k <= 16'd0; lb_n <= 16'd0;
      first <= 1'b0; need_a <= 1'b0; need_b <= 1'b0; row <= 8'd0; kk <= 8'd0; tail <= 2'd0;
      x_q <= {XB*8{1'b0}}; w_q <= {WB*8{1'b0}}; v_q <= 1'b0; clr_q <= 1'b0; ld_q <= 1'b0;
      meta_q <= {MD_BEATS*W*8{1'b0}}; row_skip_q <= 1'b0;
      idx_q <= 8'd0; yv_q <= 1'b0; acw_idx <= 8'd0;
      acc_row_q <= {NB*32{1'b0}}; out_row_q <= {NB*8{1'b0}};
      at_mode <= 1'b0; at_h <= 16'd0; at_hk <= 16'd0; at_g <= 16'd0; at_q0 <= 16'd0; at_j0 <= 16'd0;
      at_rows <= 8'd0; at_kv_rows <= 8'd0; at_first_kv <= 1'b0; at_ld_addr <= 32'd0; at_ld_rows <= 8'd0;
      at_ld_dst <= 2'd0; at_ld_ret <= 6'd0; at_jt <= 16'd0; b_slot <= 16'd0;
      k_tag <= 16'd0; v_tag <= 16'd0; k_valid <= {(KC+1){1'b0}}; v_valid <= {(VC+1){1'b0}}; at_ffn <= 1'b0; at_gate <= 1'b0; sm_idx_q <= 8'd0;
      p_row_q <= {TN*8{1'b0}}; fin_in_q <= {TK*32{1'b0}}; fin_out_q <= {TK*8{1'b0}};
      xb_q <= {XBB*8{1'b0}}; wb_q <= {WBB*8{1'b0}}; vb_q <= 1'b0; clrb_q <= 1'b0; scb_q <= 1'b0;
      ldb_q <= 1'b0; idxb_q <= 8'd0; acwb <= 1'b0; acwb_first <= 1'b0; acwb_sc <= 1'b0; acwb_idx <= 8'd0;
      acwb_off <= 8'd0; b_mo <= 8'd0; b_no <= 8'd0; b_ko <= 8'd0;
      alpha_q <= {TM*32{1'b0}};
    end else begin
      if (state != S_IDLE) cycles <= cycles + 32'd1;
      if (rd_valid && (state == S_MDA_WAIT || state == S_MDB_WAIT)) meta_q[md_beat*W*8 +: W*8] <= rd_data;
      yv_q <= v_q && (ST != 0);
      acw_idx <= idx_q;
      acwb <= vb_q && (STB != 0);
      acwb_first <= clrb_q;
      acwb_sc <= scb_q;
      acwb_idx <= idxb_q + ((STB == 1) ? b_mo : b_no);  // row (WS) or column (IS) of O
      acwb_off <= (STB == 1) ? b_no : b_mo;
      case (state)
        S_IDLE: if (start) begin
          cycles <= 32'd0; c0 <= 16'd0; c1 <= 16'd0; c2 <= 16'd0; first <= 1'b1;
          at_mode <= (ATTN != 0) && (kernel == 32'd1 || kernel == 32'd2);
          at_ffn <= (ATTN != 0) && (kernel == 32'd2);
          at_h <= 16'd0; at_hk <= 16'd0; at_g <= 16'd0; at_q0 <= 16'd0;
          k_valid <= {(KC+1){1'b0}}; v_valid <= {(VC+1){1'b0}}; b_slot <= 16'd0;
          state <= ((ATTN != 0) && kernel == 32'd1) ? A_QT : ((ATTN != 0) && kernel == 32'd2) ? A_LUT : S_TILE;
        end
        A_LUT: begin
          at_ld_addr <= addr_lut;
          at_ld_rows <= LUT_ROWS[7:0];
          at_ld_dst <= 2'd2;
          at_ld_ret <= A_QT;
          row <= 8'd0;
          state <= A_LD_ISSUE;
        end
        // ---- fused attention ----
        A_QT: begin
          at_rows <= (at_rows_left < TM) ? at_rows_left[7:0] : TM[7:0];
          at_j0 <= at_jt0 * TN16;
          at_jt <= at_jt0;
          at_first_kv <= 1'b1;
          at_ld_addr <= at_q_head + {16'd0, at_q0} * TK;
          at_ld_rows <= (at_rows_left < TM) ? at_rows_left[7:0] : TM[7:0];
          at_ld_dst <= 2'd0;
          at_ld_ret <= at_ranked ? A_TKI : A_KT;
          tk_j <= at_jt0;
          tk_n <= 8'd0;
          tk_keep <= {GT{1'b0}};
          row <= 8'd0;
          state <= A_LD_ISSUE;
        end
        A_TKI: if (tk_j < tk_own) begin  // fetch the next candidate's pooled key
          at_ld_addr <= tk_pool_addr;
          at_ld_rows <= 8'd1;
          at_ld_dst <= 2'd3;
          at_ld_ret <= A_TKC;
          row <= 8'd0;
          state <= A_LD_ISSUE;
        end else state <= A_TKS;
        A_TKC: begin
          /* verilator lint_off WIDTH */
          if (GRP != 0) tk_score[tk_j[GTW-1:0]] <= tk_dot;  // guarded: no scorer without GRP
          /* verilator lint_on WIDTH */
          tk_j <= tk_j + 16'd1;
          state <= A_TKI;
        end
        A_TKS: if (tk_n == tk_sel) begin  // ranked: start the key loop at the first kept tile
          at_jt <= tk_first_kept;
          at_j0 <= tk_first_kept * TN16;
          state <= A_KT;
        end else begin
          /* verilator lint_off WIDTH */
          tk_keep[tk_best[GTW-1:0]] <= 1'b1;
          /* verilator lint_on WIDTH */
          tk_n <= tk_n + 8'd1;
        end
        A_LD_ISSUE: state <= A_LD_WAIT;
        A_LD_WAIT: if (cmd_done) begin
          if (row == at_ld_rows - 8'd1) begin row <= 8'd0; state <= at_ld_ret; end
          else begin row <= row + 8'd1; state <= A_LD_ISSUE; end
        end
        A_KT: begin
          at_kv_rows <= (at_kv_left < TN) ? at_kv_left[7:0] : TN[7:0];
          at_ld_addr <= addr_b + at_k_head;
          at_ld_rows <= (at_kv_left < TN) ? at_kv_left[7:0] : TN[7:0];
          at_ld_dst <= 2'd1;
          // A weight-stationary array a holds the key tile, new every time; an
          // input-stationary one the query tile, loaded once per query tile.
          at_ld_ret <= (ST == 1 || (ST == 2 && at_first_kv)) ? A_SLD : A_S;
          row <= 8'd0;
          kk <= 8'd0;
          b_slot <= k_cacheable ? 16'd1 + at_jt : 16'd0;
          if (k_hit) state <= (ST == 1 || (ST == 2 && at_first_kv)) ? A_SLD : A_S;
          else begin
            if (k_cacheable) begin k_tag <= at_hk; k_valid <= k_fill; end
            state <= A_LD_ISSUE;
          end
        end
        A_SLD: begin
          w_q <= w_at;
          ld_q <= 1'b1;
          idx_q <= kk;
          if (kk == S_ROWS_LAST) begin kk <= 8'd0; state <= A_S; end
          else kk <= kk + 8'd1;
        end
        A_S: begin
          if (SPARSE == 0) begin
            x_q <= x_at;
            if (ST == 0) w_q <= w_at;
          end
          v_q <= 1'b1;
          ld_q <= 1'b0;
          clr_q <= (kk == 8'd0);
          idx_q <= kk;
          tail <= 2'd0;
          if (SPARSE != 0) begin  // as in S_COMP: windows of the head dim
            kk <= sp_tile_end ? 8'd0 : kk + 8'd1;
            if (sp_tile_end) state <= A_S_TAIL;
          end else if (kk == STREAM_LAST) begin kk <= 8'd0; state <= A_S_TAIL; end
          else kk <= kk + 8'd1;
        end
        A_S_TAIL: begin
          v_q <= 1'b0;
          clr_q <= 1'b0;
          tail <= tail + 2'd1;
          if (tail == TAIL_LAST) state <= A_SM;
        end
        A_SM: begin
          if ({24'd0, kk} < TM) sm_idx_q <= kk;  // the softmax unit loads the row (sm_load)
          if (sm_v_q) begin
            p_row_q <= sm_p;
            // Written only for the tiles that rescale (scb_q's condition): the FFN and the
            // first key tile never do, and holding the factors keeps array b's rescale
            // multipliers (acc x alpha, combinational) from switching in their passes.
            if (!at_ffn && !at_first_kv) alpha_q[sm_idx_q*32 +: 32] <= sm_alpha;
          end
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
          at_ld_ret <= (ST == 1) ? A_SLD : A_S;
          b_slot <= 16'd0;  // gate weights are not cached
          row <= 8'd0;
          kk <= 8'd0;
          state <= A_LD_ISSUE;
        end
        A_VLD: begin
          at_gate <= 1'b0;
          at_ld_addr <= addr_v + at_k_head;
          at_ld_rows <= at_kv_rows;
          at_ld_dst <= 2'd1;
          at_ld_ret <= (STB != 0) ? A_OLD : A_O;
          row <= 8'd0;
          kk <= 8'd0;
          b_mo <= 8'd0; b_no <= 8'd0; b_ko <= 8'd0;
          b_slot <= v_cacheable ? 16'd1 + KC16 + at_jt : 16'd0;
          if (v_hit) state <= (STB != 0) ? A_OLD : A_O;
          else begin
            if (v_cacheable) begin v_tag <= at_hk; v_valid <= v_fill; end
            state <= A_LD_ISSUE;
          end
        end
        A_OLD: begin
          wb_q <= wb_next;
          ldb_q <= 1'b1;
          idxb_q <= kk;
          if (kk == SB_ROWS_LAST) begin kk <= 8'd0; state <= A_O; end
          else kk <= kk + 8'd1;
        end
        // An output-stationary array b clears or rescales O on the first step; a dot
        // array b writes each O cell once per key tile, so every write does.
        A_O: begin
          xb_q <= xb_next;
          if (STB == 0) wb_q <= wb_next;
          vb_q <= 1'b1;
          ldb_q <= 1'b0;
          idxb_q <= kk;
          clrb_q <= at_first_kv && ((STB != 0) ? b_ko == 8'd0 : kk == 8'd0);
          scb_q <= !at_ffn && !at_first_kv && ((STB != 0) ? b_ko == 8'd0 : kk == 8'd0);
          tail <= 2'd0;
          if (kk == STREAM_B_LAST) begin kk <= 8'd0; state <= A_O_TAIL; end
          else kk <= kk + 8'd1;
        end
        A_O_TAIL: begin
          vb_q <= 1'b0;
          clrb_q <= 1'b0;
          scb_q <= 1'b0;
          tail <= tail + 2'd1;
          // A dot array b moves on to its next sub-tile: keys innermost, then dims, then queries.
          if (tail == TAIL_B_LAST) begin
            kk <= 8'd0;
            if (STB == 0) state <= A_KNEXT;
            else if ({24'd0, b_ko} + BK < TN) begin b_ko <= b_ko + BK8; state <= A_OLD; end
            else if ({24'd0, b_no} + BN < TK) begin b_ko <= 8'd0; b_no <= b_no + BN8; state <= A_OLD; end
            else if ({24'd0, b_mo} + BM < TM) begin b_ko <= 8'd0; b_no <= 8'd0; b_mo <= b_mo + BM8; state <= A_OLD; end
            else state <= A_KNEXT;
          end
        end
        A_KNEXT: begin
          at_first_kv <= 1'b0;
          row <= 8'd0;
          if (at_more_kv) begin
            at_j0 <= at_next_j0;
            at_jt <= at_next_jt;
            state <= A_KT;
          end else if (attn_flags[1]) begin
            at_ld_addr <= addr_x + {16'd0, at_h} * head_stride_q + {16'd0, at_q0} * TK;
            at_ld_rows <= at_rows;
            at_ld_dst <= 2'd0;
            at_ld_ret <= A_FIN_READ;
            state <= A_LD_ISSUE;
          end else state <= A_FIN_READ;
        end
        A_FIN_READ: begin fin_in_q <= rdb_data; state <= A_FIN_DIV; end
        A_FIN_DIV: begin fin_out_q <= fin_next; state <= A_FIN_ISSUE; end
        A_FIN_ISSUE: state <= A_FIN_WAIT;
        A_FIN_WAIT: if (cmd_done) begin
          if (row == at_rows - 8'd1) state <= A_QNEXT;
          else begin row <= row + 8'd1; state <= A_FIN_READ; end
        end
        A_QNEXT: begin
          if (at_q0 + TM < len_q) begin
            at_q0 <= at_q0 + TM;
            state <= A_QT;
          end else if (at_h + 16'd1 < heads) begin
            at_h <= at_h + 16'd1;
            at_q0 <= 16'd0;
            if (at_g + 16'd1 == group) begin at_g <= 16'd0; at_hk <= at_hk + 16'd1; end
            else at_g <= at_g + 16'd1;
            state <= A_QT;
          end else state <= S_DONE;
        end
        S_TILE: begin
          need_a <= need_a_now;
          need_b <= need_b_now;
          first <= 1'b0;
          row <= 8'd0;
          kk <= 8'd0;
          state <= need_a_now ? lda_first : need_b_now ? ldb_first : S_COMP;
        end
        S_MDA_ISSUE: state <= S_MDA_WAIT;
        S_MDA_WAIT: if (cmd_done) state <= S_LDA_ISSUE;
        S_MDB_ISSUE: state <= S_MDB_WAIT;
        S_MDB_WAIT: if (cmd_done) state <= S_LDB_ISSUE;
        S_LDA_ISSUE: begin row_skip_q <= skip_a_row; state <= S_LDA_WAIT; end
        S_LDA_WAIT: if (cmd_done || row_skip_q) begin
          la_m <= mt; la_k <= kt;
          if (row == TM_LAST) begin
            row <= 8'd0;
            // A was reloaded: an input-stationary array reloads its PEs.
            state <= need_b ? ldb_first : (ST == 2) ? S_LDS : S_COMP;
          end else begin
            row <= row + 8'd1;
            state <= S_LDA_ISSUE;
          end
        end
        S_LDB_ISSUE: begin row_skip_q <= skip_b_row; state <= S_LDB_WAIT; end
        S_LDB_WAIT: if (cmd_done || row_skip_q) begin
          lb_k <= kt; lb_n <= nt;
          if (row == TK_LAST) begin
            row <= 8'd0;
            state <= ((ST == 1) || (ST == 2 && need_a)) ? S_LDS : S_COMP;
          end else begin
            row <= row + 8'd1;
            state <= S_LDB_ISSUE;
          end
        end
        S_LDS: begin
          w_q <= w_next;
          ld_q <= 1'b1;
          idx_q <= kk;
          if (kk == S_ROWS_LAST) begin kk <= 8'd0; state <= S_COMP; end
          else kk <= kk + 8'd1;
        end
        S_COMP: begin
          if (SPARSE == 0) begin
            x_q <= x_next;
            if (ST == 0) w_q <= w_next;
          end
          v_q <= 1'b1;
          ld_q <= 1'b0;
          clr_q <= (kt == 16'd0) && (kk == 8'd0);
          idx_q <= kk;
          tail <= 2'd0;
          if (DUAL != 0) begin  // widths agree when DUAL = 1 (both arrays output-stationary)
            /* verilator lint_off WIDTH */
            xb_q <= x_next;
            wb_q <= wb_mm;
            /* verilator lint_on WIDTH */
            vb_q <= 1'b1;
            clrb_q <= (kt == 16'd0) && (kk == 8'd0);
          end
          if (SPARSE != 0) begin  // kk counts the tile's cycles; the window advances when every block is done
            kk <= sp_tile_end ? 8'd0 : kk + 8'd1;
            if (sp_tile_end) state <= S_TAIL;
          end else if (kk == STREAM_LAST) begin kk <= 8'd0; state <= S_TAIL; end
          else kk <= kk + 8'd1;
        end
        S_TAIL: begin
          v_q <= 1'b0;
          clr_q <= 1'b0;
          vb_q <= 1'b0;
          clrb_q <= 1'b0;
          tail <= tail + 2'd1;
          if (tail == TAIL_LAST) begin
            row <= 8'd0;
            state <= k_last ? S_ST_READ : S_NEXT;
          end
        end
        S_ST_READ: begin
          /* verilator lint_off WIDTH */
          acc_row_q <= (DUAL != 0) ? {rdb_data, acc_rd_data} : acc_rd_data;
          /* verilator lint_on WIDTH */
          state <= S_ST_REQ;
        end
        S_ST_REQ:  begin out_row_q <= out_next; state <= S_ST_ISSUE; end
        S_ST_ISSUE: state <= S_ST_WAIT;
        S_ST_WAIT: if (cmd_done) begin
          if (row == TM_LAST) state <= S_NEXT;
          else begin row <= row + 8'd1; state <= S_ST_READ; end
        end
        S_NEXT: begin
          if (last_iter) state <= S_DONE;
          else begin
            state <= S_TILE;
            if (c2 != b2 - 16'd1) c2 <= c2 + 16'd1;
            else begin
              c2 <= 16'd0;
              if (c1 != b1 - 16'd1) c1 <= c1 + 16'd1;
              else begin c1 <= 16'd0; c0 <= c0 + 16'd1; end
            end
          end
        end
        S_DONE: state <= S_IDLE;
        default: state <= S_IDLE;
      endcase
    end
  end
endmodule
