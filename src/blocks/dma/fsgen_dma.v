// DMA engine between the controller's buffers and off-chip memory over an AXI4 master
// (INCR bursts, full-width beats), with its read and write channels working at once.
// The timing contract is src/core/memory_timing.h's.
//  - Commands: a read port (rcmd_*) and a write port (wcmd_*), each taking a burst in a
//    cycle with its valid and ready (ready is combinational on the DMA's registers only).
//  - Reads: up to OUT bursts in flight. A read taken in cycle c is on AR in c + 1 (the
//    address register takes a new burst every cycle the slave is ready); its beats come
//    back in command order, each presented as rd_valid with the burst's rd_tag (the
//    caller's, TAGW bits: where the beat goes) and rd_beat, rd_last on a burst's last beat.
//    A burst leaves the count in the cycle of its last beat; rd_idle is high from the cycle
//    after the last beat of the last burst in flight.
//  - Writes: one burst's data at a time, up to OUT responses outstanding. A write taken in
//    c is on AW in c + 1 and its W beats follow the AW handshake back to back, beat i's data
//    read from wr_data while wr_beat = i; w_free is high again from the cycle after the last
//    W beat (the caller's data register is free), wr_idle when every B response has come.
module fsgen_dma #(
    parameter W = 8,   // bytes per beat
    parameter OUT = 8,  // read bursts in flight, write responses outstanding (1..16)
    parameter TAGW = 8  // bits of a read burst's tag
) (
    input  wire           clk,
    input  wire           rst_n,
    input  wire            rcmd_valid,
    input  wire [31:0]     rcmd_addr,
    input  wire [7:0]      rcmd_beats,
    input  wire [TAGW-1:0] rcmd_tag,
    output wire            rcmd_ready,
    input  wire            wcmd_valid,
    input  wire [31:0]     wcmd_addr,
    input  wire [7:0]      wcmd_beats,
    output wire            wcmd_ready,
    output wire            rd_valid,
    output wire [7:0]      rd_beat,
    output wire [TAGW-1:0] rd_tag,
    output wire            rd_last,
    output wire [W*8-1:0] rd_data,
    output wire           rd_idle,
    output wire [7:0]     wr_beat,
    input  wire [W*8-1:0] wr_data,
    output wire           w_free,
    output wire           wr_idle,
    output wire [31:0]    m_araddr,
    output wire [7:0]     m_arlen,
    output wire [2:0]     m_arsize,
    output wire [1:0]     m_arburst,
    output wire           m_arvalid,
    input  wire           m_arready,
    input  wire [W*8-1:0] m_rdata,
    /* verilator lint_off UNUSEDSIGNAL */  // responses are always OKAY; the beat count ends a burst
    input  wire [1:0]     m_rresp,
    input  wire           m_rlast,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire           m_rvalid,
    output wire           m_rready,
    output wire [31:0]    m_awaddr,
    output wire [7:0]     m_awlen,
    output wire [2:0]     m_awsize,
    output wire [1:0]     m_awburst,
    output wire           m_awvalid,
    input  wire           m_awready,
    output wire [W*8-1:0] m_wdata,
    output wire [W-1:0]   m_wstrb,
    output wire           m_wlast,
    output wire           m_wvalid,
    input  wire           m_wready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [1:0]     m_bresp,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire           m_bvalid,
    output wire           m_bready
);
  localparam [2:0] SIZE = (W == 1) ? 3'd0 : (W == 2) ? 3'd1 : (W == 4) ? 3'd2 : (W == 8) ? 3'd3 :
                          (W == 16) ? 3'd4 : (W == 32) ? 3'd5 : 3'd6;
  localparam QB = (OUT > 8) ? 4 : (OUT > 4) ? 3 : (OUT > 2) ? 2 : 1;  // queue index bits
  localparam [4:0] OUT5 = OUT[4:0];
  localparam [QB-1:0] Q_LAST = OUT5[QB-1:0] - 1'b1;  // the queue's last index

  // ---- read channel: the address register, the queue of bursts in flight (tag, beats)
  reg  [31:0]   ar_addr;
  reg  [7:0]    ar_len;
  reg           ar_valid;
  reg  [TAGW-1:0] q_tag [0:OUT-1];
  reg  [7:0]    q_last [0:OUT-1];  // a burst's last beat index (beats - 1)
  reg  [QB-1:0] q_head, q_tail;
  // The head burst's tag and last beat in registers of their own (the queue's entry at
  // q_head while a burst is in flight): a beat's end-of-burst test and rd_tag then start at
  // flip-flops, not at a multiplexer behind q_head.
  reg  [TAGW-1:0] h_tag;
  reg  [7:0]    h_last;
  reg  [4:0]    rd_count;  // bursts taken whose last beat has not come
  reg  [7:0]    rd_cnt;    // beats of the head burst come so far
  wire          rd_take = rcmd_valid && rcmd_ready;
  wire          rd_beat_in = m_rvalid && rd_count != 5'd0;
  wire          rd_burst_end = rd_beat_in && rd_cnt == h_last;
  wire [QB-1:0] q_next = (q_head == Q_LAST) ? {QB{1'b0}} : q_head + 1'b1;
  // No burst left in flight once this cycle's last beat ends its burst (a burst taken now
  // then becomes the head at once).
  wire          q_drains = rd_count == {4'd0, rd_burst_end};
  wire          ar_free = !ar_valid || m_arready;

  // ---- write channel: one burst's address and data, the count of B responses to come
  localparam [1:0] W_IDLE = 2'd0, W_AW = 2'd1, W_DATA = 2'd2;
  reg  [1:0]     w_state;
  reg  [31:0]    aw_addr;
  reg  [7:0]     aw_len;
  reg  [7:0]     w_cnt;
  reg  [4:0]     b_count;
  reg  [W*8-1:0] wdata_q /*verilator public_flat_rd*/;
  wire           wr_take = wcmd_valid && wcmd_ready;
  wire           w_last_beat = w_state == W_DATA && m_wready && w_cnt == aw_len;

  assign rcmd_ready = ar_free && rd_count < OUT5;
  assign wcmd_ready = w_state == W_IDLE && b_count < OUT5;
  assign rd_valid  = rd_beat_in;
  assign rd_last   = rd_burst_end;
  assign rd_beat   = rd_cnt;
  assign rd_tag    = h_tag;
  assign rd_data   = m_rdata;
  assign rd_idle   = rd_count == 5'd0;
  assign m_araddr  = ar_addr;
  assign m_arlen   = ar_len;
  assign m_arsize  = SIZE;
  assign m_arburst = 2'b01;
  assign m_arvalid = ar_valid;
  assign m_rready  = 1'b1;
  assign m_awaddr  = aw_addr;
  assign m_awlen   = aw_len;
  assign m_awsize  = SIZE;
  assign m_awburst = 2'b01;
  assign m_awvalid = w_state == W_AW;
  assign m_wdata   = wdata_q;
  assign m_wstrb   = {W{1'b1}};
  assign m_wlast   = w_cnt == aw_len;
  assign m_wvalid  = w_state == W_DATA;
  assign m_bready  = 1'b1;
  assign w_free    = w_state == W_IDLE;
  assign wr_idle   = w_state == W_IDLE && b_count == 5'd0;
  // The beat whose data is loaded into wdata_q next: beat 0 in AW, then w_cnt + 1.
  assign wr_beat   = (w_state == W_AW) ? 8'd0 : w_cnt + 8'd1;

  integer i;
  always @(posedge clk) begin
    if (!rst_n) begin
      ar_addr <= 32'd0; ar_len <= 8'd0; ar_valid <= 1'b0; q_head <= {QB{1'b0}}; q_tail <= {QB{1'b0}};
      rd_count <= 5'd0; rd_cnt <= 8'd0;
      for (i = 0; i < OUT; i = i + 1) begin q_tag[i] <= {TAGW{1'b0}}; q_last[i] <= 8'd0; end
      h_tag <= {TAGW{1'b0}}; h_last <= 8'd0;
    end else begin
      if (m_arready) ar_valid <= 1'b0;
      if (rd_take) begin
        ar_addr <= rcmd_addr; ar_len <= rcmd_beats - 8'd1; ar_valid <= 1'b1;
        q_tag[q_tail] <= rcmd_tag; q_last[q_tail] <= rcmd_beats - 8'd1;
        q_tail <= (q_tail == Q_LAST) ? {QB{1'b0}} : q_tail + 1'b1;
      end
      if (rd_beat_in) rd_cnt <= rd_burst_end ? 8'd0 : rd_cnt + 8'd1;
      if (rd_burst_end) q_head <= q_next;
      if (rd_take && q_drains) begin h_tag <= rcmd_tag; h_last <= rcmd_beats - 8'd1; end
      else if (rd_burst_end) begin h_tag <= q_tag[q_next]; h_last <= q_last[q_next]; end
      rd_count <= rd_count + {4'd0, rd_take} - {4'd0, rd_burst_end};
    end
  end

  always @(posedge clk) begin
    if (!rst_n) begin
      w_state <= W_IDLE; aw_addr <= 32'd0; aw_len <= 8'd0; w_cnt <= 8'd0; b_count <= 5'd0;
      wdata_q <= {W*8{1'b0}};
    end else begin
      case (w_state)
        W_IDLE: if (wr_take) begin
          aw_addr <= wcmd_addr; aw_len <= wcmd_beats - 8'd1; w_cnt <= 8'd0; w_state <= W_AW;
        end
        W_AW: if (m_awready) begin
          wdata_q <= wr_data;
          w_state <= W_DATA;
        end
        default: if (m_wready) begin  // W_DATA
          if (w_last_beat) w_state <= W_IDLE;
          else begin
            w_cnt <= w_cnt + 8'd1;
            wdata_q <= wr_data;
          end
        end
      endcase
      b_count <= b_count + {4'd0, w_last_beat} - {4'd0, m_bvalid && b_count != 5'd0};
    end
  end
endmodule
