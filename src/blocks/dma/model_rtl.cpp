#include "blocks/dma/model_rtl.h"

#include <cstring>

#include "core/error.h"

namespace fsgen {

namespace {
constexpr uint32_t kResetCycles = 2;
}

// One instance of fsgen_dma with its AXI4 master on the memory; cycles counted from its first
// clocked cycle, kernel cycle 0 at `base`.
struct DmaRtlModel::Channel {
  Channel(const RtlPortsMaker& make, uint32_t beat_bytes, bool keep_events, bool reads,
          const AxiMasterBridge::Transport& transport)
      : rtl(make()),
        monitor("dma", *rtl, keep_events, {reads ? "rdata" : "wdata"}, reads ? "read channel" : "write channel"),
        axi(*rtl, beat_bytes,
            [this, &transport](bool write, uint64_t handshake, uint64_t addr, uint8_t* data, uint32_t bytes,
                               uint64_t& end) {
              uint64_t kernel_end = 0;
              const bool ok = transport(write, handshake - base, addr, data, bytes, kernel_end);
              end = kernel_end + base;
              return ok;
            }) {
    auto pin = [&](const char* name, uint32_t bits) {
      return port_of_width(*rtl, name, bits, std::string("the DMA's ") + name);
    };
    rcmd_valid = pin("rcmd_valid", 1), rcmd_addr = pin("rcmd_addr", 32), rcmd_beats = pin("rcmd_beats", 8);
    rcmd_tag = pin("rcmd_tag", 0), rcmd_ready = pin("rcmd_ready", 1), rd_valid = pin("rd_valid", 1);
    rd_beat = pin("rd_beat", 8), rd_tag = pin("rd_tag", 0), rd_last = pin("rd_last", 1);
    rd_data = pin("rd_data", beat_bytes * 8), rd_idle = pin("rd_idle", 1);
    wcmd_valid = pin("wcmd_valid", 1), wcmd_addr = pin("wcmd_addr", 32), wcmd_beats = pin("wcmd_beats", 8);
    wcmd_ready = pin("wcmd_ready", 1), wr_beat = pin("wr_beat", 8), wr_data = pin("wr_data", beat_bytes * 8);
    w_free = pin("w_free", 1), wr_idle = pin("wr_idle", 1);
    // The model's probes of the DMA, its AXI4 data lines: each channel's own.
    if (reads)
      monitor.probe_as("m_rdata", "rdata", 0);
    else
      monitor.probe_as("m_wdata", "wdata", 0);
    beat.assign(beat_bytes + 8, 0);
    axi.drive(0);
    rtl->reset(kResetCycles);
  }
  std::unique_ptr<RtlPorts> rtl;
  RtlBlockMonitor monitor;
  AxiMasterBridge axi;
  uint64_t cycle = 0, base = 0;  // the next cycle to clock; kernel cycle 0's
  bool ready = false;            // the command port's ready in the cycle last clocked
  std::vector<uint8_t> beat;     // rd_data as read
  uint32_t rcmd_valid, rcmd_addr, rcmd_beats, rcmd_tag, rcmd_ready, rd_valid, rd_beat, rd_tag, rd_last, rd_data,
      rd_idle, wcmd_valid, wcmd_addr, wcmd_beats, wcmd_ready, wr_beat, wr_data, w_free, wr_idle;
};

DmaRtlModel::DmaRtlModel(const RtlPortsMaker& make, MemoryTiming timing, uint32_t tag_bits, bool keep_events,
                         AxiMasterBridge::Transport transport)
    : timing_(timing),
      tag_mask_(tag_bits >= 32 ? ~0u : (1u << tag_bits) - 1),
      transport_(std::move(transport)),
      reads_(std::make_unique<Channel>(make, timing.beat_bytes, keep_events, true, transport_)),
      writes_(std::make_unique<Channel>(make, timing.beat_bytes, keep_events, false, transport_)),
      model_reads_(timing),
      model_writes_(timing),
      model_channel_(timing) {}

DmaRtlModel::~DmaRtlModel() = default;

void DmaRtlModel::begin_kernel() {
  for (Channel* ch : {reads_.get(), writes_.get()}) ch->base = ch->cycle;
  model_reads_ = DmaReads(timing_);
  model_writes_ = DmaWrites(timing_);
  model_channel_ = ReadDataChannel(timing_);
  read_bursts_.clear();
  write_bursts_.clear();
}

void DmaRtlModel::tick(Channel& ch) {
  const uint64_t k = ch.cycle - ch.base;
  const bool reads = &ch == reads_.get();
  ch.axi.drive(ch.cycle);
  ch.rtl->eval();
  if (!reads && write_src_) {  // the data register loads the beat wr_beat names
    const uint64_t beat = ch.rtl->value(ch.wr_beat);
    if (beat < write_beats_) ch.rtl->set_bytes(ch.wr_data, write_src_ + beat * timing_.beat_bytes);
    ch.rtl->eval();
  }
  ch.ready = ch.rtl->value(reads ? ch.rcmd_ready : ch.wcmd_ready);
  ch.monitor.sample(k);
  if (reads)
    check_reads(ch, k);
  else
    check_writes(ch, k);
  ch.axi.sample(ch.cycle);
  ch.rtl->clock();
  ch.monitor.clocked(1);
  ++ch.cycle;
}

void DmaRtlModel::clock_until(Channel& ch, uint64_t cycle) {
  while (ch.cycle - ch.base < cycle) tick(ch);
}

// The command set on the channel's inputs is offered until taken; returns the cycle.
uint64_t DmaRtlModel::offer(Channel& ch) {
  for (;;) {
    const uint64_t k = ch.cycle - ch.base;
    tick(ch);
    if (ch.ready) return k;
  }
}

// rd_idle is high from the cycle after a burst's last beat when no other is in flight, and low
// from the cycle after a command is taken.
void DmaRtlModel::check_idle(Channel& ch, uint64_t cycle, uint32_t port, const char* name,
                             const std::deque<Burst>& bursts) {
  bool busy = false;
  for (const Burst& b : bursts) busy |= b.taken < cycle && cycle <= b.end;
  const bool idle = ch.rtl->value(port);
  if (idle == busy) ch.monitor.mismatch(cycle, name, "no burst in flight", idle, !busy);
}

void DmaRtlModel::check_reads(Channel& ch, uint64_t cycle) {
  while (!read_bursts_.empty() && read_bursts_.front().end + 1 < cycle) read_bursts_.pop_front();
  check_idle(ch, cycle, ch.rd_idle, "rd_idle", read_bursts_);
  const Burst* beat_of = nullptr;
  for (const Burst& b : read_bursts_)
    if (b.first <= cycle && cycle <= b.last) beat_of = &b;
  const bool valid = ch.rtl->value(ch.rd_valid);
  if (valid != bool(beat_of)) return ch.monitor.mismatch(cycle, "rd_valid", "a read beat", valid, bool(beat_of));
  if (!beat_of) return;
  const uint64_t beat = cycle - beat_of->first;
  const uint64_t rtl_beat = ch.rtl->value(ch.rd_beat), tag = ch.rtl->value(ch.rd_tag), last = ch.rtl->value(ch.rd_last);
  if (rtl_beat != beat)
    return ch.monitor.mismatch(cycle, "rd_beat", "the burst's beat", int64_t(rtl_beat), int64_t(beat));
  if (tag != beat_of->tag) return ch.monitor.mismatch(cycle, "rd_tag", "the burst's tag", int64_t(tag), beat_of->tag);
  if (last != (cycle == beat_of->last))
    return ch.monitor.mismatch(cycle, "rd_last", "its last beat", last, cycle == beat_of->last);
  std::vector<uint8_t>& data = ch.beat;
  ch.rtl->get(ch.rd_data, data.data());
  if (std::memcmp(data.data(), beat_of->data.data() + beat * timing_.beat_bytes, timing_.beat_bytes) != 0)
    ch.monitor.mismatch(cycle, "rd_data", "beat " + std::to_string(beat) + "'s first byte", data[0],
                        beat_of->data[beat * timing_.beat_bytes]);
}

void DmaRtlModel::check_writes(Channel& ch, uint64_t cycle) {
  while (!write_bursts_.empty() && write_bursts_.front().end != UINT64_MAX && write_bursts_.front().end + 1 < cycle)
    write_bursts_.pop_front();
  check_idle(ch, cycle, ch.wr_idle, "wr_idle", write_bursts_);
  bool w_busy = false;  // from the cycle after the take through the last W beat
  for (const Burst& b : write_bursts_) w_busy |= b.taken < cycle && cycle <= b.last;
  const bool free = ch.rtl->value(ch.w_free);
  if (free == w_busy) ch.monitor.mismatch(cycle, "w_free", "the data register free", free, !w_busy);
}

ReadBurst DmaRtlModel::read(uint64_t cycle, uint32_t addr, uint32_t beats, uint8_t* dst) {
  Channel& ch = *reads_;
  clock_until(ch, cycle);
  const uint32_t tag = next_tag_++ & tag_mask_;
  ch.rtl->set(ch.rcmd_valid, 1);
  ch.rtl->set(ch.rcmd_addr, addr);
  ch.rtl->set(ch.rcmd_beats, beats);
  ch.rtl->set(ch.rcmd_tag, tag);
  const uint64_t taken = offer(ch);
  ch.rtl->set(ch.rcmd_valid, 0);
  // The burst's AR shows from the take's clock edge on (the module's address register).
  AxiMasterBridge::BookedRead booked = ch.axi.take_read_address(ch.cycle);
  if (booked.data.size() != size_t(beats) * timing_.beat_bytes)
    fail(ch.rtl->source(), "the read burst on AR has " + std::to_string(booked.data.size() / timing_.beat_bytes) +
                               " beats; the command asked " + std::to_string(beats));
  std::memcpy(dst, booked.data.data(), booked.data.size());
  Burst b{taken, booked.first_beat - ch.base, booked.last_beat - ch.base, booked.last_beat - ch.base,
          tag,   std::move(booked.data)};
  const ReadBurst model = model_reads_.take(cycle, beats, model_channel_);
  if (model.taken != b.taken)
    ch.monitor.mismatch(taken, "rcmd_ready", "the read command taken", int64_t(b.taken), int64_t(model.taken));
  else if (model.first_beat != b.first)
    ch.monitor.mismatch(taken, "m_arvalid", "its first beat's cycle", int64_t(b.first), int64_t(model.first_beat));
  const ReadBurst answer{b.taken, b.first, b.last};
  read_bursts_.push_back(std::move(b));
  return answer;
}

WriteBurst DmaRtlModel::write(uint64_t cycle, uint32_t addr, uint32_t beats, const uint8_t* src) {
  Channel& ch = *writes_;
  clock_until(ch, cycle);
  ch.rtl->set(ch.wcmd_valid, 1);
  ch.rtl->set(ch.wcmd_addr, addr);
  ch.rtl->set(ch.wcmd_beats, beats);
  const uint64_t taken = offer(ch);
  ch.rtl->set(ch.wcmd_valid, 0);
  write_bursts_.push_back({taken, taken + 2, UINT64_MAX, UINT64_MAX, 0, {}});
  // Its AW and W beats; w_free (the module's state) shows after each edge whether the next
  // cycle is free, which is not clocked here: a next write may be offered in it.
  write_src_ = src, write_beats_ = beats;
  do tick(ch);
  while (!ch.rtl->value(ch.w_free));
  write_src_ = nullptr;
  Burst& b = write_bursts_.back();
  b.last = ch.cycle - ch.base - 1;
  b.end = ch.axi.writes_done_from() - 1 - ch.base;
  const WriteBurst model = model_writes_.take(cycle, beats);
  if (model.taken != b.taken)
    ch.monitor.mismatch(taken, "wcmd_ready", "the write command taken", int64_t(b.taken), int64_t(model.taken));
  else if (model.last_beat != b.last)
    ch.monitor.mismatch(b.last, "m_wlast", "the last W beat's cycle", int64_t(b.last), int64_t(model.last_beat));
  else if (model.response != b.end)
    ch.monitor.mismatch(b.end, "m_bvalid", "the response's cycle", int64_t(b.end), int64_t(model.response));
  return {b.taken, b.last, b.end};
}

uint64_t DmaRtlModel::reads_idle_from(uint64_t cycle) const {
  return read_bursts_.empty() ? cycle : std::max(cycle, read_bursts_.back().end + 1);
}

uint64_t DmaRtlModel::writes_idle_from(uint64_t cycle) const {
  return write_bursts_.empty() ? cycle : std::max(cycle, write_bursts_.back().end + 1);
}

void DmaRtlModel::end_kernel() {
  const uint64_t reads_end = reads_idle_from(0), writes_end = writes_idle_from(0);
  clock_until(*reads_, reads_end + 1);  // through the cycle rd_idle rises in
  clock_until(*writes_, writes_end + 1);
}

std::vector<RtlBlockRun> DmaRtlModel::runs() {
  std::vector<RtlBlockRun> r;
  r.push_back(std::move(reads_->monitor).finish());
  r.push_back(std::move(writes_->monitor).finish());
  return r;
}

}  // namespace fsgen
