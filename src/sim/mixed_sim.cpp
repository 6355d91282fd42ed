#include "sim/mixed_sim.h"

#include <filesystem>
#include <regex>
#include <set>

#include "core/error.h"
#include "flow/rtl_block.h"
#include "flow/tools.h"
#include "flow/verilator.h"
#include "models/platform.h"

namespace fsgen {

namespace fs = std::filesystem;

std::vector<RtlChoice> parse_rtl_choices(const std::string& text, const Graph& g) {
  std::vector<RtlChoice> choices;
  std::set<std::string> seen;
  auto add = [&](RtlChoice c) {
    if (!seen.insert(c.block).second) fail("--rtl", "block " + c.block + " is named twice");
    choices.push_back(std::move(c));
  };
  size_t from = 0;
  for (;;) {
    const size_t comma = text.find(',', from);
    const std::string item = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    const size_t eq = item.find('=');
    RtlChoice c{item.substr(0, eq), eq == std::string::npos ? "" : item.substr(eq + 1)};
    if (c.block.empty() || (eq != std::string::npos && c.verilog.empty()))
      fail("--rtl", "expected block[=file.v], arrays or core, separated by commas, got '" + text + "'");
    if (c.block == kWholeCore && !c.verilog.empty())
      fail("--rtl core=" + c.verilog,
           "the whole core is built from the design's generated Verilog; a file of your own replaces one block "
           "(--rtl array_a=my.v)");
    if (c.block == "arrays" && c.verilog.empty()) {
      const size_t before = choices.size();
      for (const std::string& b : rtl_capable_blocks(g))
        if (b.rfind("array_", 0) == 0) add({b, ""});
      if (choices.size() == before) fail("--rtl arrays", "design " + g.spec.name + " has no array that can run as RTL");
    } else {
      add(std::move(c));
    }
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (choices.size() > 1 && seen.count(kWholeCore))
    fail("--rtl " + text, "core is the whole core as RTL: name it alone");
  return choices;
}

std::string why_not_rtl(const Graph& g, const std::string& block) {
  if (block == kWholeCore) return "";
  if (!g.has_block(block)) return "design " + g.spec.name + " has no such block";
  const std::string& kind = g.block(block).kind;
  if (block == "array_a" && g.array_a.sparse.skips_steps())
    return "array a streams through value networks that skip steps (sparse_net), which have no mixed-level model "
           "yet; --rtl core runs them in the whole core";
  if (block != "array_a" && block != "array_b" && block != "softmax" && block != "dma")
    return "a " + kind + " has no mixed-level model yet";
  return "";
}

std::vector<std::string> rtl_capable_blocks(const Graph& g) {
  std::vector<std::string> capable;
  for (const Block& b : g.blocks)
    if (why_not_rtl(g, b.name).empty()) capable.push_back(b.name);
  capable.push_back(kWholeCore);
  return capable;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "none" : s;
}

// The module a user's file defines for the block: the generated module's name if it has one
// of that name, else its first module.
std::string module_in_file(const std::string& path, const std::string& generated) {
  const std::string text = read_text_file(path);
  static const std::regex decl(R"(\bmodule\s+([A-Za-z_][A-Za-z0-9_$]*))");
  std::string first;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator(); ++it) {
    if ((*it)[1] == generated) return generated;
    if (first.empty()) first = (*it)[1];
  }
  if (first.empty()) fail(path, "no module in the file (--rtl expected the Verilog of a block)");
  return first;
}

// Only the parameters the user's module declares are set (Verilator refuses unknown ones).
std::map<std::string, int64_t> declared_params(const std::string& path, const std::map<std::string, int64_t>& all) {
  const std::string text = read_text_file(path);
  std::map<std::string, int64_t> kept;
  for (const auto& [name, value] : all)
    if (std::regex_search(text, std::regex("\\bparameter\\b[^;,)]*\\b" + name + "\\b"))) kept[name] = value;
  return kept;
}

RtlBlockSource source_of(const Graph& g, const RtlChoice& c, const std::string& design_dir) {
  const std::optional<ArrayInstance> inst = block_instance(g, c.block);
  FSGEN_ASSERT(inst, "an RTL-capable block without an RTL instance");
  RtlBlockSource s;
  s.include_dir = design_dir;
  if (c.verilog.empty()) {
    s.module = inst->module;
    s.params = inst->params;
    s.verilog = {(fs::path(design_dir) / (inst->module + ".v")).string()};
    return s;
  }
  if (!fs::exists(c.verilog)) fail(c.verilog, "no such Verilog file (--rtl " + c.block + "=...)");
  s.module = module_in_file(c.verilog, inst->module);
  s.params = declared_params(c.verilog, inst->params);
  s.verilog = {fs::absolute(c.verilog).string()};
  return s;
}

// The whole core: fsgen_top and every module of the design, its probed registers readable.
RtlBlockSource core_source(const std::string& design_dir) {
  RtlBlockSource s;
  s.module = "fsgen_top";
  s.include_dir = design_dir;
  s.probes_header = (fs::path(design_dir) / "probes.h").string();
  s.verilog = {(fs::path(design_dir) / "fsgen_top.v").string()};
  std::vector<std::string> others;
  for (const auto& e : fs::directory_iterator(design_dir))
    if (e.path().extension() == ".v" && e.path().filename() != "fsgen_top.v") others.push_back(e.path().string());
  std::sort(others.begin(), others.end());
  s.verilog.insert(s.verilog.end(), others.begin(), others.end());
  return s;
}

}  // namespace

