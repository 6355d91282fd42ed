#include "core/log.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <memory>

#include "core/error.h"

namespace fsgen {

namespace {

struct LogState {
  std::shared_ptr<spdlog::logger> logger;
  Verbosity verbosity = Verbosity::kNormal;
};

std::shared_ptr<spdlog::logger> stderr_logger() {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  sink->set_pattern("%v");  // messages read as the tool's own lines
  auto l = std::make_shared<spdlog::logger>("fsgen", sink);
  l->set_level(spdlog::level::info);
  return l;
}

LogState& state() {
  static LogState s{stderr_logger()};
  return s;
}

spdlog::level::level_enum level_of(Verbosity v) {
  switch (v) {
    case Verbosity::kQuiet: return spdlog::level::warn;
    case Verbosity::kVerbose: return spdlog::level::debug;
    case Verbosity::kNormal: break;
  }
  return spdlog::level::info;
}

}  // namespace

void configure_logging(Verbosity verbosity, const std::string& log_file) {
  LogState& s = state();
  s.verbosity = verbosity;
  auto l = stderr_logger();
  l->sinks().front()->set_level(level_of(verbosity));
  if (!log_file.empty()) {
    try {
      auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(log_file, true);
      file->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
      file->set_level(spdlog::level::debug);
      l->sinks().push_back(file);
    } catch (const spdlog::spdlog_ex& e) {
      fail(log_file, std::string("cannot open the log file: ") + e.what());
    }
  }
  l->set_level(log_file.empty() ? level_of(verbosity) : spdlog::level::debug);
  l->flush_on(spdlog::level::info);
  s.logger = l;
}

spdlog::logger& logger() { return *state().logger; }

bool progress_shown() { return state().verbosity != Verbosity::kQuiet && isatty(STDERR_FILENO); }

}  // namespace fsgen
