// A progress bar on stderr for long runs. It draws only when stderr is a terminal and the
// run is not quiet (core/log.h), and only once the run has taken more than two seconds.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace fsgen {

class ProgressBar {
 public:
  // label: what is counted, printed before the bar ("" for none).
  explicit ProgressBar(std::string label = "");
  // Done fraction in [0, 1]; 1 ends the bar's line.
  void operator()(double fraction);
  // done of total items; the count is shown beside the bar.
  void operator()(uint64_t done, uint64_t total);

 private:
  void draw(double fraction, const std::string& count);
  std::string label_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  double last_ = 0;
  bool drawn_ = false;
};

}  // namespace fsgen
