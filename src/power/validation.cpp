#include "power/validation.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <map>
#include <sstream>

#include "core/csv.h"
#include "core/error.h"
#include "core/statistics.h"
#include "core/write_file.h"
#include "power/baselines.h"
#include "power/power_model.h"
#include "flow/tools.h"

namespace fsgen {

namespace fs = std::filesystem;

namespace {

#define FSGEN_RECORD_COLUMNS                                                                          \
  "design,block,kind,h,variant,cycles,window,clock_mhz,alpha,busy,enable,zeros,predicted_mw,golden_mw," \
  "predicted_leakage_mw,golden_leakage_mw,predicted_area_um2,golden_area_um2,trace_r,trace_nrmse"
#define FSGEN_DESIGN_TRACE_COLUMNS ",design_trace_r,design_trace_nrmse"
constexpr const char* kHeader = FSGEN_RECORD_COLUMNS FSGEN_DESIGN_TRACE_COLUMNS ",design_unmodelled_golden_mw";
constexpr size_t fields_of(const char* header) {
  size_t n = 1;
  for (; *header; ++header) n += *header == ',';
  return n;
}
constexpr size_t kFields = fields_of(kHeader);
// Records of earlier layouts: written before the design traces, or before the golden power
// of the blocks without a model, were kept. Read with those unknown (nan), and upgraded in
// place when a design is appended.
struct EarlierLayout {
  const char* header;
  const char* unknown_fields;
};
constexpr EarlierLayout kEarlierLayouts[] = {{FSGEN_RECORD_COLUMNS, ",nan,nan,nan"},
                                             {FSGEN_RECORD_COLUMNS FSGEN_DESIGN_TRACE_COLUMNS, ",nan"}};
#undef FSGEN_RECORD_COLUMNS
#undef FSGEN_DESIGN_TRACE_COLUMNS

const EarlierLayout* earlier_layout(const std::string& header) {
  for (const auto& l : kEarlierLayouts)
    if (header == l.header) return &l;
  return nullptr;
}

ValidationRecord record_of(const std::string& line, const std::string& where) {
  const CsvRow row(line, where);
  row.expect_fields(kFields, kHeader);
  ValidationRecord r;
  r.design = row.text(0), r.block = row.text(1), r.kind = row.text(2), r.variant = row.text(4);
  r.h = parse_hyperparameters(row.text(3), where);
  r.cycles = row.count(5, "cycles"), r.window = row.count(6, "window");
  const std::vector<std::string> names = split_fields(kHeader);
  double* numbers[] = {&r.clock_mhz, &r.alpha, &r.busy, &r.enable, &r.zeros, &r.predicted_mw, &r.golden_mw,
                       &r.predicted_leakage_mw, &r.golden_leakage_mw, &r.predicted_area_um2, &r.golden_area_um2,
                       &r.trace_r, &r.trace_nrmse, &r.design_trace_r, &r.design_trace_nrmse,
                       &r.design_unmodelled_golden_mw};
  // The traces' agreement and the design's unmodelled power are nan where unknown (the
  // fields an earlier layout lacked); the block's own figures are always numbers.
  const size_t first_trace_field = 11;  // trace_r
  for (size_t i = 0; i < std::size(numbers); ++i)
    *numbers[i] = i < first_trace_field ? row.number(7 + i, names[7 + i]) : row.number_or_nan(7 + i, names[7 + i]);
  return r;
}

MethodScore score(const std::string& method, const std::vector<double>& predicted, const std::vector<double>& golden) {
  MethodScore m{method, predicted, 0, 0, 0};
  m.mape = mape_percent(predicted, golden);
  m.max_abs_error = max_ape_percent(predicted, golden);
  m.pearson = pearson_r(predicted, golden);
  return m;
}

// A design's blocks, in record order.
std::vector<std::vector<const ValidationRecord*>> by_design(const std::vector<ValidationRecord>& records,
                                                             std::vector<std::string>& names) {
  std::map<std::string, size_t> index;
  std::vector<std::vector<const ValidationRecord*>> out;
  for (const auto& r : records) {
    auto [it, added] = index.emplace(r.design, out.size());
    if (added) out.emplace_back(), names.push_back(r.design);
    out[it->second].push_back(&r);
  }
  return out;
}

// The whole-design model's features: elements (PEs, network outputs, cache cells), the
// element-weighted run features, the shares of output-stationary PEs, of value-network
// outputs and of accumulator cells.
std::vector<float> design_features(const std::vector<const ValidationRecord*>& blocks) {
  double elements = 0, alpha = 0, enable = 0, zeros = 0, os = 0, net = 0, acc = 0;
  for (const auto* b : blocks) {
    const double e = primitive_def(b->kind).elements(b->h);
    elements += e, alpha += e * b->alpha, enable += e * b->enable, zeros += e * b->zeros;
    os += b->kind == "pe_array_os" || b->kind == "pe_array_rescale" ? e : 0;
    net += b->kind == "sparse_net" ? e : 0;
    acc += b->kind == "acc_cache" ? e : 0;
  }
  return {float(elements),       float(alpha / elements), float(enable / elements), float(zeros / elements),
          float(os / elements),  float(net / elements),   float(acc / elements),    float(blocks.front()->clock_mhz)};
}

// The fsgen model's blocks of each primitive against their golden power.
void score_by_kind(const std::vector<ValidationRecord>& records, ValidationSummary& s) {
  std::map<std::string, std::vector<const ValidationRecord*>> kinds;
  for (const auto& r : records) kinds[r.kind].push_back(&r);
  for (const auto& [kind, blocks] : kinds) {
    std::vector<double> predicted, golden;
    double trace_r = 0;
    for (const auto* b : blocks)
      predicted.push_back(b->predicted_mw), golden.push_back(b->golden_mw), trace_r += b->trace_r / double(blocks.size());
    s.by_kind.push_back(score(kind, predicted, golden));
    s.by_kind_trace_r.push_back(trace_r);
  }
}

// The whole-design model needs a few other designs to learn from.
constexpr size_t kMinDesignsToLearn = 4;

std::vector<double> leave_one_design_out(const std::vector<std::vector<float>>& features, const std::vector<double>& golden) {
  const size_t cols = features.front().size();
  std::vector<double> predicted;
  for (size_t held = 0; held < features.size(); ++held) {
    std::vector<float> x, y;
    for (size_t i = 0; i < features.size(); ++i)
      if (i != held) x.insert(x.end(), features[i].begin(), features[i].end()), y.push_back(float(golden[i]));
    Booster b;
    b.train(x, y, cols, 100);
    predicted.push_back(b.predict(features[held], cols).front());
  }
  return predicted;
}

}  // namespace

namespace {

// The record file's lines after its header, rows of an earlier layout completed with
// unknown fields; UserError when the header is no layout.
std::vector<std::string> record_rows(const std::string& path, std::istream& in) {
  std::string header;
  std::getline(in, header);
  const EarlierLayout* earlier = earlier_layout(header);
  if (header != kHeader && !earlier) fail(path + ":1", "expected the header " + std::string(kHeader));
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);)
    rows.push_back(earlier && !line.empty() ? line + earlier->unknown_fields : line);
  return rows;
}

