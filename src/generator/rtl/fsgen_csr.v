// AXI4-Lite register file of the fused core. Register offsets: src/core/regmap.h.
// Write: address and data are taken together in one cycle when both are valid;
// the response follows in the next cycle. Read: data follows the address by one cycle.
`include "fsgen_regs.vh"
module fsgen_csr (
    input  wire        clk,
    input  wire        rst_n,
    input  wire [7:0]  s_awaddr,
    input  wire        s_awvalid,
    output wire        s_awready,
    input  wire [31:0] s_wdata,
    input  wire        s_wvalid,
    output wire        s_wready,
    output wire [1:0]  s_bresp,
    output reg         s_bvalid,
    input  wire        s_bready,
    input  wire [7:0]  s_araddr,
    input  wire        s_arvalid,
    output wire        s_arready,
    output reg  [31:0] s_rdata,
    output wire [1:0]  s_rresp,
    output reg         s_rvalid,
    input  wire        s_rready,
    // to the controller
    output reg         start,
    output reg  [31:0] kernel,
    output reg  [15:0] tiles_m,
    output reg  [15:0] tiles_n,
    output reg  [15:0] tiles_k,
    output reg  [31:0] addr_a,
    output reg  [31:0] addr_b,
    output reg  [31:0] addr_c,
    output reg  [31:0] stride_a,
    output reg  [31:0] stride_b,
    output reg  [31:0] stride_c,
    output reg  [15:0] req_mult,
    output reg  [4:0]  req_shift,
    output reg  [31:0] addr_v,
    output reg  [31:0] addr_x,
    output reg  [15:0] len_q,
    output reg  [15:0] len_kv,
    output reg  [15:0] heads,
    output reg  [15:0] group,
    output reg  [15:0] q_pos0,
    output reg  [2:0]  attn_flags,
    output reg  [15:0] score_mult,
    output reg  [4:0]  score_shift,
    output reg  [31:0] head_stride_q,
    output reg  [31:0] head_stride_kv,
    output reg  [31:0] addr_lut,
    output reg  [31:0] addr_w3,
    output reg  [15:0] gate_mult,
    output reg  [4:0]  gate_shift,
    output reg  [15:0] hid_mult,
    output reg  [4:0]  hid_shift,
    input  wire        busy,
    input  wire        done_pulse,
    input  wire [31:0] cycles,
    output wire        irq
);
  reg done_sticky;
  wire wr_fire = s_awvalid && s_wvalid && !s_bvalid;
  wire rd_fire = s_arvalid && !s_rvalid;
  assign s_awready = wr_fire;
  assign s_wready  = wr_fire;
  assign s_arready = rd_fire;
  assign s_bresp = 2'b00;
  assign s_rresp = 2'b00;
  assign irq = done_sticky;

  always @(posedge clk) begin
    if (!rst_n) begin
      s_bvalid <= 1'b0; s_rvalid <= 1'b0; s_rdata <= 32'd0; start <= 1'b0; done_sticky <= 1'b0;
      kernel <= 32'd0; tiles_m <= 16'd0; tiles_n <= 16'd0; tiles_k <= 16'd0;
      addr_a <= 32'd0; addr_b <= 32'd0; addr_c <= 32'd0;
      stride_a <= 32'd0; stride_b <= 32'd0; stride_c <= 32'd0; req_mult <= 16'd0; req_shift <= 5'd0;
      addr_v <= 32'd0; addr_x <= 32'd0; len_q <= 16'd0; len_kv <= 16'd0; heads <= 16'd0; group <= 16'd0;
      q_pos0 <= 16'd0; attn_flags <= 3'd0; score_mult <= 16'd0; score_shift <= 5'd0;
      head_stride_q <= 32'd0; head_stride_kv <= 32'd0;
      addr_lut <= 32'd0; addr_w3 <= 32'd0; gate_mult <= 16'd0; gate_shift <= 5'd0; hid_mult <= 16'd0; hid_shift <= 5'd0;
    end else begin
      start <= 1'b0;
      if (s_bvalid && s_bready) s_bvalid <= 1'b0;
      if (s_rvalid && s_rready) s_rvalid <= 1'b0;
      if (done_pulse) done_sticky <= 1'b1;
      if (wr_fire) begin
        s_bvalid <= 1'b1;
        case (s_awaddr)
          `FSGEN_REG_CTRL:      if (s_wdata[0] && !busy) begin start <= 1'b1; done_sticky <= 1'b0; end
          `FSGEN_REG_KERNEL:    kernel <= s_wdata;
          `FSGEN_REG_TILES_M:   tiles_m <= s_wdata[15:0];
          `FSGEN_REG_TILES_N:   tiles_n <= s_wdata[15:0];
          `FSGEN_REG_TILES_K:   tiles_k <= s_wdata[15:0];
          `FSGEN_REG_ADDR_A:    addr_a <= s_wdata;
          `FSGEN_REG_ADDR_B:    addr_b <= s_wdata;
          `FSGEN_REG_ADDR_C:    addr_c <= s_wdata;
          `FSGEN_REG_STRIDE_A:  stride_a <= s_wdata;
          `FSGEN_REG_STRIDE_B:  stride_b <= s_wdata;
          `FSGEN_REG_STRIDE_C:  stride_c <= s_wdata;
          `FSGEN_REG_REQ_MULT:  req_mult <= s_wdata[15:0];
          `FSGEN_REG_REQ_SHIFT: req_shift <= s_wdata[4:0];
          `FSGEN_REG_ADDR_V:    addr_v <= s_wdata;
          `FSGEN_REG_ADDR_X:    addr_x <= s_wdata;
          `FSGEN_REG_LEN_Q:     len_q <= s_wdata[15:0];
          `FSGEN_REG_LEN_KV:    len_kv <= s_wdata[15:0];
          `FSGEN_REG_HEADS:     heads <= s_wdata[15:0];
          `FSGEN_REG_GROUP:     group <= s_wdata[15:0];
          `FSGEN_REG_Q_POS0:    q_pos0 <= s_wdata[15:0];
          `FSGEN_REG_ATTN_FLAGS: attn_flags <= s_wdata[2:0];
          `FSGEN_REG_SCORE_MULT: score_mult <= s_wdata[15:0];
          `FSGEN_REG_SCORE_SHIFT: score_shift <= s_wdata[4:0];
          `FSGEN_REG_HEAD_STRIDE_Q: head_stride_q <= s_wdata;
          `FSGEN_REG_HEAD_STRIDE_KV: head_stride_kv <= s_wdata;
          `FSGEN_REG_ADDR_LUT:  addr_lut <= s_wdata;
          `FSGEN_REG_ADDR_W3:   addr_w3 <= s_wdata;
          `FSGEN_REG_GATE_MULT: gate_mult <= s_wdata[15:0];
          `FSGEN_REG_GATE_SHIFT: gate_shift <= s_wdata[4:0];
          `FSGEN_REG_HID_MULT:  hid_mult <= s_wdata[15:0];
          `FSGEN_REG_HID_SHIFT: hid_shift <= s_wdata[4:0];
          default: ;
        endcase
      end
      if (rd_fire) begin
        s_rvalid <= 1'b1;
        case (s_araddr)
          `FSGEN_REG_STATUS:    s_rdata <= {30'd0, done_sticky, busy};
          `FSGEN_REG_KERNEL:    s_rdata <= kernel;
          `FSGEN_REG_TILES_M:   s_rdata <= {16'd0, tiles_m};
          `FSGEN_REG_TILES_N:   s_rdata <= {16'd0, tiles_n};
          `FSGEN_REG_TILES_K:   s_rdata <= {16'd0, tiles_k};
          `FSGEN_REG_ADDR_A:    s_rdata <= addr_a;
          `FSGEN_REG_ADDR_B:    s_rdata <= addr_b;
          `FSGEN_REG_ADDR_C:    s_rdata <= addr_c;
          `FSGEN_REG_STRIDE_A:  s_rdata <= stride_a;
          `FSGEN_REG_STRIDE_B:  s_rdata <= stride_b;
          `FSGEN_REG_STRIDE_C:  s_rdata <= stride_c;
          `FSGEN_REG_REQ_MULT:  s_rdata <= {16'd0, req_mult};
          `FSGEN_REG_REQ_SHIFT: s_rdata <= {27'd0, req_shift};
          `FSGEN_REG_CYCLES:    s_rdata <= cycles;
          `FSGEN_REG_ADDR_V:    s_rdata <= addr_v;
          `FSGEN_REG_ADDR_X:    s_rdata <= addr_x;
          `FSGEN_REG_LEN_Q:     s_rdata <= {16'd0, len_q};
          `FSGEN_REG_LEN_KV:    s_rdata <= {16'd0, len_kv};
          `FSGEN_REG_HEADS:     s_rdata <= {16'd0, heads};
          `FSGEN_REG_GROUP:     s_rdata <= {16'd0, group};
          `FSGEN_REG_Q_POS0:    s_rdata <= {16'd0, q_pos0};
          `FSGEN_REG_ATTN_FLAGS: s_rdata <= {29'd0, attn_flags};
          `FSGEN_REG_SCORE_MULT: s_rdata <= {16'd0, score_mult};
          `FSGEN_REG_SCORE_SHIFT: s_rdata <= {27'd0, score_shift};
          `FSGEN_REG_HEAD_STRIDE_Q: s_rdata <= head_stride_q;
          `FSGEN_REG_HEAD_STRIDE_KV: s_rdata <= head_stride_kv;
          `FSGEN_REG_ADDR_LUT:  s_rdata <= addr_lut;
          `FSGEN_REG_ADDR_W3:   s_rdata <= addr_w3;
          `FSGEN_REG_GATE_MULT: s_rdata <= {16'd0, gate_mult};
          `FSGEN_REG_GATE_SHIFT: s_rdata <= {27'd0, gate_shift};
          `FSGEN_REG_HID_MULT:  s_rdata <= {16'd0, hid_mult};
          `FSGEN_REG_HID_SHIFT: s_rdata <= {27'd0, hid_shift};
          default:              s_rdata <= 32'd0;
        endcase
      end
    end
  end
endmodule
