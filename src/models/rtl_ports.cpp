#include "models/rtl_ports.h"

#include <algorithm>
#include <sstream>

#include "core/error.h"

namespace fsgen {

void expect_port_width(const RtlPorts& rtl, uint32_t port, uint32_t bits, const std::string& what) {
  const RtlPorts::PortInfo& p = rtl.ports()[port];
  if (p.width_bits != bits)
    fail(rtl.source(), "port " + p.name + " is " + std::to_string(p.width_bits) + " bits; expected " +
                           std::to_string(bits) + " (" + what + ")");
}

uint32_t port_of_width(const RtlPorts& rtl, const std::string& name, uint32_t bits, const std::string& what) {
  const uint32_t port = rtl.port(name);
  if (bits) expect_port_width(rtl, port, bits, what);
  return port;
}

RtlBlockMonitor::RtlBlockMonitor(std::string block, RtlPorts& rtl, bool keep_events,
                                 std::vector<std::string> model_ports, std::string part)
    : rtl_(rtl), model_ports_(std::move(model_ports)) {
  run_.block = std::move(block);
  run_.part = std::move(part);
  run_.source = rtl.source();
  size_t widest = 8;
  for (const RtlPorts::PortInfo& p : rtl.ports()) {
    run_.ports.emplace_back(run_.block, p.name, p.width_bits, keep_events);
    widest = std::max<size_t>(widest, (p.width_bits + 63) / 64 * 8);
  }
  value_.assign(widest, 0);
  lag_.assign(run_.ports.size(), 0);
}

void RtlBlockMonitor::sample_port(uint32_t port, uint64_t cycle) {
  rtl_.get(port, value_.data());
  run_.ports[port].update(cycle + lag_[port], value_.data());
}

const std::vector<uint32_t>& RtlBlockMonitor::sampled() {
  if (sampling_) return sampled_;
  sampling_ = true;
  for (uint32_t i = 0; i < run_.ports.size(); ++i)
    if (std::find(model_ports_.begin(), model_ports_.end(), run_.ports[i].port()) != model_ports_.end())
      sampled_.push_back(i);
  return sampled_;
}

void RtlBlockMonitor::sample(uint64_t cycle) {
  for (uint32_t i : sampled()) sample_port(i, cycle);
}

void RtlBlockMonitor::sample_inputs(uint64_t cycle) {
  for (uint32_t i : sampled())
    if (!rtl_.ports()[i].output) sample_port(i, cycle);
}

void RtlBlockMonitor::sample_outputs(uint64_t cycle) {
  for (uint32_t i : sampled())
    if (rtl_.ports()[i].output) sample_port(i, cycle);
}

void RtlBlockMonitor::probe_as(const std::string& rtl_port, const std::string& model_port, uint32_t lag) {
  FSGEN_ASSERT(!sampling_, "a port renamed after sampling began");
  const uint32_t i = rtl_.port(rtl_port);
  run_.ports[i] = ToggleProbe(run_.block, model_port, run_.ports[i].width_bits(), true);
  lag_[i] = lag;
}

void RtlBlockMonitor::mismatch(uint64_t cycle, const std::string& port, const std::string& what, int64_t rtl,
                               int64_t model) {
  if (!run_.first_mismatch.empty()) return;
  std::ostringstream s;
  s << "cycle " << cycle << ", port " << port << " (" << what << "): RTL " << rtl << ", model " << model;
  run_.first_mismatch = s.str();
}

void RtlBlockMonitor::totals_only(const std::string& port) {
  if (std::find(run_.totals_only.begin(), run_.totals_only.end(), port) == run_.totals_only.end())
    run_.totals_only.push_back(port);
}

RtlBlockRun RtlBlockMonitor::finish() && {
  std::vector<ToggleProbe> kept;  // the ports sampled
  for (uint32_t i : sampled()) kept.push_back(std::move(run_.ports[i]));
  run_.ports = std::move(kept);
  return std::move(run_);
}

}  // namespace fsgen