// Writes `path` whole (header and rows) through a temporary file.
void rewrite_records(const std::string& path, const std::vector<std::string>& rows) {
  write_file_atomically(path, "validation records", [&](std::ostream& out) {
    out << kHeader << "\n";
    for (const auto& row : rows) out << row << "\n";
  });
}

}  // namespace

void append_validation_records(const std::string& path, const std::vector<ValidationRecord>& records) {
  if (fs::exists(path)) drop_torn_last_line(path);
  const bool fresh = !fs::exists(path) || fs::file_size(path) == 0;
  if (fresh) {
    write_file_atomically(path, "validation records", [](std::ostream& out) { out << kHeader << "\n"; });
  } else {
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    if (earlier_layout(first)) {
      in.seekg(0);
      rewrite_records(path, record_rows(path, in));
    } else if (first != kHeader) {
      fail(path, "not a validation record file: expected the header " + std::string(kHeader));
    }
  }
  std::string rows;  // the design's records in one write: all of them or a torn line
  for (const auto& r : records) {
    CsvLine line;
    line << r.design << r.block << r.kind << hyperparameter_text(r.h) << csv_safe(r.variant) << r.cycles << r.window
         << r.clock_mhz << r.alpha << r.busy << r.enable << r.zeros << r.predicted_mw << r.golden_mw
         << r.predicted_leakage_mw << r.golden_leakage_mw << r.predicted_area_um2 << r.golden_area_um2 << r.trace_r
         << r.trace_nrmse << r.design_trace_r << r.design_trace_nrmse << r.design_unmodelled_golden_mw;
    rows += line.str() + "\n";
  }
  std::ofstream out(path, std::ios::app);
  out << rows << std::flush;
  if (!out) fail(path, "cannot append validation records");
}

