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

RtlBlockMonitor::RtlBlockMonitor(std::string block, RtlPorts& rtl, bool keep_events, std::string part) : rtl_(rtl) {
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

void RtlBlockMonitor::sample(uint64_t cycle) {
  for (uint32_t i = 0; i < run_.ports.size(); ++i) sample_port(i, cycle);
}

void RtlBlockMonitor::sample_inputs(uint64_t cycle) {
  for (uint32_t i = 0; i < run_.ports.size(); ++i)
    if (!rtl_.ports()[i].output) sample_port(i, cycle);
}

void RtlBlockMonitor::sample_outputs(uint64_t cycle) {
  for (uint32_t i = 0; i < run_.ports.size(); ++i)
    if (rtl_.ports()[i].output) sample_port(i, cycle);
}

void RtlBlockMonitor::probe_as(const std::string& rtl_port, const std::string& model_port, uint32_t lag) {
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

RtlBlockRun RtlBlockMonitor::finish() && { return std::move(run_); }

}  // namespace fsgen
