// The DMA as its RTL (fsgen_dma) in a mixed-level run (fsgen simulate --rtl dma), in place of
// its timing model inside the platform's Dma (models/core_model.h).
//
// Two instances of the module run: one takes the controller's read commands, one its write
// commands. The module's read and write channels share no state, and the controller model
// offers each direction's commands in cycle order while it times loads and stores apart; so
// each instance is clocked cycle by cycle up to the cycle a command is offered in, and no
// further than the command needs: a read until it is taken (its AR, a register, is handed to
// the memory as soon as it shows), a write through its W beats (no command is taken meanwhile).
// Each instance's AXI4 master reaches the platform's memory through an AxiMasterBridge.
//
// The timing model (DmaReads, DmaWrites) runs beside them as the reference: a command taken, a
// read beat presented (rd_valid, rd_beat, rd_tag, rd_last, rd_data), the end of a write's W
// beats (w_free) or rd_idle / wr_idle in another cycle than the model's is the first mismatch.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/memory_timing.h"
#include "models/axi_bridge.h"
#include "models/rtl_ports.h"
#include "models/run_result.h"

namespace fsgen {

class DmaRtlModel {
 public:
  // transport: one burst to the memory in kernel cycles (AxiMasterBridge::Transport; a bus
  // error throws UserError, which ends the kernel as the model's does).
  DmaRtlModel(const RtlPortsMaker& make, MemoryTiming timing, uint32_t tag_bits, bool keep_events,
              AxiMasterBridge::Transport transport);
  ~DmaRtlModel();

  // A kernel begins: its cycle 0 is each instance's next cycle; both are idle.
  void begin_kernel();
  // As the timing model's: a command offered in kernel cycle `cycle`, the burst as the RTL
  // takes it (a read's data in dst on return).
  ReadBurst read(uint64_t cycle, uint32_t addr, uint32_t beats, uint8_t* dst);
  WriteBurst write(uint64_t cycle, uint32_t addr, uint32_t beats, const uint8_t* src);
  uint64_t reads_idle_from(uint64_t cycle) const;
  uint64_t writes_idle_from(uint64_t cycle) const;
  // Both instances clocked until their last beat and response are in.
  void end_kernel();
  std::vector<RtlBlockRun> runs();

 private:
  struct Channel;
  struct Burst {
    uint64_t taken, first, last;  // kernel cycles: taken, first and last data beat (a write: its W beats)
    uint64_t end;                 // a read's last beat, a write's response
    uint32_t tag;
    std::vector<uint8_t> data;  // a read's beats
  };
  void tick(Channel& ch);
  void clock_until(Channel& ch, uint64_t cycle);
  uint64_t offer(Channel& ch);
  void check_reads(Channel& ch, uint64_t cycle);
  void check_writes(Channel& ch, uint64_t cycle);
  void check_idle(Channel& ch, uint64_t cycle, uint32_t port, const char* name, const std::deque<Burst>& bursts);

  MemoryTiming timing_;
  uint32_t tag_mask_;
  AxiMasterBridge::Transport transport_;
  std::unique_ptr<Channel> reads_, writes_;
  // The reference: the timing model's takes and the memory's read data channel, as it books them.
  DmaReads model_reads_;
  DmaWrites model_writes_;
  ReadDataChannel model_channel_;
  std::deque<Burst> read_bursts_, write_bursts_;  // in flight, as the RTL took them
  uint32_t next_tag_ = 0;
  const uint8_t* write_src_ = nullptr;  // the write whose W beats are being clocked
  uint32_t write_beats_ = 0;
};

}  // namespace fsgen
