// DMA engine: one burst at a time between the controller's buffers and off-chip
// memory over an AXI4 master (INCR bursts, full-width beats, always-ready data
// channels on our side). FSM: IDLE -> AR -> R -> DONE for reads, IDLE -> AW -> W ->
// B -> DONE for writes; cmd_done is high for the DONE cycle.
module fsgen_dma #(
    parameter W = 8  // bytes per beat
) (
    input  wire           clk,
    input  wire           rst_n,
    input  wire           cmd_valid,
    input  wire           cmd_write,
    input  wire [31:0]    cmd_addr,
    input  wire [7:0]     cmd_beats,
    output wire           cmd_done,
    output wire           rd_valid,
    output wire [7:0]     rd_beat,
    output wire [W*8-1:0] rd_data,
    output wire [7:0]     wr_beat,
    input  wire [W*8-1:0] wr_data,
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
  localparam [2:0] S_IDLE = 3'd0, S_AR = 3'd1, S_R = 3'd2, S_AW = 3'd3, S_W = 3'd4, S_B = 3'd5, S_DONE = 3'd6;
  localparam [2:0] SIZE = (W == 1) ? 3'd0 : (W == 2) ? 3'd1 : (W == 4) ? 3'd2 : (W == 8) ? 3'd3 :
                          (W == 16) ? 3'd4 : (W == 32) ? 3'd5 : 3'd6;
  reg [2:0]     state;
  reg [31:0]    addr;
  reg [7:0]     beats;
  reg [7:0]     cnt;
  reg [W*8-1:0] wdata_q /*verilator public_flat_rd*/;

  assign cmd_done  = (state == S_DONE);
  assign m_araddr  = addr;
  assign m_arlen   = beats - 8'd1;
  assign m_arsize  = SIZE;
  assign m_arburst = 2'b01;
  assign m_arvalid = (state == S_AR);
  assign m_rready  = (state == S_R);
  assign rd_valid  = (state == S_R) && m_rvalid;
  assign rd_beat   = cnt;
  assign rd_data   = m_rdata;
  assign m_awaddr  = addr;
  assign m_awlen   = beats - 8'd1;
  assign m_awsize  = SIZE;
  assign m_awburst = 2'b01;
  assign m_awvalid = (state == S_AW);
  assign m_wdata   = wdata_q;
  assign m_wstrb   = {W{1'b1}};
  assign m_wlast   = (cnt == beats - 8'd1);
  assign m_wvalid  = (state == S_W);
  assign m_bready  = (state == S_B);
  // The beat whose data is loaded into wdata_q next: beat 0 in AW, then cnt + 1.
  assign wr_beat   = (state == S_AW) ? 8'd0 : cnt + 8'd1;

  always @(posedge clk) begin
    if (!rst_n) begin
      state <= S_IDLE; addr <= 32'd0; beats <= 8'd0; cnt <= 8'd0; wdata_q <= {W*8{1'b0}};
    end else begin
      case (state)
        S_IDLE: if (cmd_valid) begin
          addr <= cmd_addr; beats <= cmd_beats; cnt <= 8'd0;
          state <= cmd_write ? S_AW : S_AR;
        end
        S_AR: if (m_arready) state <= S_R;
        S_R: if (m_rvalid) begin
          cnt <= cnt + 8'd1;
          if (cnt == beats - 8'd1) state <= S_DONE;
        end
        S_AW: if (m_awready) begin
          wdata_q <= wr_data;
          state <= S_W;
        end
        S_W: if (m_wready) begin
          if (cnt == beats - 8'd1) state <= S_B;
          else begin
            cnt <= cnt + 8'd1;
            wdata_q <= wr_data;
          end
        end
        S_B: if (m_bvalid) state <= S_DONE;
        default: state <= S_IDLE;  // S_DONE
      endcase
    end
  end
endmodule
