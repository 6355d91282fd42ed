// Tile sequencer of the matmul kernel. For every tile iteration of the loop nest
// (ORD0 outermost .. ORD2 innermost over m=0, n=1, k=2) it loads the operand tiles
// that changed (reuse), feeds the PE array, and when the reduction over k is
// complete requantises the output tile and stores it. Phases run one after the
// other; their cycle counts are the timing contract mirrored by the SystemC model
// (src/models/core_timing.h).
//   ST = 0 output-stationary: x = column of A, w = row of B, accumulate in the PEs.
//   ST = 1 weight-stationary: B tile loaded into the PEs, rows of A streamed.
//   ST = 2 input-stationary:  A tile loaded into the PEs, columns of B streamed.
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
    parameter XB = (ST == 0) ? TM : TK,                // bytes on the x bus
    parameter WB = (ST == 2) ? TK : TN,                // bytes on the w bus
    parameter YL = (ST == 2) ? TM : TN                 // lanes of the dot array output
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
    // accumulation (PE accumulators or accumulator cache)
    output wire            acw,
    output wire            acw_first,
    output wire [15:0]     ac_slot,
    output reg  [7:0]      acw_idx,
    output wire [YL*32-1:0] acw_data,
    output wire [7:0]      rd_row,
    input  wire [TN*32-1:0] acc_rd_data
);
  localparam [3:0] S_IDLE = 4'd0, S_TILE = 4'd1, S_LDA_ISSUE = 4'd2, S_LDA_WAIT = 4'd3,
                   S_LDB_ISSUE = 4'd4, S_LDB_WAIT = 4'd5, S_LDS = 4'd6, S_COMP = 4'd7, S_TAIL = 4'd8,
                   S_ST_READ = 4'd9, S_ST_REQ = 4'd10, S_ST_ISSUE = 4'd11, S_ST_WAIT = 4'd12,
                   S_NEXT = 4'd13, S_DONE = 4'd14;
  localparam integer BEATS_A = TK / W;
  localparam integer BEATS_B = TN / W;
  localparam integer S_ROWS = (ST == 1) ? TK : TM;  // rows of the stationary tile
  localparam integer STREAM = (ST == 0) ? TK : (ST == 1) ? TM : TN;
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
  localparam [7:0]  STREAM_LAST = STREAM_LAST_I[7:0];
  localparam [7:0]  TM_LAST = TM_LAST_I[7:0];
  localparam [7:0]  TK_LAST = TK_LAST_I[7:0];
  localparam [1:0]  TAIL_LAST = TAIL_LAST_I[1:0];

  reg [3:0]  state;
  reg [15:0] c0, c1, c2;
  reg [15:0] la_m, la_k, lb_k, lb_n;
  reg        first, need_a, need_b;
  reg [7:0]  row, kk;
  reg [1:0]  tail;
  reg        yv_q;
  // Operand buffers (register files / SRAM): one A tile and one B tile, row-major.
  reg [7:0] buf_a [0:TM*TK-1];
  reg [7:0] buf_b [0:TK*TN-1];
  reg [TN*32-1:0] acc_row_q /*verilator public_flat_rd*/;
  reg [TN*8-1:0]  out_row_q /*verilator public_flat_rd*/;

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

  assign busy = (state != S_IDLE);
  assign done_pulse = (state == S_DONE);
  assign cmd_valid = (state == S_LDA_ISSUE) || (state == S_LDB_ISSUE) || (state == S_ST_ISSUE);
  assign cmd_write = (state == S_ST_ISSUE);
  assign cmd_beats = (state == S_LDA_ISSUE) ? BEATS_A[7:0] : BEATS_B[7:0];
  wire [31:0] a_row_addr = addr_a + ({16'd0, mt} * TM + {24'd0, row}) * stride_a + {16'd0, kt} * TK;
  wire [31:0] b_row_addr = addr_b + ({16'd0, kt} * TK + {24'd0, row}) * stride_b + {16'd0, nt} * TN;
  wire [31:0] c_row_addr = addr_c + ({16'd0, mt} * TM + {24'd0, row}) * stride_c + {16'd0, nt} * TN;
  assign cmd_addr = (state == S_LDA_ISSUE) ? a_row_addr : (state == S_LDB_ISSUE) ? b_row_addr : c_row_addr;
  wire need_a_now = first || (mt != la_m) || (kt != la_k);
  wire need_b_now = first || (kt != lb_k) || (nt != lb_n);
  wire [7:0] wr_beat_c = ({24'd0, wr_beat} < BEATS_B) ? wr_beat : 8'd0;
  assign wr_data = out_row_q[wr_beat_c*W*8 +: W*8];
  assign acw = yv_q;
  assign acw_first = (kt == 16'd0);
  assign ac_slot = slot_full[15:0];
  assign acw_data = y;
  assign rd_row = row;

  function [7:0] requant;
    input [31:0] acc;
    input [15:0] mult;
    input [4:0]  shift;
    reg   [63:0] p;
    reg   [63:0] r;
    begin
      p = {{32{acc[31]}}, acc} * {48'd0, mult};
      if (shift != 5'd0) p = p + (64'd1 << (shift - 5'd1));
      r = $signed(p) >>> shift;
      if ($signed(r) > 64'sd127) requant = 8'h7f;
      else if ($signed(r) < -64'sd128) requant = 8'h80;
      else requant = r[7:0];
    end
  endfunction

  // Operand vectors for stream step kk (x) and stationary/broadcast row kk (w).
  wire [XB*8-1:0] x_next;
  wire [WB*8-1:0] w_next;
  wire [TN*8-1:0] out_next;
  wire [7:0] kx = ({24'd0, kk} < X_ROWS) ? kk : 8'd0;
  wire [7:0] kw = ({24'd0, kk} < W_ROWS) ? kk : 8'd0;
  genvar g;
  generate
    if (ST == 0) begin : os_feed
      for (g = 0; g < TM; g = g + 1) begin : xa
        assign x_next[g*8 +: 8] = buf_a[g*TK + kx];
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        assign w_next[g*8 +: 8] = buf_b[kw*TN + g];
      end
    end else if (ST == 1) begin : ws_feed
      for (g = 0; g < TK; g = g + 1) begin : xa
        assign x_next[g*8 +: 8] = buf_a[kx*TK + g];
      end
      for (g = 0; g < TN; g = g + 1) begin : wb
        assign w_next[g*8 +: 8] = buf_b[kw*TN + g];
      end
    end else begin : is_feed
      for (g = 0; g < TK; g = g + 1) begin : xb
        assign x_next[g*8 +: 8] = buf_b[g*TN + kx];
      end
      for (g = 0; g < TK; g = g + 1) begin : wa
        assign w_next[g*8 +: 8] = buf_a[kw*TK + g];
      end
    end
    for (g = 0; g < TN; g = g + 1) begin : rq
      assign out_next[g*8 +: 8] = requant(acc_row_q[g*32 +: 32], req_mult, req_shift);
    end
  endgenerate

  // Buffer writes: one beat of W bytes per valid read beat.
  integer b;
  always @(posedge clk) begin
    if (rd_valid && state == S_LDA_WAIT)
      for (b = 0; b < W; b = b + 1) buf_a[row*TK + rd_beat*W + b] <= rd_data[b*8 +: 8];
    if (rd_valid && state == S_LDB_WAIT)
      for (b = 0; b < W; b = b + 1) buf_b[row*TN + rd_beat*W + b] <= rd_data[b*8 +: 8];
  end

  always @(posedge clk) begin
    if (!rst_n) begin
      state <= S_IDLE; cycles <= 32'd0; c0 <= 16'd0; c1 <= 16'd0; c2 <= 16'd0;
      la_m <= 16'd0; la_k <= 16'd0; lb_k <= 16'd0; lb_n <= 16'd0;
      first <= 1'b0; need_a <= 1'b0; need_b <= 1'b0; row <= 8'd0; kk <= 8'd0; tail <= 2'd0;
      x_q <= {XB*8{1'b0}}; w_q <= {WB*8{1'b0}}; v_q <= 1'b0; clr_q <= 1'b0; ld_q <= 1'b0;
      idx_q <= 8'd0; yv_q <= 1'b0; acw_idx <= 8'd0;
      acc_row_q <= {TN*32{1'b0}}; out_row_q <= {TN*8{1'b0}};
    end else begin
      if (state != S_IDLE) cycles <= cycles + 32'd1;
      yv_q <= v_q && (ST != 0);
      acw_idx <= idx_q;
      case (state)
        S_IDLE: if (start) begin
          cycles <= 32'd0; c0 <= 16'd0; c1 <= 16'd0; c2 <= 16'd0; first <= 1'b1;
          state <= S_TILE;
        end
        S_TILE: begin
          need_a <= need_a_now;
          need_b <= need_b_now;
          first <= 1'b0;
          row <= 8'd0;
          kk <= 8'd0;
          state <= need_a_now ? S_LDA_ISSUE : need_b_now ? S_LDB_ISSUE : S_COMP;
        end
        S_LDA_ISSUE: state <= S_LDA_WAIT;
        S_LDA_WAIT: if (cmd_done) begin
          la_m <= mt; la_k <= kt;
          if (row == TM_LAST) begin
            row <= 8'd0;
            // A was reloaded: an input-stationary array reloads its PEs.
            state <= need_b ? S_LDB_ISSUE : (ST == 2) ? S_LDS : S_COMP;
          end else begin
            row <= row + 8'd1;
            state <= S_LDA_ISSUE;
          end
        end
        S_LDB_ISSUE: state <= S_LDB_WAIT;
        S_LDB_WAIT: if (cmd_done) begin
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
          x_q <= x_next;
          if (ST == 0) w_q <= w_next;
          v_q <= 1'b1;
          ld_q <= 1'b0;
          clr_q <= (kt == 16'd0) && (kk == 8'd0);
          idx_q <= kk;
          tail <= 2'd0;
          if (kk == STREAM_LAST) begin kk <= 8'd0; state <= S_TAIL; end
          else kk <= kk + 8'd1;
        end
        S_TAIL: begin
          v_q <= 1'b0;
          clr_q <= 1'b0;
          tail <= tail + 2'd1;
          if (tail == TAIL_LAST) begin
            row <= 8'd0;
            state <= k_last ? S_ST_READ : S_NEXT;
          end
        end
        S_ST_READ: begin acc_row_q <= acc_rd_data; state <= S_ST_REQ; end
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
        default: state <= S_IDLE;  // S_DONE
      endcase
    end
  end
endmodule
