#include "dse/results_db.h"

#include <sqlite3.h>

#include <chrono>
#include <map>
#include <thread>

#include "core/error.h"

namespace fsgen {

namespace {

// user_version 3 (2 had no max clock): a database of an earlier layout is refused rather
// than mixed with this one.
constexpr int kSchemaVersion = 3;
constexpr const char* kSchema = R"(
CREATE TABLE IF NOT EXISTS designs (
  space TEXT NOT NULL, hash TEXT NOT NULL, name TEXT NOT NULL, spec TEXT NOT NULL, status TEXT NOT NULL,
  reason TEXT NOT NULL, pes INTEGER NOT NULL, clock_mhz REAL NOT NULL, max_clock_mhz REAL NOT NULL,
  clock_model TEXT NOT NULL, area_um2 REAL NOT NULL,
  area_model TEXT NOT NULL, power_sample TEXT NOT NULL, sample_cycle_error REAL NOT NULL,
  fsgen_version TEXT NOT NULL, PRIMARY KEY (space, hash));
CREATE TABLE IF NOT EXISTS results (
  space TEXT NOT NULL, design TEXT NOT NULL, benchmark TEXT NOT NULL, timing_model TEXT NOT NULL,
  cycles INTEGER NOT NULL, tokens_per_second REAL NOT NULL, dma_bytes INTEGER NOT NULL,
  least_bytes INTEGER NOT NULL, roofline_cycles INTEGER NOT NULL, array_a_busy REAL NOT NULL,
  power_mw REAL NOT NULL, power_model TEXT NOT NULL, power_by_block TEXT NOT NULL,
  PRIMARY KEY (space, design, benchmark), FOREIGN KEY (space, design) REFERENCES designs(space, hash));
)";

// A prepared statement, finalised when it goes out of scope.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& where) : db_(db), where_(where) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s_, nullptr) != SQLITE_OK) fail(where, sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(s_); }
  Statement& text(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.c_str(), int(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& integer(int i, uint64_t v) {
    sqlite3_bind_int64(s_, i, sqlite3_int64(v));
    return *this;
  }
  Statement& real(int i, double v) {
    sqlite3_bind_double(s_, i, v);
    return *this;
  }
  bool row() {  // steps; true while a row is there
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail(where_, sqlite3_errmsg(db_));
    return false;
  }
  std::string column_text(int i) const {
    const auto* t = sqlite3_column_text(s_, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  uint64_t column_integer(int i) const { return uint64_t(sqlite3_column_int64(s_, i)); }
  double column_real(int i) const { return sqlite3_column_double(s_, i); }
  uint64_t first_integer() { return row() ? column_integer(0) : 0; }

 private:
  sqlite3* db_;
  sqlite3_stmt* s_ = nullptr;
  std::string where_;
};

}  // namespace

ResultsDb::ResultsDb(const std::string& path, bool must_exist) : path_(path) {
  const int flags = SQLITE_OPEN_READWRITE | (must_exist ? 0 : SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    fail(path, "cannot open the results database: " + why);
  }
  sqlite3_busy_timeout(db_, 60000);  // another process of the run (MPI ranks) holding the write lock
  // Switching to WAL takes an exclusive lock without the busy handler's wait: ranks opening a
  // new database at once retry.
  for (int tries = 0;; ++tries) {
    const int rc = sqlite3_exec(db_, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) break;
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || tries == 6000) exec("PRAGMA journal_mode=WAL");  // its error
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  exec("PRAGMA synchronous=NORMAL;");
  exec("BEGIN IMMEDIATE");
  const int version = int(Statement(db_, "PRAGMA user_version", path_).first_integer());
  const bool empty = Statement(db_, "SELECT count(*) FROM sqlite_master", path_).first_integer() == 0;
  if (!empty && version != kSchemaVersion) {
    exec("ROLLBACK");
    fail(path_, "a results database of layout " + std::to_string(version) + " (an earlier fsgen): expected layout " +
                    std::to_string(kSchemaVersion) + "; give a new --db");
  }
  exec(kSchema);
  exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
  exec("COMMIT");
}

ResultsDb::~ResultsDb() { sqlite3_close(db_); }

void ResultsDb::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    fail(path_, "results database: " + why);
  }
}

std::set<std::string> ResultsDb::recorded_designs(const std::string& space) const {
  std::set<std::string> out;
  Statement s(db_, "SELECT hash FROM designs WHERE space = ?1", path_);
  s.text(1, space);
  while (s.row()) out.insert(s.column_text(0));
  return out;
}

void ResultsDb::record(const DesignRecord& d) {
  exec("BEGIN IMMEDIATE");
  try {
    Statement(
        db_, "INSERT OR REPLACE INTO designs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        path_)
        .text(1, d.space)
        .text(2, d.hash)
        .text(3, d.name)
        .text(4, d.spec_text)
        .text(5, d.status)
        .text(6, d.reason)
        .integer(7, d.pes)
        .real(8, d.clock_mhz)
        .real(9, d.max_clock_mhz)
        .text(10, d.clock_model)
        .real(11, d.area_um2)
        .text(12, d.area_model)
        .text(13, d.power_sample)
        .real(14, d.sample_cycle_error)
        .text(15, FSGEN_VERSION)
        .row();
    for (const BenchmarkResult& r : d.results)
      Statement(db_, "INSERT OR REPLACE INTO results VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                path_)
          .text(1, d.space)
          .text(2, d.hash)
          .text(3, r.benchmark)
          .text(4, r.timing_model)
          .integer(5, r.cycles)
          .real(6, r.tokens_per_second)
          .integer(7, r.dma_bytes)
          .integer(8, r.least_bytes)
          .integer(9, r.roofline_cycles)
          .real(10, r.array_a_busy)
          .real(11, r.power_mw)
          .text(12, r.power_model)
          .text(13, r.power_by_block)
          .row();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::vector<DesignRecord> ResultsDb::designs() const {
  std::vector<DesignRecord> out;
  std::map<std::pair<std::string, std::string>, size_t> at;  // (space, hash)
  // Spaces in the order their first design was recorded (the space explored first leads the
  // report), each space's designs by name.
  Statement s(db_,
              "SELECT hash, space, name, spec, status, reason, pes, clock_mhz, max_clock_mhz, clock_model, area_um2, "
              "area_model, power_sample, sample_cycle_error FROM designs JOIN (SELECT space AS sp, MIN(rowid) AS first "
              "FROM designs GROUP BY "
              "space) ON space = sp ORDER BY first, name",
              path_);
  while (s.row()) {
    DesignRecord d;
    d.hash = s.column_text(0), d.space = s.column_text(1), d.name = s.column_text(2), d.spec_text = s.column_text(3);
    d.status = s.column_text(4), d.reason = s.column_text(5);
    d.pes = uint32_t(s.column_integer(6)), d.clock_mhz = s.column_real(7);
    d.max_clock_mhz = s.column_real(8), d.clock_model = s.column_text(9);
    d.area_um2 = s.column_real(10), d.area_model = s.column_text(11);
    d.power_sample = s.column_text(12), d.sample_cycle_error = s.column_real(13);
    at[{d.space, d.hash}] = out.size();
    out.push_back(std::move(d));
  }
  Statement r(db_,
              "SELECT space, design, benchmark, timing_model, cycles, tokens_per_second, dma_bytes, least_bytes, "
              "roofline_cycles, array_a_busy, power_mw, power_model, power_by_block FROM results ORDER BY space, "
              "design, benchmark",
              path_);
  while (r.row()) {
    BenchmarkResult b;
    b.benchmark = r.column_text(2), b.timing_model = r.column_text(3), b.cycles = r.column_integer(4);
    b.tokens_per_second = r.column_real(5), b.dma_bytes = r.column_integer(6), b.least_bytes = r.column_integer(7);
    b.roofline_cycles = r.column_integer(8), b.array_a_busy = r.column_real(9);
    b.power_mw = r.column_real(10), b.power_model = r.column_text(11), b.power_by_block = r.column_text(12);
    auto it = at.find({r.column_text(0), r.column_text(1)});
    if (it != at.end()) out[it->second].results.push_back(std::move(b));
  }
  return out;
}

}  // namespace fsgen