SimOptions build_rtl_options(const Graph& g, const std::vector<RtlChoice>& choices, const std::string& rtl_root) {
  for (const RtlChoice& c : choices) {
    const std::string why = why_not_rtl(g, c.block);
    if (!why.empty())
      fail("--rtl " + c.block,
           why + "; blocks of " + g.spec.name + " that can run as RTL: " + joined(rtl_capable_blocks(g)));
  }
  const std::string design_dir = update_design_folder(g, rtl_root);
  const std::string work = (fs::path(design_dir) / "rtl_blocks").string();
  SimOptions o;
  for (const RtlChoice& c : choices) {
    if (c.block == kWholeCore)
      o.core = build_rtl_block(core_source(design_dir), work);
    else
      o.rtl[c.block] = build_rtl_block(source_of(g, c, design_dir), work);
  }
  return o;
}

namespace {

// Each RTL block: its ports' toggles against the all-model run's probes of the same ports,
// and its outputs against its model's.
void compare_rtl_blocks(const RunResult& sc, const RunResult& mixed, CosimReport& rep) {
  for (const RtlBlockRun& b : mixed.rtl_blocks) {
    if (b.block == kWholeCore) continue;  // the table's own rows check it: outputs, cycles, every probe
    const std::string name = b.block + (b.part.empty() ? "" : " (" + b.part + ")");
    for (const ToggleProbe& port : b.ports) {
      const ToggleProbe* model = sc.find_probe(b.block, port.port());
      if (!model) continue;  // a port the model does not probe (control, read-out)
      const bool totals_only =
          std::find(b.totals_only.begin(), b.totals_only.end(), port.port()) != b.totals_only.end();
      const std::string diff = totals_only ? "in total" : first_event_difference(*model, port);
      rep.checks.push_back({"RTL port toggles " + name + "." + port.port() + (diff.empty() ? "" : " (" + diff + ")"),
                            std::to_string(model->toggles()), std::to_string(port.toggles()),
                            model->toggles() == port.toggles() && (totals_only || diff.empty())});
    }
    rep.checks.push_back({"RTL " + name + " outputs, every cycle", "model",
                          b.first_mismatch.empty() ? "equal (" + std::to_string(b.clocked_cycles) + " cycles clocked)"
                                                   : "first differs: " + b.first_mismatch,
                          b.first_mismatch.empty()});
  }
}

}  // namespace

CosimReport run_mixed(const Graph& g, const Program& p, const std::vector<uint8_t>& expected,
                      const std::vector<RtlChoice>& choices, const std::string& rtl_root) {
  const SimOptions mixed_options = build_rtl_options(g, choices, rtl_root);
  const RunResult sc = run_on_systemc(g, p);
  const RunResult mixed = run_on_systemc(g, p, mixed_options);
  CosimReport rep = compare_runs(g, p, expected, sc, mixed);
  std::vector<std::string> names;
  for (const RtlChoice& c : choices) names.push_back(c.block);
  rep.other = "mixed (" + joined(names) + " RTL)";
  compare_rtl_blocks(sc, mixed, rep);
  return rep;
}

}  // namespace fsgen
