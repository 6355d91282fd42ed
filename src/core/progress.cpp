#include "core/progress.h"

#include <iostream>

#include "core/log.h"

namespace fsgen {

ProgressBar::ProgressBar(std::string label) : label_(std::move(label)) {}

void ProgressBar::operator()(double fraction) { draw(fraction, ""); }

void ProgressBar::operator()(uint64_t done, uint64_t total) {
  draw(total ? double(done) / double(total) : 1.0, " " + std::to_string(done) + "/" + std::to_string(total));
}

void ProgressBar::draw(double fraction, const std::string& count) {
  if (!progress_shown()) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const bool finished = fraction >= 1.0;
  const bool early = elapsed < 2.0;  // a short run leaves no bar behind
  if (finished ? (early && !drawn_) : (early || elapsed - last_ < 0.25)) return;
  last_ = elapsed;
  drawn_ = true;
  const int width = 40, filled = int(fraction * width);
  std::cerr << "\r" << (label_.empty() ? "" : label_ + " ") << "[" << std::string(size_t(filled), '#')
            << std::string(size_t(width - filled), ' ') << "] " << int(fraction * 100) << " %" << count << "  "
            << int(elapsed) << " s";
  // The time left at the rate so far (once a share is done that makes the rate mean something).
  if (!finished && fraction >= 0.01) std::cerr << ", about " << int(elapsed * (1 - fraction) / fraction) << " s left";
  std::cerr << (finished ? "\n" : "    ") << std::flush;
}

}  // namespace fsgen