std::vector<ValidationRecord> read_validation_records(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open validation records");
  const std::vector<std::string> rows = record_rows(path, in);
  std::vector<ValidationRecord> out;
  for (size_t i = 0; i < rows.size(); ++i)
    if (!rows[i].empty()) out.push_back(record_of(rows[i], path + ":" + std::to_string(i + 2)));
  if (out.empty()) fail(path, "no validation records");
  return out;
}

ValidationSummary summarise_validation(const std::vector<ValidationRecord>& records, const Dataset& dataset) {
  ValidationSummary s;
  const auto designs = by_design(records, s.designs);
  const ActionEnergyBaseline action(dataset);
  const PerMacBaseline per_mac(dataset);
  std::vector<double> fsgen_mw, action_mw, mac_mw;
  std::vector<std::vector<float>> features;
  for (const auto& blocks : designs) {
    double golden = 0, ours = 0, act = 0, mac = 0;
    bool extrapolated = false, sparse = false;
    for (const auto* b : blocks) {
      sparse = sparse || b->kind == "sparse_net";
      const double pes = primitive_def(b->kind).elements(b->h), to_mw = b->clock_mhz * 1e-6;
      golden += b->golden_mw;
      ours += b->predicted_mw;
      act += action.dynamic_fj(b->kind, pes, b->enable) * to_mw + b->predicted_leakage_mw;
      mac += per_mac.dynamic_fj(b->kind, pes, b->enable) * to_mw + b->predicted_leakage_mw;
      extrapolated = extrapolated || !b->variant.empty();
      const double area_error = 100.0 * std::abs(b->predicted_area_um2 - b->golden_area_um2) / b->golden_area_um2;
      s.area_error_mean += area_error / double(records.size());
      s.area_error_max = std::max(s.area_error_max, area_error);
      s.trace_r_mean += b->trace_r / double(records.size());
      s.trace_nrmse_mean += b->trace_nrmse / double(records.size());
      s.trace_r_min = s.blocks == 0 ? b->trace_r : std::min(s.trace_r_min, b->trace_r);
      ++s.blocks;
      s.trace_window = b->window;
    }
    s.golden_mw.push_back(golden), s.extrapolated.push_back(extrapolated), s.sparse.push_back(sparse);
    s.design_trace_r.push_back(blocks.front()->design_trace_r);
    s.design_trace_nrmse.push_back(blocks.front()->design_trace_nrmse);
    s.unmodelled_golden_mw.push_back(blocks.front()->design_unmodelled_golden_mw);
    fsgen_mw.push_back(ours), action_mw.push_back(act), mac_mw.push_back(mac);
    features.push_back(design_features(blocks));
  }
  score_by_kind(records, s);
  std::vector<std::pair<std::string, std::vector<double>>> methods = {
      {"fsgen hierarchical XGBoost", fsgen_mw},
      {"constant energy per action (Accelergy-style)", action_mw},
      {"energy per MAC (MAESTRO-style)", mac_mw}};
  if (designs.size() >= kMinDesignsToLearn)
    methods.push_back({"whole-design XGBoost (leave one design out)", leave_one_design_out(features, s.golden_mw)});
  for (const auto& method : methods) {  // named, not bound: a lambda below captures them (C++17)
    const std::string& name = method.first;
    const std::vector<double>& predicted = method.second;
    s.methods.push_back(score(name, predicted, s.golden_mw));
    // The characterised designs, of which `keep(d)`.
    auto characterised = [&](auto keep) {
      std::vector<double> p, g;
      for (size_t i = 0; i < predicted.size(); ++i)
        if (!s.extrapolated[i] && keep(i)) p.push_back(predicted[i]), g.push_back(s.golden_mw[i]);
      return score(name, p, g);
    };
    s.headline.push_back(characterised([](size_t) { return true; }));
    s.headline_dense.push_back(characterised([&](size_t i) { return !s.sparse[i]; }));
    s.headline_sparse.push_back(characterised([&](size_t i) { return bool(s.sparse[i]); }));
  }
  return s;
}

