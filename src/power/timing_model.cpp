#include "power/timing_model.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "core/csv.h"
#include "core/error.h"
#include "core/folder_lock.h"
#include "core/statistics.h"
#include "core/write_file.h"
#include "flow/tools.h"
#include "generator/verilog_emitter.h"
#include "power/techmap.h"

namespace fsgen {

namespace fs = std::filesystem;

std::string TimingPoint::key() const { return kind + "|" + hyperparameter_text(h); }

namespace {

constexpr const char* kFormat = "fsgen-timing 1";
constexpr const char* kColumns = "kind,h,period_ns,arrival_ns,setup_ns,cells,area_um2,startpoint,endpoint";

std::string row_of(const TimingPoint& p) {
  CsvLine line;
  line << p.kind << hyperparameter_text(p.h) << p.period_ns << p.arrival_ns << p.setup_ns << p.cells << p.area_um2
       << csv_safe(p.startpoint) << csv_safe(p.endpoint);
  return line.str();
}

TimingPoint point_of(const std::string& text, const std::string& where) {
  CsvRow row(text, where);
  row.expect_fields(split_fields(kColumns).size(), kColumns);
  TimingPoint p;
  p.kind = row.text(0);
  primitive_def(p.kind);  // a kind this fsgen knows
  p.h = parse_hyperparameters(row.text(1), where);
  p.period_ns = row.number(2, "period_ns");
  p.arrival_ns = row.number(3, "arrival_ns");
  p.setup_ns = row.number(4, "setup_ns");
  p.cells = row.count(5, "cells");
  p.area_um2 = row.number(6, "area_um2");
  p.startpoint = row.text(7);
  p.endpoint = row.text(8);
  if (p.period_ns <= 0 || p.delay_ns() <= 0) fail(where, "expected a positive period and path delay");
  return p;
}

bool held(const PrimitiveDef& def, size_t i) {
  return std::find(def.held_params.begin(), def.held_params.end(), def.params[i]) != def.held_params.end();
}

// A size that differs from another only in a held hyperparameter's value (not 0): the same
// module.
bool held_setting(const PrimitiveDef& def, const std::vector<int>& h) {
  for (size_t i = 0; i < h.size(); ++i)
    if (held(def, i) && h[i] != 0) return true;
  return false;
}

std::map<std::string, std::string> provenance_of(const CharacterizeOptions& o, const Liberty& lib, double period_ns) {
  std::ostringstream period;
  period << period_ns;
  return {{"format", kFormat},
          {"liberty", lib.name + (o.liberty.empty() ? " (built in)" : " (" + o.liberty + ")")},
          {"yosys", tool_version("yosys", "-V")},
          {"opensta", tool_version("sta", "-version")},
          {"period_ns", period.str()},
          {"mapping",
           "yosys: abc for delay at the period, buffered fan-out, sized gates; flip-flop fan-out trees; OpenSTA from "
           "the ports"}};
}

// Opens the dataset for appending: an existing one must have this run's liberty and period,
// and its points are done; a new one gets its header.
std::ofstream open_timing_dataset(const std::string& path, const std::map<std::string, std::string>& prov,
                                  std::set<std::string>& done) {
  if (fs::exists(path)) drop_torn_last_line(path);
  if (fs::exists(path) && fs::file_size(path) > 0) {
    const TimingDataset d = read_timing_dataset(path);
    for (const char* k : {"liberty", "period_ns"})
      if (d.provenance.at(k) != prov.at(k))
        fail(path, std::string("provenance '") + k + "' is '" + d.provenance.at(k) + "', this run's is '" + prov.at(k) +
                       "': resume with the same settings or write a new dataset");
    for (const auto& p : d.points) done.insert(p.key());
  }
  return append_to_csv_dataset(path, prov, kColumns, "timing dataset");
}

TimingPoint time_primitive(const PrimitiveDef& def, const std::vector<int>& h, const Liberty& lib, double period_ns,
                           const std::string& work_dir) {
  const std::string dir = (fs::path(work_dir) / (def.kind + "_" + hyperparameter_text(h, 'x'))).string();
  fs::create_directories(dir);
  const TimedNetlist t =
      synth_and_time(write_module_sources(dir, def.module), def.module, module_parameters(def, h), lib, dir, period_ns);
  TimingPoint p;
  p.kind = def.kind;
  p.h = h;
  p.period_ns = period_ns;
  p.arrival_ns = t.timing.arrival_ns;
  p.setup_ns = t.timing.setup_ns;
  p.cells = t.synth.cells;
  p.area_um2 = t.synth.area_um2;
  p.startpoint = t.timing.startpoint;
  p.endpoint = t.timing.endpoint;
  return p;
}

}  // namespace

TimingDataset read_timing_dataset(const std::string& path) {
  const CsvDataset csv = read_csv_dataset(path, "timing dataset");
  if (csv.header != kColumns) fail(csv.header_where, std::string("expected the column header ") + kColumns);
  TimingDataset d;
  d.provenance = csv.provenance;
  for (const char* k : {"format", "liberty", "period_ns"})
    if (!d.provenance.count(k)) fail(path, std::string("no '# ") + k + ": ' provenance line: not a timing dataset");
  if (d.provenance.at("format") != kFormat)
    fail(path, "format '" + d.provenance.at("format") + "', expected '" + kFormat + "'");
  for (const CsvDataset::Row& row : csv.rows) d.points.push_back(point_of(row.text, row.where));
  return d;
}

uint64_t characterize_timing(const CharacterizeOptions& o, double period_ns, const std::string& path,
                             const std::function<void(uint64_t, uint64_t)>& progress) {
  if (o.jobs == 0) fail("--jobs", "expected at least 1");
  if (!(period_ns > 0)) fail("--period-ns", "expected a positive clock period");
  const std::vector<const PrimitiveDef*> defs = selected_primitives(o);
  fs::create_directories(o.work_dir);
  const FolderLock building(o.work_dir, "fsgen characterize --timing run");
  const Liberty lib = prepare_liberty(o.liberty, o.work_dir);
  std::set<std::string> done;
  std::ofstream out = open_timing_dataset(path, provenance_of(o, lib, period_ns), done);
  struct Job {
    const PrimitiveDef* def;
    std::vector<int> h;
  };
  std::vector<Job> todo;
  uint64_t total = 0;
  for (const auto* d : defs)
    for (const auto& h : sizes_to_run(*d, o)) {
      if (held_setting(*d, h)) continue;  // one synthesis serves every value of a held hyperparameter
      ++total;
      if (!done.count(d->kind + "|" + hyperparameter_text(h))) todo.push_back({d, h});
    }
  std::atomic<size_t> next{0};
  std::mutex lock;
  uint64_t finished = total - todo.size(), added = 0;
  std::vector<std::string> errors;
  auto worker = [&] {
    for (size_t i; (i = next++) < todo.size();) {
      try {
        const TimingPoint p = time_primitive(*todo[i].def, todo[i].h, lib, period_ns, o.work_dir);
        std::lock_guard<std::mutex> g(lock);
        out << row_of(p) << "\n" << std::flush;
        ++added;
        if (progress) progress(++finished, total);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> g(lock);
        errors.push_back(todo[i].def->kind + " " + hyperparameter_text(todo[i].h, 'x') + ": " + e.what());
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < o.jobs; ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (!errors.empty()) throw UserError(errors.front());
  return added;
}

namespace {

// A hyperparameter whose every catalog value is 0 or 1 is a flag (a term of its own value).
bool is_flag(const PrimitiveDef& def, size_t i) {
  return std::all_of(def.sizes.begin(), def.sizes.end(),
                     [i](const std::vector<int>& h) { return h[i] == 0 || h[i] == 1; });
}

// A kind with size hyperparameters (not the register file, which has none).
bool has_size(const PrimitiveDef& def) {
  for (size_t i = 0; i < def.params.size(); ++i)
    if (!held(def, i) && !is_flag(def, i)) return true;
  return false;
}

// The terms: log2 of the product of the size hyperparameters (one coefficient for the size:
// a kind characterised at a few sizes, as the fused controller is, still extrapolates
// steadily), then each flag's value.
std::vector<double> terms_at(const PrimitiveDef& def, const std::vector<int>& h) {
  double size = 1;
  std::vector<double> flags;
  for (size_t i = 0; i < def.params.size(); ++i)
    if (held(def, i))
      continue;
    else if (is_flag(def, i))
      flags.push_back(double(h[i]));
    else
      size *= std::max(1, h[i]);
  std::vector<double> t;
  if (has_size(def)) t.push_back(std::log2(size));
  t.insert(t.end(), flags.begin(), flags.end());
  return t;
}

std::vector<std::string> term_names(const PrimitiveDef& def) {
  std::string size;
  std::vector<std::string> flags;
  for (size_t i = 0; i < def.params.size(); ++i)
    if (held(def, i))
      continue;
    else if (is_flag(def, i))
      flags.push_back(def.params[i]);
    else
      size += (size.empty() ? "" : " x ") + def.params[i];
  std::vector<std::string> t;
  if (!size.empty()) t.push_back("log2 (" + size + ")");
  t.insert(t.end(), flags.begin(), flags.end());
  return t;
}

}  // namespace

double KindTiming::delay_ns(const PrimitiveDef& def, const std::vector<int>& h) const {
  const std::vector<double> t = terms_at(def, h);
  FSGEN_ASSERT(t.size() == b_ns.size(), "a timing fit has one coefficient per term of its primitive");
  double d = a_ns;
  for (size_t i = 0; i < t.size(); ++i) d += b_ns[i] * t[i];
  return d;
}

double KindTiming::beyond(const PrimitiveDef& def, const std::vector<int>& h) const {
  double worst = 0;
  for (size_t i = 0; i < def.params.size(); ++i) {
    if (held(def, i)) continue;
    int most = 1;  // a flag characterised at 0 and 1 is beyond at 2 (ST = 2, input-stationary)
    for (const auto& s : sizes) most = std::max(most, s[i]);
    worst = std::max(worst, double(h[i]) / most);
  }
  return worst;
}

const KindTiming* TimingModel::find(const std::string& kind) const {
  const auto it = kinds.find(kind);
  return it == kinds.end() ? nullptr : &it->second;
}

namespace {

// (terms, delay) of each size; the fit's intercept and coefficients.
KindTiming fit_kind(const std::vector<std::pair<std::vector<double>, double>>& pts) {
  KindTiming k;
  const std::vector<double> c = least_squares_with_intercept(pts);
  k.a_ns = c.at(0);
  k.b_ns.assign(c.begin() + 1, c.end());
  return k;
}

double predict(const KindTiming& k, const std::vector<double>& terms) {
  double d = k.a_ns;
  for (size_t i = 0; i < terms.size(); ++i) d += k.b_ns[i] * terms[i];
  return d;
}

}  // namespace

TimingModel fit_timing_model(const TimingDataset& d) {
  if (d.points.empty()) fail("timing dataset", "no points: characterise with fsgen characterize --timing");
  TimingModel m;
  m.provenance = d.provenance;
  std::map<std::string, std::vector<const TimingPoint*>> by_kind;
  for (const auto& p : d.points) by_kind[p.kind].push_back(&p);
  for (const auto& [kind, pts] : by_kind) {
    const PrimitiveDef& def = primitive_def(kind);
    std::vector<std::pair<std::vector<double>, double>> xy;
    for (const auto* p : pts) {
      if (p->h.size() != def.params.size())
        fail("timing dataset", kind + " " + hyperparameter_text(p->h, 'x') + ": expected " +
                                   std::to_string(def.params.size()) + " hyperparameters");
      xy.push_back({terms_at(def, p->h), p->delay_ns()});
    }
    KindTiming k = fit_kind(xy);
    k.terms = term_names(def);
    for (const auto* p : pts) k.sizes.push_back(p->h);
    if (xy.size() > k.terms.size() + 1)
      for (size_t i = 0; i < xy.size(); ++i) {
        auto others = xy;
        others.erase(others.begin() + long(i));
        const double predicted = predict(fit_kind(others), xy[i].first);
        k.leave_one_out_max_error_percent =
            std::max(k.leave_one_out_max_error_percent, 100 * std::abs(predicted - xy[i].second) / xy[i].second);
      }
    m.kinds[kind] = k;
  }
  return m;
}

nlohmann::ordered_json timing_model_json(const TimingModel& m) {
  nlohmann::ordered_json j;
  j["provenance"] = m.provenance;
  j["target"] = "worst path delay (arrival + setup), ns = a + b . terms";
  for (const auto& [kind, k] : m.kinds)
    j["kinds"][kind] = {{"terms", k.terms},
                        {"a_ns", k.a_ns},
                        {"b_ns", k.b_ns},
                        {"characterised_sizes", k.sizes},
                        {"leave_one_out_max_error_percent", k.leave_one_out_max_error_percent}};
  return j;
}

TimingModel timing_model_from_json(const nlohmann::json& j, const std::string& where) {
  TimingModel m;
  try {
    m.provenance = j.at("provenance").get<std::map<std::string, std::string>>();
    for (const auto& [kind, e] : j.at("kinds").items()) {
      const PrimitiveDef& def = primitive_def(kind);
      KindTiming k;
      k.terms = e.at("terms").get<std::vector<std::string>>();
      k.a_ns = e.at("a_ns");
      k.b_ns = e.at("b_ns").get<std::vector<double>>();
      k.sizes = e.at("characterised_sizes").get<std::vector<std::vector<int>>>();
      k.leave_one_out_max_error_percent = e.at("leave_one_out_max_error_percent");
      if (k.terms != term_names(def) || k.b_ns.size() != k.terms.size())
        fail(where, kind +
                        ": timing terms are not this fsgen's hyperparameters of the primitive (retrain with fsgen "
                        "train --timing)");
      for (const auto& h : k.sizes)
        if (h.size() != def.params.size()) fail(where, kind + ": a characterised size of the wrong length");
      m.kinds[kind] = k;
    }
  } catch (const nlohmann::json::exception& e) {
    fail(where, std::string("timing model field missing or of the wrong type: ") + e.what());
  }
  return m;
}

}  // namespace fsgen
