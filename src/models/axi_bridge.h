// Pin-level AXI bridges between a Verilated module and the platform's TLM-2.0 world.
//
// AxiMasterBridge: the AXI4 master of a Verilated module (its m_ar*, m_r*, m_aw*, m_w*, m_b* ports)
// bridged to the platform's TLM-2.0 memory (MemoryTarget), as the slave of the timing
// contract in core/memory_timing.h: always ready; a read burst becomes one transaction at its
// AR handshake, its beats presented back to back up to the cycle the target answers with; a
// write burst becomes one transaction once its last W beat is in, its B response valid in the
// cycle the target answers with.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "models/rtl_ports.h"

namespace fsgen {

class AxiMasterBridge {
 public:
  // One burst to the memory: `handshake` is its address handshake's cycle; returns false when
  // the memory refuses it (an address outside it), else true with `end`: the cycle of a read's
  // last beat or of a write's response.
  using Transport =
      std::function<bool(bool write, uint64_t handshake, uint64_t addr, uint8_t* data, uint32_t bytes, uint64_t& end)>;
  AxiMasterBridge(RtlPorts& rtl, uint32_t beat_bytes, Transport transport);

  // The slave's outputs in cycle `cycle`, set before the module settles.
  void drive(uint64_t cycle);
  // A read burst booked with the memory: its beats' cycles and data.
  struct BookedRead {
    uint64_t first_beat = 0, last_beat = 0;
    std::vector<uint8_t> data;
  };
  // The AR handshake of `cycle` taken now, before that cycle is clocked: for a master whose AR
  // is a register (fsgen_dma's), the coming cycle's address shows right after the clock edge.
  // sample(cycle) then does not take it again.
  BookedRead take_read_address(uint64_t cycle);
  // The cycle after the last read beat, or write response, booked (0 when none is to come).
  uint64_t reads_done_from() const { return reads_.empty() ? 0 : reads_.back().cycle + 1; }
  uint64_t writes_done_from() const { return responses_.empty() ? 0 : responses_.back() + 1; }
  // The cycle's handshakes, observed after the module settled and before the clock edge.
  void sample(uint64_t cycle);
  // No read beat or write response to come and no write burst between its AW and its last W.
  bool idle() const { return reads_.empty() && responses_.empty() && !write_open_; }
  bool write_open() const { return write_open_; }
  // The first burst the memory refused, named by direction and address ("" when none).
  const std::string& error() const { return error_; }

 private:
  struct Beat {
    uint64_t cycle;
    std::vector<uint8_t> data;
    bool last;
  };
  struct Pins {
    uint32_t araddr, arlen, arvalid, arready, rdata, rresp, rlast, rvalid, rready;
    uint32_t awaddr, awlen, awvalid, awready, wdata, wlast, wvalid, wready, bresp, bvalid, bready;
  };
  static Pins find_pins(const RtlPorts& rtl, uint32_t beat_bytes);
  BookedRead take_read(uint64_t cycle);
  void take_write_beat(uint64_t cycle);
  void refuse(bool write, uint64_t addr, uint32_t bytes);

  RtlPorts& rtl_;
  uint32_t beat_bytes_;
  Transport transport_;
  Pins pin_;
  std::deque<Beat> reads_;
  std::vector<uint8_t> last_rdata_;  // the read data lines hold the last beat between beats
  std::deque<uint64_t> responses_;   // the cycles of the write responses to come
  uint64_t ar_taken_cycle_ = UINT64_MAX;  // an AR handshake taken ahead of its cycle
  bool write_open_ = false;
  uint64_t aw_cycle_ = 0, aw_addr_ = 0;
  std::vector<uint8_t> write_data_;
  std::string error_;
};

// AxiLiteBridge: the host's register accesses (one at a time) driven onto a module's AXI4-Lite
// slave pins (s_*): a write's AW and W together until the slave takes them, then its B
// response; a read's AR until taken, then its R data. bready and rready stay high.
class AxiLiteBridge {
 public:
  explicit AxiLiteBridge(RtlPorts& rtl);
  // Offsets at or beyond this are not the slave's (s_awaddr's width): the interconnect's DECERR.
  uint64_t address_space() const { return uint64_t{1} << address_bits_; }

  void begin(bool write, uint32_t offset, uint32_t value);
  bool busy() const { return state_ != State::kIdle; }
  void drive();
  // After the module settled: true when the access ended this cycle with its response
  // (AXI: 0 OKAY, 2 SLVERR, 3 DECERR) and, for a read, its data; `taken`: its address handshake.
  bool sample(uint64_t cycle);
  uint32_t response() const { return response_; }
  uint32_t data() const { return data_; }
  uint32_t value() const { return value_; }  // a write's
  bool write() const { return write_; }
  uint32_t offset() const { return offset_; }
  uint64_t taken() const { return taken_; }

 private:
  enum class State { kIdle, kAddress, kResponse };
  RtlPorts& rtl_;
  uint32_t awaddr_, awvalid_, awready_, wdata_, wvalid_, wready_, bresp_, bvalid_, bready_;
  uint32_t araddr_, arvalid_, arready_, rdata_, rresp_, rvalid_, rready_;
  uint32_t address_bits_;
  State state_ = State::kIdle;
  bool write_ = false, aw_taken_ = false, w_taken_ = false;
  uint32_t offset_ = 0, value_ = 0, response_ = 0, data_ = 0;
  uint64_t taken_ = 0;
};

}  // namespace fsgen