namespace {

// "MAPE % | R" of a subset of designs, "- | -" when it has none.
std::string mape_and_r(const MethodScore& m) {
  if (m.predicted_mw.empty()) return "- | -";
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << m.mape << " % | " << std::setprecision(3) << m.pearson;
  return o.str();
}

std::string fixed3(double v) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << v;
  return o.str();
}

// "R mean x, min y, NRMSE mean z" of the design traces of the designs `keep(d)`.
template <class Keep>
std::string trace_scores(const ValidationSummary& s, Keep keep) {
  double r_sum = 0, r_min = 1, nrmse_sum = 0;
  size_t n = 0;
  for (size_t d = 0; d < s.designs.size(); ++d)
    if (keep(d) && !std::isnan(s.design_trace_r[d]))
      r_sum += s.design_trace_r[d], r_min = std::min(r_min, s.design_trace_r[d]), nrmse_sum += s.design_trace_nrmse[d], ++n;
  if (n == 0) return "not recorded";
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << "R mean " << r_sum / double(n) << ", min " << r_min << ", NRMSE mean "
    << nrmse_sum / double(n) << " (" << n << " designs)";
  return o.str();
}

// The cores replayed whole: fsgen's sum over the modelled blocks against the whole core's
// golden power, and what the modelled blocks leave out (the blocks without a model, a fused
// core's controller say): their share of the core's golden power.
std::string whole_core_scores(const ValidationSummary& s) {
  std::vector<double> share, predicted, whole;
  for (size_t d = 0; d < s.designs.size(); ++d) {
    if (std::isnan(s.unmodelled_golden_mw[d])) continue;
    const double core = s.golden_mw[d] + s.unmodelled_golden_mw[d];
    share.push_back(100.0 * s.unmodelled_golden_mw[d] / core);
    predicted.push_back(s.methods.front().predicted_mw[d]), whole.push_back(core);
  }
  if (share.empty()) return "";
  double mean = 0;
  for (double v : share) mean += v / double(share.size());
  std::ostringstream o;
  const MethodScore core = score("", predicted, whole);
  o << std::fixed << std::setprecision(1) << "\nCores replayed whole (" << share.size()
    << " designs): fsgen's sum over the modelled blocks against the whole core's golden power: MAPE " << core.mape
    << " %, R " << std::setprecision(3) << core.pearson << ", max " << std::setprecision(1) << core.max_abs_error
    << " %; the blocks without a model hold " << mean << " % of the core's golden power on average ("
    << *std::min_element(share.begin(), share.end()) << " to " << *std::max_element(share.begin(), share.end())
    << " %).\n";
  return o.str();
}

}  // namespace

