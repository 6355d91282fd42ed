// The results of a design-space exploration in one SQLite file: a row per design (its spec,
// hash, status and, when it could not run, why) and a row per design and benchmark (every
// metric, and the fsgen version and timing model that made it). A design's rows are written
// in one transaction, so a run killed at any moment leaves each design wholly recorded or
// absent, and the next run resumes with the designs not recorded. Several spaces may share a
// database (a design space and its baselines); a design is recorded per space (a baseline
// may hold a design of the space it is compared with).
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

struct sqlite3;

namespace fsgen {

struct BenchmarkResult {
  std::string benchmark;     // SpaceBenchmark::key()
  std::string timing_model;  // which model made the figures
  uint64_t cycles = 0;
  double tokens_per_second = 0;
  uint64_t dma_bytes = 0, least_bytes = 0, roofline_cycles = 0;
  double array_a_busy = 0;  // fraction of cycles
  double power_mw = 0;      // average power over the run (0: not estimated)
  std::string power_model;  // which model made power_mw
  std::string power_by_block;  // "ctrl 252.6; array_a 129.1; ...": each block's mW, largest first
  double seconds() const { return tokens_per_second > 0 ? 1.0 / tokens_per_second : 0; }  // per token
};

struct DesignRecord {
  std::string hash, space, name, spec_text;
  std::string status;  // ok, invalid (does not elaborate), excluded (violates a constraint), failed
  std::string reason;  // why not ok
  uint32_t pes = 0;    // both arrays
  double clock_mhz = 0;      // the spec's clock, at which the benchmarks' tokens/s are taken
  double max_clock_mhz = 0;  // the timing model's max clock (0: not estimated)
  std::string clock_model;   // which model made max_clock_mhz, its slowest block and what it left out
  double area_um2 = 0;     // 0: not estimated
  std::string area_model;  // which model made area_um2 (and what it left out)
  // The power sample (sim/activity_power.h): its kernels and the fast model's error on it
  // against the cycle model, % (a sparse design's timing from zero statistics checked).
  std::string power_sample;
  double sample_cycle_error = 0;
  std::vector<BenchmarkResult> results;
};

class ResultsDb {
 public:
  // Created with its tables when new, unless `must_exist` (a report of a database: a
  // UserError when there is none).
  explicit ResultsDb(const std::string& path, bool must_exist = false);
  ~ResultsDb();
  ResultsDb(const ResultsDb&) = delete;
  ResultsDb& operator=(const ResultsDb&) = delete;

  std::set<std::string> recorded_designs(const std::string& space) const;  // the space's hashes
  void record(const DesignRecord& d);              // one transaction
  std::vector<DesignRecord> designs() const;       // every design with its results, by name

 private:
  void exec(const std::string& sql) const;
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace fsgen
