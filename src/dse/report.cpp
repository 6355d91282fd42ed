#include "dse/report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include "core/error.h"
#include "core/write_file.h"
#include "flow/tools.h"

namespace fsgen {

namespace {

std::vector<std::string> spaces_of(const std::vector<DesignRecord>& designs) {
  std::vector<std::string> out;
  for (const auto& d : designs)
    if (std::find(out.begin(), out.end(), d.space) == out.end()) out.push_back(d.space);
  return out;
}

DesignFigures figures(const DesignRecord& d) {
  DesignFigures f;
  f.design = &d;
  f.area_mm2 = d.area_um2 / 1e6;
  double log_sum = 0, energy = 0, busy = 0;
  bool powered = !d.results.empty();
  for (const auto& r : d.results) {
    log_sum += std::log(std::max(r.tokens_per_second, 1e-30));
    f.cycles += double(r.cycles);
    energy += r.power_mw * double(r.cycles);
    busy += r.array_a_busy * double(r.cycles);
    powered = powered && r.power_mw > 0;
  }
  if (d.results.empty()) return f;
  f.tokens_per_second = std::exp(log_sum / double(d.results.size()));
  f.power_mw = powered && f.cycles > 0 ? energy / f.cycles : 0;
  f.utilisation = f.cycles > 0 ? busy / f.cycles : 0;
  return f;
}

// The three fronts: x is minimised, y minimised (cycles) or maximised.
struct FrontAxes {
  const char* name;
  const char* title;
  const char* x_label;
  const char* y_label;
  double (*x)(const DesignFigures&);
  double (*y)(const DesignFigures&);
  bool maximise_y;
};

const std::vector<FrontAxes>& front_axes() {
  static const std::vector<FrontAxes> axes = {
      {"cycles_power", "cycles against power", "power (mW, fsgen activity-scaled primitive models)",
       "cycles over the benchmarks (fsgen fast model)", [](const DesignFigures& f) { return f.power_mw; },
       [](const DesignFigures& f) { return f.cycles; }, false},
      {"tokens_area", "tokens/s against area", "area (mm2, fsgen primitive area models)",
       "tokens/s (geometric mean over the benchmarks)", [](const DesignFigures& f) { return f.area_mm2; },
       [](const DesignFigures& f) { return f.tokens_per_second; }, true},
      {"efficiency_area", "tokens/s/W against area", "area (mm2, fsgen primitive area models)", "tokens/s/W",
       [](const DesignFigures& f) { return f.area_mm2; }, [](const DesignFigures& f) { return f.tokens_per_joule(); },
       true},
  };
  return axes;
}

bool has_axes(const DesignFigures& f, const FrontAxes& a) { return a.x(f) > 0 && a.y(f) > 0; }

// The designs no other beats on both axes, by x ascending.
std::vector<const DesignFigures*> pareto(std::vector<const DesignFigures*> pts, const FrontAxes& a) {
  pts.erase(std::remove_if(pts.begin(), pts.end(), [&](const DesignFigures* f) { return !has_axes(*f, a); }),
            pts.end());
  auto better = [&](double y1, double y2) { return a.maximise_y ? y1 > y2 : y1 < y2; };
  std::sort(pts.begin(), pts.end(), [&](const DesignFigures* p, const DesignFigures* q) {
    return a.x(*p) != a.x(*q) ? a.x(*p) < a.x(*q) : better(a.y(*p), a.y(*q));
  });
  std::vector<const DesignFigures*> front;
  for (const auto* p : pts)
    if (front.empty() || better(a.y(*p), a.y(*front.back()))) front.push_back(p);
  return front;
}

std::vector<const DesignFigures*> of_space(const std::vector<DesignFigures>& figs, const std::string& space) {
  std::vector<const DesignFigures*> out;
  for (const auto& f : figs)
    if (f.design->space == space) out.push_back(&f);
  return out;
}

// A space's best designs: by FoM when every design has one, else by tokens/s.
std::vector<const DesignFigures*> best_of(std::vector<const DesignFigures*> pts, size_t n) {
  const bool fom = std::all_of(pts.begin(), pts.end(), [](const DesignFigures* f) { return f->fom() > 0; });
  std::sort(pts.begin(), pts.end(), [&](const DesignFigures* p, const DesignFigures* q) {
    return fom ? p->fom() > q->fom() : p->tokens_per_second > q->tokens_per_second;
  });
  pts.resize(std::min(pts.size(), n));
  return pts;
}

// The table's rows: the first space's four best, each other space's best.
std::vector<const DesignFigures*> table_rows(const std::vector<DesignFigures>& figs) { return best_designs(figs, 4); }

// The best value of `metric` (least) among a space's designs that meet `cap` on `capped`.
const DesignFigures* least_under_cap(const std::vector<const DesignFigures*>& pts,
                                     double (*metric)(const DesignFigures&), double (*capped)(const DesignFigures&),
                                     double cap) {
  const DesignFigures* best = nullptr;
  for (const auto* f : pts)
    if (f->power_mw > 0 && capped(*f) <= cap && (!best || metric(*f) < metric(*best))) best = f;
  return best;
}

double cycles_of(const DesignFigures& f) { return f.cycles; }
double power_of(const DesignFigures& f) { return f.power_mw; }

// One of the paper's comparisons of two spaces: the least `metric` among each space's designs
// that meet a cap on another figure; ratio = theirs / ours (above 1: ours is better).
struct CapComparison {
  std::string metric_name, unit, cap_name;
  double cap = 0;
  const DesignFigures *ours = nullptr, *theirs = nullptr;
  double (*metric)(const DesignFigures&) = nullptr;
  double ratio() const { return ours && theirs ? metric(*theirs) / metric(*ours) : 0; }
};

std::vector<CapComparison> compare_spaces(const std::vector<DesignFigures>& figs, const std::string& ours,
                                          const std::string& theirs, const SpaceComparisons& c) {
  const auto a = of_space(figs, ours), b = of_space(figs, theirs);
  CapComparison speed{"cycles", "cycles", "power_cap_mw", c.power_cap_mw};
  speed.metric = cycles_of;
  speed.ours = least_under_cap(a, cycles_of, power_of, c.power_cap_mw);
  speed.theirs = least_under_cap(b, cycles_of, power_of, c.power_cap_mw);
  CapComparison power{"power", "mW", "cycle_cap", c.cycle_cap};
  power.metric = power_of;
  power.ours = least_under_cap(a, power_of, cycles_of, c.cycle_cap);
  power.theirs = least_under_cap(b, power_of, cycles_of, c.cycle_cap);
  return {speed, power};
}

void print_comparisons(const std::vector<CapComparison>& cs, const std::string& ours, const std::string& theirs,
                       std::ostream& out) {
  out << ours << " against " << theirs << ":\n";
  for (const CapComparison& c : cs) {
    out << "  least " << c.metric_name << " at "
        << (c.cap_name == "power_cap_mw" ? "a power cap of " : "a cycle cap of ") << std::setprecision(4) << c.cap
        << (c.cap_name == "power_cap_mw" ? " mW" : " cycles") << ": ";
    if (!c.ours || !c.theirs) {
      out << (c.ours ? theirs : ours) << " has no design within the cap\n";
      continue;
    }
    out << c.metric(*c.ours) << " " << c.unit << " (" << c.ours->design->name << ") against " << c.metric(*c.theirs)
        << " " << c.unit << " (" << c.theirs->design->name << "): " << std::setprecision(3) << c.ratio() << "x "
        << (c.metric_name == "cycles" ? "faster" : "less power") << "\n";
  }
}

void print_counts(const std::vector<DesignRecord>& designs, const std::vector<std::string>& spaces, std::ostream& out) {
  out << "designs recorded: " << designs.size() << "\n";
  for (const auto& space : spaces) {
    std::map<std::string, uint64_t> by_status;
    uint64_t n = 0;
    for (const auto& d : designs)
      if (d.space == space) ++by_status[d.status], ++n;
    out << "  space " << space << ": " << n;
    for (const auto& [status, count] : by_status) out << ", " << status << " " << count;
    out << "\n";
  }
}

void print_models(const std::vector<DesignFigures>& figs, std::ostream& out) {
  out << "timing: fsgen fast model (the controller's schedule, each phase timed whole; sparse designs from their "
         "benchmarks' zero statistics)\n";
  const DesignRecord& d = *figs.front().design;
  out << "area: " << (d.area_um2 > 0 ? d.area_model : "not estimated (give --power-model)") << "\n";
  out << "power: "
      << (d.results.front().power_mw > 0 ? d.results.front().power_model : "not estimated (give --power-model)")
      << "\nclock: tokens/s at each design's spec clock; MHz in the table: "
      << (d.max_clock_mhz > 0 ? d.clock_model.substr(0, d.clock_model.find(':')) + " (its slowest block's worst path)"
                              : std::string("the spec clock (max clock not estimated: train the primitive models with "
                                            "fsgen train --timing)"))
      << "\n";
  double worst = 0;
  const DesignRecord* at = nullptr;
  for (const auto& f : figs)
    if (!f.design->power_sample.empty() && std::abs(f.design->sample_cycle_error) >= std::abs(worst))
      worst = f.design->sample_cycle_error, at = f.design;
  if (at)
    out << "fast model against the cycle model on the power samples: at most " << std::showpos << std::setprecision(3)
        << worst << std::noshowpos << " % (" << at->name << ", " << at->power_sample << ")\n";
}

// Table 1's MHz: the timing model's max clock where it was estimated, else the spec's clock.
double table_mhz(const DesignRecord& d) { return d.max_clock_mhz > 0 ? d.max_clock_mhz : d.clock_mhz; }

void print_table(const std::vector<const DesignFigures*>& rows, std::ostream& out) {
  out << "best designs (by FoM = tokens/s / W / mm2 where power and area are estimated, else by tokens/s):\n"
      << "  " << std::left << std::setw(18) << "design" << std::right << std::setw(12) << "tokens/s" << std::setw(9)
      << "mm2" << std::setw(10) << "mW" << std::setw(7) << "MHz" << std::setw(8) << "util %" << std::setw(12) << "FoM"
      << "  PEs\n";
  for (const auto* f : rows)
    out << "  " << std::left << std::setw(18) << f->design->name << std::right << std::fixed << std::setprecision(1)
        << std::setw(12) << f->tokens_per_second << std::setprecision(3) << std::setw(9) << f->area_mm2
        << std::setprecision(1) << std::setw(10) << f->power_mw << std::setprecision(0) << std::setw(7)
        << table_mhz(*f->design) << std::setprecision(1) << std::setw(8) << 100 * f->utilisation << std::setprecision(1)
        << std::setw(12) << f->fom() << "  " << f->design->pes << "\n"
        << std::defaultfloat;
  for (const auto* f : rows)
    if (f->design->max_clock_mhz > 0)
      out << "  " << f->design->name << " max clock: " << f->design->clock_model << "\n";
  // Where each design's power goes, on its first benchmark.
  for (const auto* f : rows) {
    const BenchmarkResult& r = f->design->results.front();
    if (!r.power_by_block.empty())
      out << "  " << f->design->name << " mW by block (" << r.benchmark << "): " << r.power_by_block << "\n";
  }
}

void print_best_per_benchmark(const std::vector<DesignFigures>& figs, std::ostream& out) {
  std::map<std::string, std::pair<double, const DesignRecord*>> best;
  for (const auto& f : figs)
    for (const auto& r : f.design->results) {
      auto& b = best[r.benchmark];
      if (r.tokens_per_second > b.first) b = {r.tokens_per_second, f.design};
    }
  out << "best per benchmark (tokens/s at the design's clock):\n";
  for (const auto& [bench, b] : best)
    out << "  " << std::left << std::setw(44) << bench << std::right << std::setw(12) << std::fixed
        << std::setprecision(1) << b.first << std::defaultfloat << "  " << b.second->name << " (" << b.second->pes
        << " PEs)\n";
}

}  // namespace

std::vector<const DesignFigures*> best_designs(const std::vector<DesignFigures>& figs, size_t first_count) {
  std::vector<std::string> spaces;
  for (const auto& f : figs)
    if (std::find(spaces.begin(), spaces.end(), f.design->space) == spaces.end()) spaces.push_back(f.design->space);
  std::vector<const DesignFigures*> rows;
  for (size_t i = 0; i < spaces.size(); ++i)
    for (const auto* f : best_of(of_space(figs, spaces[i]), i == 0 ? first_count : 1)) rows.push_back(f);
  return rows;
}

std::vector<DesignFigures> figures_of(const std::vector<DesignRecord>& designs) {
  std::vector<DesignFigures> out;
  for (const auto& d : designs)
    if (d.status == "ok") out.push_back(figures(d));
  return out;
}

void print_explore_report(const std::vector<DesignRecord>& designs, const SpaceComparisons& c, std::ostream& out) {
  const std::vector<std::string> spaces = spaces_of(designs);
  print_counts(designs, spaces, out);
  const std::vector<DesignFigures> figs = figures_of(designs);
  if (figs.empty()) return;
  print_models(figs, out);
  print_best_per_benchmark(figs, out);
  print_table(table_rows(figs), out);
  const auto firsts = best_of(of_space(figs, spaces.front()), 1);
  for (size_t i = 1; i < spaces.size(); ++i) {
    const auto theirs = best_of(of_space(figs, spaces[i]), 1);
    if (!firsts.empty() && !theirs.empty() && theirs.front()->fom() > 0)
      out << "best FoM of " << spaces.front() << " over " << spaces[i] << ": " << std::setprecision(3)
          << firsts.front()->fom() / theirs.front()->fom() << "x\n";
    if (std::any_of(figs.begin(), figs.end(), [](const DesignFigures& f) { return f.power_mw > 0; }))
      print_comparisons(compare_spaces(figs, spaces.front(), spaces[i], c), spaces.front(), spaces[i], out);
    else
      out << spaces.front() << " against " << spaces[i] << ": the comparisons need power (give --power-model)\n";
  }
  for (const FrontAxes& a : front_axes()) {
    out << "front " << a.name << " (" << a.y_label << " against " << a.x_label << "):";
    for (const auto& space : spaces) out << " " << space << " " << pareto(of_space(figs, space), a).size();
    out << " designs\n";
  }
  out << std::defaultfloat;
}

nlohmann::json explore_report_json(const std::vector<DesignRecord>& designs, const SpaceComparisons& c) {
  nlohmann::json j;
  const std::vector<std::string> spaces = spaces_of(designs);
  const std::vector<DesignFigures> figs = figures_of(designs);
  j["spaces"] = spaces;
  j["comparisons"] = {{"power_cap_mw", c.power_cap_mw}, {"cycle_cap", c.cycle_cap}};
  for (const auto& d : designs) {
    nlohmann::json e = {{"name", d.name},
                        {"space", d.space},
                        {"hash", d.hash},
                        {"status", d.status},
                        {"reason", d.reason},
                        {"pes", d.pes},
                        {"clock_mhz", d.clock_mhz},
                        {"max_clock_mhz", d.max_clock_mhz},
                        {"clock_model", d.clock_model},
                        {"area_um2", d.area_um2},
                        {"area_model", d.area_model},
                        {"power_sample", d.power_sample},
                        {"sample_cycle_error_percent", d.sample_cycle_error}};
    for (const auto& r : d.results)
      e["results"].push_back({{"benchmark", r.benchmark},
                              {"timing_model", r.timing_model},
                              {"cycles", r.cycles},
                              {"tokens_per_second", r.tokens_per_second},
                              {"dma_bytes", r.dma_bytes},
                              {"least_bytes", r.least_bytes},
                              {"roofline_cycles", r.roofline_cycles},
                              {"array_a_busy", r.array_a_busy},
                              {"power_mw", r.power_mw},
                              {"power_model", r.power_model},
                              {"power_by_block_mw", r.power_by_block}});
    j["designs"].push_back(e);
  }
  for (const auto* f : table_rows(figs))
    j["table"].push_back({{"design", f->design->name},
                          {"space", f->design->space},
                          {"tokens_per_second", f->tokens_per_second},
                          {"area_mm2", f->area_mm2},
                          {"power_mw", f->power_mw},
                          {"clock_mhz", f->design->clock_mhz},
                          {"max_clock_mhz", f->design->max_clock_mhz},
                          {"utilisation", f->utilisation},
                          {"fom", f->fom()}});
  for (const FrontAxes& a : front_axes())
    for (const auto& space : spaces)
      for (const auto* f : pareto(of_space(figs, space), a)) j["fronts"][a.name][space].push_back(f->design->name);
  for (size_t i = 1; i < spaces.size(); ++i)
    for (const CapComparison& cc : compare_spaces(figs, spaces.front(), spaces[i], c))
      j["comparisons"]["against"][spaces[i]][cc.metric_name] = {
          {"cap", cc.cap},
          {"ours", cc.ours ? nlohmann::json(cc.ours->design->name) : nlohmann::json()},
          {"theirs", cc.theirs ? nlohmann::json(cc.theirs->design->name) : nlohmann::json()},
          {"ours_value", cc.ours ? cc.metric(*cc.ours) : 0.0},
          {"theirs_value", cc.theirs ? cc.metric(*cc.theirs) : 0.0},
          {"ratio", cc.ratio()}};
  return j;
}

namespace {

// Runs a gnuplot script that draws to `tmp` (its 'set output'), then moves it to `png`.
void draw_png(const std::string& script, const std::string& tmp, const std::string& png) {
  const CommandResult r = run_command("echo " + shell_quote(script) + " | " + shell_quote(require_tool("gnuplot")));
  if (r.status != 0 || !std::filesystem::exists(tmp)) fail("gnuplot", "could not draw " + png + ": " + r.output);
  std::filesystem::rename(tmp, png);
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// A front's data as gnuplot index blocks (per space: its designs, then its front by x) and
// its PNG, one colour per space.
void write_front(const std::vector<DesignFigures>& figs, const std::vector<std::string>& spaces, const FrontAxes& a,
                 const std::string& dir) {
  const std::string dat = dir + "/front_" + a.name + ".dat", png = dir + "/front_" + a.name + ".png";
  write_file_atomically(dat, "front data", [&](std::ostream& o) {
    o << std::setprecision(10);
    for (const auto& space : spaces) {
      o << "# " << space << ": designs\n";
      for (const auto* f : of_space(figs, space))
        if (has_axes(*f, a)) o << a.x(*f) << " " << a.y(*f) << " " << f->design->name << "\n";
      o << "\n\n# " << space << ": front\n";
      for (const auto* f : pareto(of_space(figs, space), a))
        o << a.x(*f) << " " << a.y(*f) << " " << f->design->name << "\n";
      o << "\n\n";
    }
  });
  std::string plot;
  for (size_t i = 0; i < spaces.size(); ++i) {
    const std::string colour = " lc " + std::to_string(i + 1);
    plot += (i ? ", " : "") + quoted(dat) + " index " + std::to_string(2 * i) + " using 1:2 with points pt 7 ps 0.5" +
            colour + " title " + quoted(spaces[i]) + ", " + quoted(dat) + " index " + std::to_string(2 * i + 1) +
            " using 1:2 with linespoints pt 7 lw 2" + colour + " title " + quoted(spaces[i] + " front");
  }
  const std::string tmp = png + ".tmp.png";
  draw_png("set terminal pngcairo size 900,600 noenhanced; set output " + quoted(tmp) + "; set xlabel " +
               quoted(a.x_label) + "; set ylabel " + quoted(a.y_label) + "; set logscale xy; set key outside; " +
               "set title " + quoted(std::string("fsgen explore: ") + a.title) + "; plot " + plot,
           tmp, png);
}

void write_designs_csv(const std::vector<DesignFigures>& figs, const std::vector<std::string>& spaces,
                       const std::string& path) {
  std::map<std::string, std::vector<const DesignFigures*>> fronts;
  for (const FrontAxes& a : front_axes())
    for (const auto& space : spaces)
      for (const auto* f : pareto(of_space(figs, space), a)) fronts[a.name].push_back(f);
  write_file_atomically(path, "design figures", [&](std::ostream& o) {
    o << "space,design,pes,clock_mhz,max_clock_mhz,area_mm2,power_mw,cycles,tokens_per_second,tokens_per_joule,fom,"
         "utilisation";
    for (const FrontAxes& a : front_axes()) o << ",front_" << a.name;
    o << "\n" << std::setprecision(10);
    for (const auto& f : figs) {
      o << f.design->space << "," << f.design->name << "," << f.design->pes << "," << f.design->clock_mhz << ","
        << f.design->max_clock_mhz << "," << f.area_mm2 << "," << f.power_mw << "," << f.cycles << ","
        << f.tokens_per_second << "," << f.tokens_per_joule() << "," << f.fom() << "," << f.utilisation;
      for (const FrontAxes& a : front_axes()) {
        const auto& fr = fronts[a.name];
        o << "," << (std::find(fr.begin(), fr.end(), &f) != fr.end() ? 1 : 0);
      }
      o << "\n";
    }
  });
}

// A benchmark key's model, stage and context ("Llama-2-7b decode 512"), for a plot's axis.
std::string short_label(const std::string& key) {
  const SpaceBenchmark b = benchmark_of_key(key);
  return b.model + " " + b.stage + " " + std::to_string(b.context);
}

// Tokens/s per benchmark of the table's designs (the paper's Fig. 7): a CSV with a column per
// design and a bar chart.
void write_benchmarks(const std::vector<const DesignFigures*>& rows, const std::string& dir) {
  const std::string csv = dir + "/benchmarks.csv", png = dir + "/benchmarks.png";
  std::vector<std::string> benches;
  for (const auto* f : rows)
    for (const auto& r : f->design->results)
      if (std::find(benches.begin(), benches.end(), r.benchmark) == benches.end()) benches.push_back(r.benchmark);
  write_file_atomically(csv, "tokens/s per benchmark", [&](std::ostream& o) {
    o << "benchmark,label";
    for (const auto* f : rows) o << "," << f->design->name;
    o << "\n" << std::setprecision(10);
    for (const auto& b : benches) {
      o << b << "," << short_label(b);
      for (const auto* f : rows) {
        double t = 0;
        for (const auto& r : f->design->results)
          if (r.benchmark == b) t = r.tokens_per_second;
        o << "," << t;
      }
      o << "\n";
    }
  });
  std::string plot;
  for (size_t i = 0; i < rows.size(); ++i)
    plot += std::string(i ? ", " : "") + quoted(csv) + " using " + std::to_string(i + 3) + (i ? "" : ":xtic(2)") +
            " title " + quoted(rows[i]->design->name);
  const std::string tmp = png + ".tmp.png";
  draw_png("set terminal pngcairo size 1100,600 noenhanced; set output " + quoted(tmp) +
               "; set datafile separator ','; set style data histograms; set style histogram clustered; "
               "set style fill solid 0.8; set logscale y; set key outside; set xtics rotate by -30; "
               "set ylabel 'tokens/s (fsgen fast model, at the design clock)'; "
               "set title 'fsgen explore: tokens/s per benchmark of the best designs'; plot " +
               plot,
           tmp, png);
}

}  // namespace

void write_explore_plots(const std::vector<DesignRecord>& designs, const std::string& dir) {
  const std::vector<DesignFigures> figs = figures_of(designs);
  if (figs.empty()) fail(dir, "no design ran: nothing to draw");
  std::filesystem::create_directories(dir);
  const std::vector<std::string> spaces = spaces_of(designs);
  write_designs_csv(figs, spaces, dir + "/designs.csv");
  for (const FrontAxes& a : front_axes())
    if (std::any_of(figs.begin(), figs.end(), [&](const DesignFigures& f) { return has_axes(f, a); }))
      write_front(figs, spaces, a, dir);
  write_benchmarks(table_rows(figs), dir);
}

}  // namespace fsgen