void print_validation(const ValidationSummary& s, std::ostream& out) {
  size_t exact = 0, sparse = 0;
  for (bool e : s.extrapolated) exact += !e;
  for (bool e : s.sparse) sparse += e;
  out << std::fixed << "## Average power of the modelled blocks, predicted against gate-level golden\n\n"
      << s.designs.size() << " designs (" << s.designs.size() - sparse << " dense, " << sparse
      << " with value networks; " << exact << " of characterised primitive variants, " << s.designs.size() - exact
      << " extrapolated beyond the characterised primitives, marked *), " << s.blocks << " blocks (PE arrays, value networks, accumulator caches, DMAs, softmax units; controllers and register files of the cores replayed whole).\n\n"
      << "| method | MAPE, characterised | R | dense: MAPE | R | sparse: MAPE | R | MAPE, all designs | R | max error, all |\n"
      << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < s.methods.size(); ++i)
    out << "| " << s.methods[i].method << " | " << mape_and_r(s.headline[i]) << " | " << mape_and_r(s.headline_dense[i])
        << " | " << mape_and_r(s.headline_sparse[i]) << " | " << mape_and_r(s.methods[i]) << " | " << std::setprecision(1)
        << s.methods[i].max_abs_error << " % |\n";
  out << "\nPer-window traces (fsgen model, windows of " << s.trace_window << " cycles) of the designs (the sum over "
      << "their modelled blocks): " << trace_scores(s, [](size_t) { return true; }) << "; dense "
      << trace_scores(s, [&](size_t d) { return !s.sparse[d]; }) << "; sparse "
      << trace_scores(s, [&](size_t d) { return bool(s.sparse[d]); }) << ". Of the blocks alone: R mean "
      << std::setprecision(3) << s.trace_r_mean << ", min " << s.trace_r_min << "; NRMSE mean " << s.trace_nrmse_mean
      << ".\nArea (primitive fits against Yosys on the liberty): mean |error| " << std::setprecision(2)
      << s.area_error_mean << " %, max " << s.area_error_max << " %.\n" << whole_core_scores(s) << "\n"
      << "| primitive | blocks | fsgen MAPE | R | max error | block trace R mean |\n|---|---|---|---|---|---|\n";
  for (size_t k = 0; k < s.by_kind.size(); ++k)
    out << "| " << s.by_kind[k].method << " | " << s.by_kind[k].predicted_mw.size() << " | " << std::setprecision(1)
        << s.by_kind[k].mape << " % | " << std::setprecision(3) << s.by_kind[k].pearson << " | " << std::setprecision(1)
        << s.by_kind[k].max_abs_error << " % | " << std::setprecision(3) << s.by_kind_trace_r[k] << " |\n";
  out << "\n| design | golden mW | trace R | not modelled, golden mW |";
  for (const auto& m : s.methods) out << " " << m.method << " |";
  out << "\n|---|---|---|---|";
  for (size_t i = 0; i < s.methods.size(); ++i) out << "---|";
  out << "\n";
  for (size_t d = 0; d < s.designs.size(); ++d) {
    out << "| " << s.designs[d] << (s.extrapolated[d] ? " *" : "") << " | " << std::setprecision(3) << s.golden_mw[d]
        << " | " << (std::isnan(s.design_trace_r[d]) ? std::string("-") : fixed3(s.design_trace_r[d])) << " | "
        << (std::isnan(s.unmodelled_golden_mw[d]) ? std::string("-") : fixed3(s.unmodelled_golden_mw[d])) << " |";
    for (const auto& m : s.methods)
      out << " " << m.predicted_mw[d] << " (" << std::showpos << std::setprecision(1)
          << 100.0 * (m.predicted_mw[d] - s.golden_mw[d]) / s.golden_mw[d] << std::noshowpos << " %) |"
          << std::setprecision(3);
    out << "\n";
  }
  out << std::defaultfloat;
}

void plot_validation_png(const ValidationSummary& s, const std::string& png_path) {
  const std::string data = png_path + ".dat", tmp = png_path + ".tmp.png";
  {
    std::ofstream o(data);
    for (size_t m = 0; m < s.methods.size(); ++m) {
      for (size_t d = 0; d < s.designs.size(); ++d) o << s.golden_mw[d] << " " << s.methods[m].predicted_mw[d] << "\n";
      o << "\n\n";
    }
  }
  std::string script = "set terminal pngcairo size 800,800 noenhanced; set output '" + tmp +
                       "'; set xlabel 'golden (gate level) mW'; set ylabel 'predicted mW'; set key top left;"
                       " set title 'fsgen power validation: modelled blocks per design'; set logscale xy; plot x title "
                       "'ideal' with lines lc 'gray'";
  for (size_t m = 0; m < s.methods.size(); ++m)
    script += ", '" + data + "' index " + std::to_string(m) + " using 1:2 title '" + s.methods[m].method +
              "' with points pt " + std::to_string(m + 5);
  const CommandResult r = run_command("echo " + shell_quote(script) + " | " + shell_quote(require_tool("gnuplot")));
  fs::remove(data);
  if (r.status != 0 || !fs::exists(tmp)) fail("gnuplot", "could not draw " + png_path + ": " + r.output);
  fs::rename(tmp, png_path);
}

}  // namespace fsgen
