#include "power/power_model.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "core/csv.h"
#include "core/error.h"
#include "core/json_file.h"
#include "core/statistics.h"
#include "core/write_file.h"
#include "power/controller_events.h"
#include "power/techmap.h"

namespace fsgen {

namespace {

void check_xgb(int status, const std::string& what) {
  if (status != 0) fail("xgboost", what + ": " + XGBGetLastError());
}

struct Matrix {
  DMatrixHandle h = nullptr;
  Matrix(const std::vector<float>& x, size_t cols) {
    check_xgb(XGDMatrixCreateFromMat(x.data(), x.size() / cols, cols, NAN, &h), "matrix");
  }
  ~Matrix() { XGDMatrixFree(h); }
};

}  // namespace

Booster::Booster() { check_xgb(XGBoosterCreate(nullptr, 0, &handle_), "create booster"); }
Booster::~Booster() { XGBoosterFree(handle_); }

void Booster::train(const std::vector<float>& x, const std::vector<float>& y, size_t cols, int rounds) {
  XGBoosterFree(handle_);
  Matrix m(x, cols);
  check_xgb(XGDMatrixSetFloatInfo(m.h, "label", y.data(), y.size()), "labels");
  check_xgb(XGBoosterCreate(&m.h, 1, &handle_), "create booster");
  // One thread: a primitive's few hundred rows give its threads too little work each round,
  // and their OpenMP spin-waits made the training of the shipped dataset 11 s instead of
  // 1.7 s on a busy machine (the same trees either way).
  for (const auto& [k, v] : std::map<std::string, std::string>{
           {"objective", "reg:squarederror"}, {"max_depth", "6"}, {"eta", "0.1"}, {"nthread", "1"}, {"seed", "1"}})
    check_xgb(XGBoosterSetParam(handle_, k.c_str(), v.c_str()), "parameter " + k);
  for (int i = 0; i < rounds; ++i) check_xgb(XGBoosterUpdateOneIter(handle_, i, m.h), "training round");
}

std::vector<float> Booster::predict(const std::vector<float>& x, size_t cols) const {
  Matrix m(x, cols);
  bst_ulong len = 0;
  const float* out = nullptr;
  check_xgb(XGBoosterPredict(handle_, m.h, 0, 0, 0, &len, &out), "predict");
  return std::vector<float>(out, out + len);
}

std::string Booster::to_json() const {
  bst_ulong len = 0;
  const char* buf = nullptr;
  check_xgb(XGBoosterSaveModelToBuffer(handle_, "{\"format\": \"json\"}", &len, &buf), "save");
  return std::string(buf, len);
}

void Booster::from_json(const std::string& json) {
  check_xgb(XGBoosterLoadModelFromBuffer(handle_, json.data(), json.size()), "load");
}

TreeEnsemble::TreeEnsemble(const nlohmann::json& booster) {
  try {
    const auto& learner = booster.at("learner");
    if (learner.at("objective").at("name") != "reg:squarederror") fail("power model", "expected a reg:squarederror booster");
    const auto& param = learner.at("learner_model_param");
    base_score_ = float(parse_finite(param.at("base_score").get<std::string>(), "power model", "base_score"));
    features_ = parse_count(param.at("num_feature").get<std::string>(), "power model", "num_feature");
    for (const auto& t : learner.at("gradient_booster").at("model").at("trees")) {
      const auto &left = t.at("left_children"), &right = t.at("right_children"), &split = t.at("split_indices");
      const auto &condition = t.at("split_conditions"), &default_left = t.at("default_left");
      const size_t n = left.size();
      if (n == 0 || right.size() != n || split.size() != n || condition.size() != n || default_left.size() != n)
        fail("power model", "a tree's node arrays differ in length or are empty");
      const int32_t root = int32_t(nodes_.size());
      roots_.push_back(root);
      for (size_t i = 0; i < n; ++i) {
        const int64_t l = left.at(i).get<int64_t>(), r = right.at(i).get<int64_t>(),
                      feature = split.at(i).get<int64_t>();
        // A leaf has no children (-1, -1); a split's children follow it (XGBoost numbers them
        // after their parent), so no walk can loop.
        const bool leaf = l == -1 && r == -1;
        const auto child = [&](int64_t c) { return c > int64_t(i) && c < int64_t(n); };
        if (!leaf && (!child(l) || !child(r) || feature < 0 || uint64_t(feature) >= features_))
          fail("power model", "tree node " + std::to_string(i) + " refers to a node or feature it does not have");
        const float value = condition.at(i).get<float>();
        if (!std::isfinite(value))
          fail("power model", "tree node " + std::to_string(i) + " has a value that is not finite");
        nodes_.push_back({leaf ? -1 : root + int32_t(l), leaf ? -1 : root + int32_t(r), value,
                          leaf ? 0u : uint32_t(feature), default_left.at(i).get<int>() != 0});
      }
    }
  } catch (const nlohmann::json::exception& e) {
    fail("power model", std::string("unexpected XGBoost model layout: ") + e.what());
  }
  conditions_.resize(features_);
  for (const Node& n : nodes_)
    if (n.left >= 0) conditions_[n.feature].push_back(n.value);
  for (auto& c : conditions_) {
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
  }
}

TreeEnsemble TreeEnsemble::with_fixed(const std::vector<float>& fixed) const {
  FSGEN_ASSERT(fixed.size() <= features_, "fewer fixed features than the trees have");
  TreeEnsemble t;
  t.base_score_ = base_score_;
  t.features_ = features_;
  t.conditions_ = conditions_;
  for (const int32_t root : roots_) t.roots_.push_back(copy_taking_fixed(root, fixed, t.nodes_));
  return t;
}

int32_t TreeEnsemble::copy_taking_fixed(int32_t i, const std::vector<float>& fixed, std::vector<Node>& out) const {
  for (const Node* n = &nodes_[size_t(i)]; n->left >= 0 && n->feature < fixed.size(); n = &nodes_[size_t(i)]) {
    const float v = fixed[n->feature];
    i = std::isnan(v) ? (n->default_left ? n->left : n->right) : v < n->value ? n->left : n->right;
  }
  const int32_t at = int32_t(out.size());
  out.push_back(nodes_[size_t(i)]);
  if (nodes_[size_t(i)].left >= 0) {
    const int32_t left = copy_taking_fixed(nodes_[size_t(i)].left, fixed, out);
    const int32_t right = copy_taking_fixed(nodes_[size_t(i)].right, fixed, out);
    out[size_t(at)].left = left;
    out[size_t(at)].right = right;
  }
  return at;
}

uint32_t TreeEnsemble::interval(size_t feature, float v) const {
  if (std::isnan(v)) return UINT32_MAX;
  const std::vector<float>& c = conditions_[feature];
  return uint32_t(std::upper_bound(c.begin(), c.end(), v) - c.begin());  // conditions <= v: v < each of the others
}

std::vector<float> TreeEnsemble::predict_rows(const float* x, size_t rows) const {
  std::vector<float> sum(rows, 0.0f);
  for (const int32_t root : roots_)
    for (size_t r = 0; r < rows; ++r) {
      const float* row = x + r * features_;
      int32_t i = root;
      while (nodes_[size_t(i)].left >= 0) {
        const Node& n = nodes_[size_t(i)];
        const float v = row[n.feature];
        i = std::isnan(v) ? (n.default_left ? n.left : n.right) : v < n.value ? n.left : n.right;
      }
      sum[r] += nodes_[size_t(i)].value;
    }
  for (float& s : sum) s += base_score_;
  return sum;
}

namespace {

constexpr const char* kFormat = "fsgen-power-model 9";

// The activity features of a primitive's model, after its hyperparameters.
std::vector<std::string> activity_features(const PrimitiveDef& def) {
  if (def.structural()) return {};
  std::vector<std::string> f = {"alpha", "enable", "zeros"};
  if (!def.side_enable.empty()) f.push_back("side");
  if (!def.factor_port.empty()) f.push_back("factor"), f.push_back("factor_ones");
  if (!def.state_register.empty()) f.push_back("state"), f.push_back("state_ones");
  return f;
}

// One row of activity features: alpha, enable, zeros, then side for a primitive with a
// side enable, factor and factor_ones for one with a factor port, state and state_ones for one
// with a state register, in that order (the row's first activity_features(def).size() entries
// are its features).
using ActivityRow = std::array<float, 8>;

ActivityRow activity_row(const PrimitiveDef& def, const PrimitiveActivity& a) {
  ActivityRow r{float(a.alpha), float(a.enable), float(a.zeros), 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  size_t at = 3;
  if (!def.side_enable.empty()) r[at++] = float(a.side);
  if (!def.factor_port.empty()) r[at++] = float(a.factor), r[at++] = float(a.factor_ones);
  if (!def.state_register.empty()) r[at++] = float(a.state), r[at++] = float(a.state_ones);
  return r;
}

PrimitiveActivity activity_of(const CharPoint& p) {
  return {p.alpha, p.enable, p.zeros, p.side, p.factor, p.state, p.state_ones, p.factor_ones};
}

std::vector<float> features_of(const PrimitiveDef& def, const CharPoint& p, size_t activity_columns) {
  std::vector<float> f(p.h.begin(), p.h.end());
  const ActivityRow a = activity_row(def, activity_of(p));
  f.insert(f.end(), a.begin(), a.begin() + long(activity_columns));
  return f;
}

// Least squares of value = a + b . terms (core/statistics.h: a vanishing ridge, so that
// fewer points than terms still give an answer).
LinearFit fit_least_squares(const std::vector<std::pair<std::vector<double>, double>>& pts) {
  const std::vector<double> c = least_squares_with_intercept(pts);
  LinearFit f;
  f.a = c.front();
  f.b.assign(c.begin() + 1, c.end());
  return f;
}

// The terms of PrimitivePowerModel::cycle_energy.
std::vector<double> cycle_terms(double enable, double side, double alpha) { return {enable, side, alpha}; }

std::map<std::vector<int>, LinearFit> fit_cycle_energy(const PrimitiveDef& def, const std::vector<const CharPoint*>& pts) {
  std::map<std::vector<int>, std::vector<std::pair<std::vector<double>, double>>> by_size;
  for (const CharPoint* p : pts)
    by_size[p->h].push_back({cycle_terms(p->enable, p->side, p->alpha), p->dynamic_fj / def.elements(p->h)});
  std::map<std::vector<int>, LinearFit> fits;
  for (const auto& [h, size_pts] : by_size) fits[h] = fit_least_squares(size_pts);
  return fits;
}

// The terms of PrimitivePowerModel::event_fj at hyperparameters h and one window's event
// rates (controller_events(kind) order): each event's rate, alone and times what its energy
// grows with, s_e (PrimitiveDef::event_size_terms; by default the primitive's first size
// term, the operand buffers' bytes: the write decoders and read multiplexers of a beat or a
// stream cycle grow with them). The first event, the cycles the kernel runs, is 1 in every
// window: its energy is the fit's a, and s_0 alone.
std::vector<double> event_terms(const PrimitiveDef& def, const std::vector<int>& h, const std::vector<double>& rates) {
  const std::vector<double> growth = controller_event_growth(def, h);
  FSGEN_ASSERT(rates.size() == growth.size(), "a rate per controller event");
  std::vector<double> t = {growth.front()};
  for (size_t e = 1; e < rates.size(); ++e) t.push_back(rates[e]), t.push_back(rates[e] * growth[e]);
  return t;
}

using FitPoints = std::vector<std::pair<std::vector<double>, double>>;

// PrimitivePowerModel::idle_writes_fj: per size, a = the mean of its idle points without
// factor writes (the quiet cycle, measured), b = the least-squares slope of the others'
// energy above it over their factor toggles (0 for a size without them).
std::map<std::vector<int>, LinearFit> fit_idle_writes(const PrimitiveDef& def, const std::vector<const CharPoint*>& pts) {
  std::map<std::vector<int>, std::vector<const CharPoint*>> idle_of_size;
  for (const CharPoint* p : pts)
    if (p->enable_rate == 0 && p->events.empty()) idle_of_size[p->h].push_back(p);
  std::map<std::vector<int>, LinearFit> fits;
  for (const auto& [h, idle] : idle_of_size) {
    const double elements = def.elements(h);
    double quiet = 0, quiet_points = 0, fy = 0, ff = 0;
    for (const CharPoint* p : idle)
      if (p->factor == 0) quiet += p->dynamic_fj / elements, ++quiet_points;
    if (quiet_points == 0)
      fail("dataset", def.kind + " at " + hyperparameter_text(h, 'x') + ": expected an idle point without factor writes");
    quiet /= quiet_points;
    for (const CharPoint* p : idle) fy += p->factor * (p->dynamic_fj / elements - quiet), ff += p->factor * p->factor;
    fits[h] = {quiet, {ff > 0 ? fy / ff : 0.0}};
  }
  return fits;
}

// A window in which the array neither streams nor rescales and its operands hold: the
// idle fit's (PrimitivePowerModel::idle_writes_fj).
bool holds_still(double alpha, double enable, double side) { return alpha == 0 && enable == 0 && side == 0; }

// The entry of a per-size fit at the characterised size nearest h: the least summed log
// ratio of its hyperparameters to h's.
template <class Fit>
const Fit& nearest_size(const std::map<std::vector<int>, Fit>& by_size, const std::vector<int>& h) {
  FSGEN_ASSERT(!by_size.empty(), "a per-size fit with at least one size");
  auto distance = [&](const std::vector<int>& size) {
    double d = 0;
    for (size_t i = 0; i < h.size() && i < size.size(); ++i)
      d += std::fabs(std::log(double(std::max(1, h[i])) / double(std::max(1, size[i]))));
    return d;
  };
  auto best = by_size.begin();
  for (auto it = by_size.begin(); it != by_size.end(); ++it)
    if (distance(it->first) < distance(best->first)) best = it;
  return best->second;
}

// The idle and factor writes' line at h (PrimitivePowerModel::idle_writes_fj), or none.
const LinearFit* idle_writes_at(const PrimitivePowerModel& m, const std::vector<int>& h) {
  return m.idle_writes_fj.empty() ? nullptr : &nearest_size(m.idle_writes_fj, h);
}

// What a window's trees do not learn, dynamic fJ per element: the activity fit's where the
// primitive has one (PrimitivePowerModel::activity_fj), else the factor writes' along the
// idle line's slope at h (0 without one).
double below_trees_fj(const PrimitiveDef& def, const PrimitivePowerModel& m, const std::vector<int>& h,
                      const PrimitiveActivity& a) {
  if (!m.activity_fj.b.empty()) return m.activity_fj.at(def.activity_terms(h, a));
  const LinearFit* idle = idle_writes_at(m, h);
  return idle ? idle->b.front() * a.factor : 0.0;
}

// Dynamic fJ per element of one window: the idle line's where it applies, else the trees'
// (trees_fj) plus what they did not learn (below_trees_fj).
double window_fj_per_element(const PrimitiveDef& def, const PrimitivePowerModel& m, const std::vector<int>& h,
                             double trees_fj, const PrimitiveActivity& a) {
  const LinearFit* idle = idle_writes_at(m, h);
  if (idle && holds_still(a.alpha, a.enable, a.side)) return idle->a + idle->b.front() * a.factor;
  return trees_fj + below_trees_fj(def, m, h, a);
}

// PrimitivePowerModel::activity_fj over the training points that are not idle.
LinearFit fit_activity_energy(const PrimitiveDef& def, const std::vector<const CharPoint*>& training) {
  FitPoints pts;
  std::vector<double> weights;
  for (const CharPoint* p : training) {
    if (holds_still(p->alpha, p->enable, p->side) || p->dynamic_fj <= 0) continue;
    pts.push_back({def.activity_terms(p->h, activity_of(*p)), p->dynamic_fj / def.elements(p->h)});
    weights.push_back(1.0 / pts.back().second);
  }
  const std::vector<double> c = least_squares_with_intercept(pts, weights);
  return {c.front(), std::vector<double>(c.begin() + 1, c.end())};
}

// The kernel points' fit (event_fj) and its quality, each training core left out in turn:
// the MAPE of its runs' average dynamic energy (idle included), the R of its windows'.
void train_events(const PrimitiveDef& def, const std::vector<const CharPoint*>& kernel_pts,
                  const std::map<std::vector<int>, double>& idle_of, PrimitivePowerModel& m) {
  std::map<std::vector<int>, std::vector<size_t>> points_of_core;  // indices into kernel_pts and all
  FitPoints all;
  for (const CharPoint* p : kernel_pts) {
    if (p->events.size() != controller_events(def.kind).size())
      fail("dataset", def.kind + " kernel point with " + std::to_string(p->events.size()) + " event rates, expected " +
                          std::to_string(controller_events(def.kind).size()) +
                          " (count them again with fsgen characterize --recount-events)");
    const auto idle = idle_of.find(p->h);
    if (idle == idle_of.end())
      fail("dataset", def.kind + " kernel points at " + hyperparameter_text(p->h, 'x') + " without its idle point");
    points_of_core[p->h].push_back(all.size());
    all.push_back({event_terms(def, p->h, p->events), p->dynamic_fj - idle->second});
  }
  m.event_fj = fit_least_squares(all);
  m.event_quality.train_points = all.size();
  if (points_of_core.size() < 3) return;  // too few cores to leave one out
  std::vector<double> got, want, run_got, run_want;
  for (const auto& [h, own] : points_of_core) {
    FitPoints others;
    for (const auto& [oh, indices] : points_of_core)
      if (oh != h)
        for (size_t i : indices) others.push_back(all[i]);
    const LinearFit f = fit_least_squares(others);
    const double idle = idle_of.at(h);
    std::map<uint64_t, std::pair<double, double>> run_sums;  // by kernel seed: predicted, golden
    for (size_t i : own) {
      got.push_back(idle + f.at(all[i].first)), want.push_back(idle + all[i].second);
      auto& r = run_sums[kernel_pts[i]->seed];
      r.first += got.back(), r.second += want.back();
    }
    for (const auto& [seed, r] : run_sums) run_got.push_back(r.first), run_want.push_back(r.second);
  }
  m.event_quality.test_points = got.size();
  m.event_quality.mape = mape_percent(run_got, run_want);
  m.event_quality.pearson = pearson_r(got, want);
}

// A structural primitive: least-squares fits of its idle energy, leakage and area over its
// sizes (one point each), scored by leaving each size out of the idle energy's fit in turn;
// with kernel points, its energy per event over them (train_events).
PrimitivePowerModel train_structural(const PrimitiveDef& def, const std::vector<const CharPoint*>& all_pts) {
  PrimitivePowerModel m;
  m.kind = def.kind;
  m.features = def.params;
  std::vector<const CharPoint*> pts, kernel_pts;
  for (const CharPoint* p : all_pts) (p->events.empty() ? pts : kernel_pts).push_back(p);
  std::map<std::vector<int>, double> idle_of;
  for (const CharPoint* p : pts) idle_of[p->h] = p->dynamic_fj;
  if (!kernel_pts.empty()) train_events(def, kernel_pts, idle_of, m);
  std::vector<std::pair<std::vector<double>, double>> idle, leak, area;
  for (const CharPoint* p : pts) {
    m.characterised_sizes.push_back(p->h);
    m.measured[p->h] = {p->dynamic_fj, p->leakage_mw, p->area_um2};
    const std::vector<double> terms = def.size_terms_at(p->h);
    idle.push_back({terms, p->dynamic_fj});
    leak.push_back({terms, p->leakage_mw});
    area.push_back({terms, p->area_um2});
  }
  m.idle_fj = fit_least_squares(idle);
  m.leakage_mw = fit_least_squares(leak);
  m.area_um2 = fit_least_squares(area);
  m.quality.train_points = idle.size();
  const size_t terms = idle.front().first.size() + 1;
  if (idle.size() <= terms) return m;  // too few sizes to leave one out
  std::vector<double> got, want;
  for (size_t i = 0; i < idle.size(); ++i) {
    std::vector<std::pair<std::vector<double>, double>> others = idle;
    others.erase(others.begin() + long(i));
    got.push_back(fit_least_squares(others).at(idle[i].first));
    want.push_back(idle[i].second);
  }
  m.quality.test_points = idle.size();
  m.quality.mape = mape_percent(got, want);
  m.quality.pearson = pearson_r(got, want);
  return m;
}

PrimitivePowerModel train_primitive(const std::string& kind, const std::vector<const CharPoint*>& pts, int rounds) {
  const PrimitiveDef& def = primitive_def(kind);
  for (const CharPoint* p : pts)
    if (p->h.size() != def.params.size()) fail("dataset", kind + " point with " + std::to_string(p->h.size()) + " hyperparameters");
  if (def.structural()) return train_structural(def, pts);
  PrimitivePowerModel m;
  m.kind = kind;
  m.features = def.params;
  const std::vector<std::string> activity = activity_features(def);
  m.features.insert(m.features.end(), activity.begin(), activity.end());
  const size_t cols = m.features.size();
  std::vector<float> xtr, ytr, xte;
  std::vector<double> yte, ete;
  std::vector<const CharPoint*> test_points;
  std::map<std::vector<int>, std::pair<double, double>> by_size;  // leakage, area
  if (!def.factor_port.empty()) m.idle_writes_fj = fit_idle_writes(def, pts);
  auto held_out = [](const CharPoint* p) { return std::hash<std::string>{}(p->key()) % 5 == 0; };
  if (def.activity_terms) {
    std::vector<const CharPoint*> training;
    for (const CharPoint* p : pts)
      if (!held_out(p)) training.push_back(p);
    m.activity_fj = fit_activity_energy(def, training);
  }
  for (const CharPoint* p : pts) {
    const double elements = def.elements(p->h);
    const auto f = features_of(def, *p, activity.size());
    const bool test = held_out(p);
    (test ? xte : xtr).insert((test ? xte : xtr).end(), f.begin(), f.end());
    if (test)
      yte.push_back(p->dynamic_fj), ete.push_back(elements), test_points.push_back(p);
    else
      ytr.push_back(float(p->dynamic_fj / elements - below_trees_fj(def, m, p->h, activity_of(*p))));
    by_size[p->h] = {p->leakage_mw, p->area_um2};
  }
  for (const auto& size : by_size) m.characterised_sizes.push_back(size.first);
  if (ytr.size() < 4) fail("dataset", kind + ": expected at least 4 training points, got " + std::to_string(ytr.size()));
  Booster booster;
  booster.train(xtr, ytr, cols, rounds);
  m.booster = nlohmann::json::parse(booster.to_json());
  m.trees = std::make_unique<TreeEnsemble>(m.booster);
  std::vector<std::pair<std::vector<double>, double>> leak, area;
  for (const auto& [h, la] : by_size) {
    leak.push_back({def.size_terms_at(h), la.first});
    area.push_back({def.size_terms_at(h), la.second});
  }
  m.leakage_mw = fit_least_squares(leak);
  m.area_um2 = fit_least_squares(area);
  if (def.side_opens_burst) m.cycle_energy = fit_cycle_energy(def, pts);
  m.quality.train_points = ytr.size();
  m.quality.test_points = yte.size();
  if (!yte.empty()) {
    const std::vector<float> pred = booster.predict(xte, cols);
    std::vector<double> got(yte.size());
    for (size_t i = 0; i < yte.size(); ++i) {
      const CharPoint& t = *test_points[i];
      got[i] = window_fj_per_element(def, m, t.h, double(pred[i]), activity_of(t)) * ete[i];
    }
    m.quality.mape = mape_percent(got, yte);
    m.quality.pearson = pearson_r(got, yte);
  }
  return m;
}

// A saved event_fj: its events must be this fsgen's controller events.
void load_event_fit(const nlohmann::json& e, const std::string& path, const std::string& kind, PrimitivePowerModel& p) {
  const std::vector<std::string> events = controller_event_names(kind);
  if (e.at("events").get<std::vector<std::string>>() != events)
    fail(path, kind + ": its event energies are not of this fsgen's controller events (retrain with fsgen train)");
  p.event_fj = {e.at("a"), e.at("b_per_event_term").get<std::vector<double>>()};
  if (p.event_fj.b.size() != 2 * events.size() - 1)
    fail(path, kind + ": expected " + std::to_string(2 * events.size() - 1) + " event-energy coefficients");
  const auto& q = e.at("quality");
  p.event_quality = {q.at("train_points"), q.at("test_points"), q.at("test_run_mape_percent"), q.at("test_window_pearson_r")};
}

// A structural primitive's own point at h, if h is a characterised size; nullptr otherwise.
const PrimitivePowerModel::MeasuredSize* measured_at(const PrimitivePowerModel& m, const std::vector<int>& h) {
  const auto it = m.measured.find(h);
  return it == m.measured.end() ? nullptr : &it->second;
}
}  // namespace

std::string PowerModel::extrapolation(const std::string& kind, const std::vector<int>& h) const {
  const PrimitivePowerModel& m = primitive(kind);
  const std::vector<std::string>& names = primitive_def(kind).params;
  std::string note;
  for (size_t i = 0; i < h.size() && i < names.size(); ++i) {
    std::set<int> seen;
    for (const auto& size : m.characterised_sizes) seen.insert(size.at(i));
    if (seen.count(h[i])) continue;
    std::string values;
    for (int v : seen) values += (values.empty() ? "" : ", ") + std::to_string(v);
    note += (note.empty() ? "" : ", ") + names[i] + "=" + std::to_string(h[i]) + " (characterised " + values + ")";
  }
  // A structural primitive of a characterised size is priced at its own point; any other
  // size by the fit over the characterised ones, though each of its values was seen.
  if (note.empty() && primitive_def(kind).structural() && !measured_at(m, h))
    note = "this combination (fitted over " + std::to_string(m.characterised_sizes.size()) + " characterised sizes)";
  return note;
}

const PrimitivePowerModel& PowerModel::primitive(const std::string& kind) const {
  auto it = primitives.find(kind);
  if (it == primitives.end()) fail("power model", "no model for primitive '" + kind + "': characterise and train it");
  return it->second;
}

void PowerModel::require_liberty(const std::string& liberty_name) const {
  const auto it = provenance.find("liberty");
  const std::string trained = it == provenance.end() ? "" : it->second.substr(0, it->second.find(" ("));
  if (trained != liberty_name)
    fail("--liberty", "the power model was characterised on liberty '" + trained + "', not '" + liberty_name +
                          "': give the model's liberty, or a model of this one");
}

void PowerModel::require_area_mapping() const {
  if (area_mapping_of(provenance) != kAreaMapping)
    fail("power model", "its dataset's netlists were mapped with " + area_mapping_of(provenance) +
                            ", fsgen's golden netlists with " + kAreaMapping +
                            ": characterise with this fsgen and train again");
}

StructuralEnergy PowerModel::structural_energy(const std::string& kind, const std::vector<int>& h) const {
  const PrimitivePowerModel& m = primitive(kind);
  const PrimitiveDef& def = primitive_def(kind);
  FSGEN_ASSERT(def.structural(), "a structural primitive's energy");
  StructuralEnergy e;
  const PrimitivePowerModel::MeasuredSize* measured = measured_at(m, h);
  e.idle_fj = measured ? measured->idle_fj : m.idle_fj.at(def.size_terms_at(h));
  if (m.event_fj.b.empty()) return e;
  // The fit is linear in the rates: a cycle's energy is its value with every other rate 0
  // (the first event's rate is 1 in every window), another event's what its rate adds.
  std::vector<double> rates(controller_events(kind).size(), 0.0);
  rates[0] = 1;
  const double cycle = m.event_fj.at(event_terms(def, h, rates));
  e.per_event_fj.push_back(cycle);
  for (size_t i = 1; i < rates.size(); ++i) {
    rates[i] = 1;
    e.per_event_fj.push_back(m.event_fj.at(event_terms(def, h, rates)) - cycle);
    rates[i] = 0;
  }
  return e;
}

std::vector<double> PowerModel::dynamic_fj(const std::string& kind, const std::vector<int>& h,
                                           const std::vector<PrimitiveActivity>& activity) const {
  const PrimitivePowerModel& m = primitive(kind);
  const PrimitiveDef& def = primitive_def(kind);
  const size_t activity_columns = activity_features(def).size(), cols = h.size() + activity_columns;
  if (cols != m.features.size())
    fail("power model", kind + ": expected " + std::to_string(m.features.size() - activity_columns) + " hyperparameters");
  if (activity.empty()) return {};
  FSGEN_ASSERT(!def.structural(), "a structural primitive is priced by structural_energy");
  // Each distinct path through the trees is predicted once: rows whose activities lie in the
  // same intervals between the trees' split conditions. Short windows repeat a few
  // activities exactly (looked up first, without the intervals' searches); longer ones
  // differ mostly within an interval.
  using Key = std::array<uint32_t, std::tuple_size_v<ActivityRow>>;  // a row's feature bits, or its intervals
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return (size_t(k[0]) * 0x9E3779B97F4A7C15ull) ^ (size_t(k[1]) * 0xC2B2AE3D27D4EB4Full) ^ k[2] ^
             (size_t(k[3]) << 32) ^ (size_t(k[4]) * 0x165667B19E3779F9ull) ^ (size_t(k[5]) * 0x27D4EB2F165667C5ull) ^
             (size_t(k[6]) << 16) ^ (size_t(k[7]) * 0x94D049BB133111EBull);
    }
  };
  std::unordered_map<Key, size_t, KeyHash> path_of_row, path_of_intervals;
  std::vector<size_t> path(activity.size());
  std::vector<float> x;
  for (size_t i = 0; i < activity.size(); ++i) {
    const PrimitiveActivity& a = activity[i];
    const ActivityRow f = activity_row(def, a);
    Key bits;
    std::memcpy(bits.data(), f.data(), sizeof bits);
    const auto [seen, new_row] = path_of_row.emplace(bits, 0);
    if (new_row) {
      Key intervals{};
      for (size_t c = 0; c < activity_columns; ++c) intervals[c] = m.trees->interval(h.size() + c, f[c]);
      const auto [it, new_path] = path_of_intervals.emplace(intervals, path_of_intervals.size());
      if (new_path) x.insert(x.end(), h.begin(), h.end()), x.insert(x.end(), f.begin(), f.begin() + long(activity_columns));
      seen->second = it->second;
    }
    path[i] = seen->second;
  }
  const std::vector<float> per_element =
      m.trees->with_fixed(std::vector<float>(h.begin(), h.end())).predict_rows(x.data(), path_of_intervals.size());
  const double elements = def.elements(h);
  std::vector<double> out(activity.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = std::max(0.0, window_fj_per_element(def, m, h, per_element[path[i]], activity[i])) * elements;
  return out;
}

double LinearFit::at(const std::vector<double>& terms) const {
  FSGEN_ASSERT(terms.size() == b.size(), "a linear fit evaluated with its own terms");
  double v = a;
  for (size_t i = 0; i < b.size(); ++i) v += b[i] * terms[i];
  return v;
}

std::vector<double> PowerModel::cycle_energy_fj(const std::string& kind, const std::vector<int>& h,
                                                const std::vector<PrimitiveActivity>& activity) const {
  const PrimitivePowerModel& m = primitive(kind);
  if (m.cycle_energy.empty()) fail("power model", kind + ": no energy per kind of cycle (its side enable opens no burst)");
  const LinearFit* fit = &nearest_size(m.cycle_energy, h);
  const double elements = primitive_def(kind).elements(h);
  std::vector<double> out;
  out.reserve(activity.size());
  for (const PrimitiveActivity& a : activity) out.push_back(std::max(0.0, fit->at(cycle_terms(a.enable, a.side, a.alpha))) * elements);
  return out;
}

double PowerModel::leakage_mw(const std::string& kind, const std::vector<int>& h) const {
  const PrimitivePowerModel& m = primitive(kind);
  if (const auto* measured = measured_at(m, h)) return measured->leakage_mw;
  return std::max(0.0, m.leakage_mw.at(primitive_def(kind).size_terms_at(h)));
}

double PowerModel::area_um2(const std::string& kind, const std::vector<int>& h) const {
  const PrimitivePowerModel& m = primitive(kind);
  if (const auto* measured = measured_at(m, h)) return measured->area_um2;
  return std::max(0.0, m.area_um2.at(primitive_def(kind).size_terms_at(h)));
}

namespace {

// UserError unless the points of `kind` measure the activity columns its features read: its
// factor toggles and its state register's (formats before them have none; a dataset of the
// right format whose primitive was characterised before it declared its state register has
// them all 0, though its enabled points switch it).
void require_activity_columns(const Dataset& d, const std::string& kind, const std::vector<const CharPoint*>& pts) {
  const PrimitiveDef& def = primitive_def(kind);
  const std::string again = " (characterise " + kind + " again)";
  if (d.format < kDatasetFormatWithFactor && !def.factor_port.empty())
    fail("dataset", kind + ": format " + std::to_string(d.format) + " has no factor toggles, expected format " +
                        std::to_string(kDatasetFormatWithFactor) + again);
  if (def.state_register.empty()) return;
  if (d.format < kDatasetFormatWithState)
    fail("dataset", kind + ": format " + std::to_string(d.format) + " has no " + def.state_register +
                        " register toggles, expected format " + std::to_string(kDatasetFormatWithState) + again);
  const bool enabled = std::any_of(pts.begin(), pts.end(), [](const CharPoint* p) { return p->enable > 0; });
  const bool measured = std::any_of(pts.begin(), pts.end(), [](const CharPoint* p) { return p->state > 0; });
  if (enabled && !measured)
    fail("dataset", kind + ": its enabled points have no " + def.state_register +
                        " register toggles, expected them measured" + again);
}

}  // namespace

PowerModel train_power_model(const Dataset& d, int rounds) {
  PowerModel m;
  m.provenance = d.provenance;
  m.provenance["training"] = "xgboost reg:squarederror, max_depth 6, eta 0.1, " + std::to_string(rounds) +
                             " rounds; every fifth point (by key) held out";
  std::map<std::string, std::vector<const CharPoint*>> by_kind;
  for (const auto& p : d.points) by_kind[p.kind].push_back(&p);
  if (by_kind.empty()) fail("dataset", "no points to train on");
  for (const auto& [kind, pts] : by_kind) require_activity_columns(d, kind, pts);
  for (const auto& [kind, pts] : by_kind) m.primitives[kind] = train_primitive(kind, pts, rounds);
  return m;
}

void save_power_model(const PowerModel& m, const std::string& path) {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["provenance"] = m.provenance;
  for (const auto& [kind, p] : m.primitives) {
    nlohmann::ordered_json e;
    e["features"] = p.features;
    e["target"] = "dynamic energy per element per cycle, fJ";
    e["leakage_mw"] = {{"a", p.leakage_mw.a}, {"b_per_size_term", p.leakage_mw.b}};
    e["area_um2"] = {{"a", p.area_um2.a}, {"b_per_size_term", p.area_um2.b}};
    e["quality"] = {{"train_points", p.quality.train_points}, {"test_points", p.quality.test_points},
                    {"test_mape_percent", p.quality.mape}, {"test_pearson_r", p.quality.pearson}};
    e["characterised_sizes"] = p.characterised_sizes;
    for (const auto& [h, f] : p.cycle_energy) e["cycle_energy"].push_back({{"h", h}, {"a", f.a}, {"b_enable_side_alpha", f.b}});
    // Written for every primitive with a factor port, empty when its dataset has no idle
    // points (fsgen characterize --small): the reader tells that from a model made before it.
    if (!primitive_def(kind).factor_port.empty()) e["idle_writes_fj"] = nlohmann::json::array();
    for (const auto& [h, f] : p.idle_writes_fj)
      e["idle_writes_fj"].push_back({{"h", h}, {"a", f.a}, {"b_per_factor", f.b.front()}});
    if (!p.activity_fj.b.empty()) e["activity_fj"] = {{"a", p.activity_fj.a}, {"b_per_term", p.activity_fj.b}};
    if (primitive_def(kind).structural()) {
      e["target"] = "dynamic energy per cycle of an idle instance (its clock), fJ";
      e["idle_fj"] = {{"a", p.idle_fj.a}, {"b_per_size_term", p.idle_fj.b}};
      e["measured_sizes"] = nlohmann::json::array();
      for (const auto& [h, s] : p.measured)
        e["measured_sizes"].push_back(
            {{"h", h}, {"idle_fj", s.idle_fj}, {"leakage_mw", s.leakage_mw}, {"area_um2", s.area_um2}});
      if (!p.event_fj.b.empty()) {
        e["event_fj"] = {{"events", controller_event_names(kind)},
                         {"a", p.event_fj.a},
                         {"b_per_event_term", p.event_fj.b},
                         {"quality", {{"train_points", p.event_quality.train_points},
                                      {"test_points", p.event_quality.test_points},
                                      {"test_run_mape_percent", p.event_quality.mape},
                                      {"test_window_pearson_r", p.event_quality.pearson}}}};
      }
    } else {
      e["booster"] = p.booster;
    }
    j["primitives"][kind] = e;
  }
  if (!m.timing.empty()) j["timing"] = timing_model_json(m.timing);
  write_file_atomically(path, "power model", [&](std::ostream& out) { out << j.dump() << "\n"; });
}

PowerModel load_power_model(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "power model");
  PowerModel m;
  try {
    if (j.value("format", "") != kFormat)
      fail(path, "expected \"format\": \"" + std::string(kFormat) + "\" (retrain older models with fsgen train)");
    m.provenance = j.at("provenance").get<std::map<std::string, std::string>>();
    for (const auto& [kind, e] : j.at("primitives").items()) {
      PrimitivePowerModel p;
      p.kind = kind;
      p.features = e.at("features").get<std::vector<std::string>>();
      std::vector<std::string> expected = primitive_def(kind).params;
      const std::vector<std::string> activity = activity_features(primitive_def(kind));
      expected.insert(expected.end(), activity.begin(), activity.end());
      if (p.features != expected)
        fail(path, kind + ": features are not this fsgen's hyperparameters of the primitive (retrain with fsgen train)");
      p.leakage_mw = {e.at("leakage_mw").at("a"), e.at("leakage_mw").at("b_per_size_term").get<std::vector<double>>()};
      p.area_um2 = {e.at("area_um2").at("a"), e.at("area_um2").at("b_per_size_term").get<std::vector<double>>()};
      const PrimitiveDef& def = primitive_def(kind);  // a kind this fsgen knows
      const size_t terms = def.size_terms_at(std::vector<int>(def.params.size(), 1)).size();
      if (p.leakage_mw.b.size() != terms || p.area_um2.b.size() != terms)
        fail(path, kind + ": expected one leakage and area coefficient per size term of the primitive");
      p.quality.train_points = e.at("quality").at("train_points");
      p.quality.test_points = e.at("quality").at("test_points");
      p.quality.mape = e.at("quality").at("test_mape_percent");
      p.quality.pearson = e.at("quality").at("test_pearson_r");
      p.characterised_sizes = e.at("characterised_sizes").get<std::vector<std::vector<int>>>();
      if (def.side_opens_burst) {
        if (!e.contains("cycle_energy") || e.at("cycle_energy").empty())
          fail(path, kind + ": expected its energy per kind of cycle (\"cycle_energy\"; retrain with fsgen train)");
        for (const auto& c : e.at("cycle_energy"))
          p.cycle_energy[c.at("h").get<std::vector<int>>()] = {c.at("a"), c.at("b_enable_side_alpha").get<std::vector<double>>()};
        for (const auto& [h, f] : p.cycle_energy)
          if (f.b.size() != 3) fail(path, kind + ": expected three cycle-energy coefficients (enable, side, alpha)");
      }
      if (!def.factor_port.empty()) {
        if (!e.contains("idle_writes_fj"))
          fail(path, kind + ": expected its idle and factor-write energy per size (\"idle_writes_fj\"; retrain with "
                           "fsgen train)");
        for (const auto& f : e.at("idle_writes_fj"))
          p.idle_writes_fj[f.at("h").get<std::vector<int>>()] = {f.at("a"), {f.at("b_per_factor").get<double>()}};
      }
      if (def.activity_terms) {
        if (!e.contains("activity_fj"))
          fail(path, kind + ": expected its energy in its activity terms (\"activity_fj\"; retrain with fsgen train)");
        p.activity_fj = {e.at("activity_fj").at("a"), e.at("activity_fj").at("b_per_term").get<std::vector<double>>()};
        const size_t terms_of_fit = def.activity_terms(def.sizes.front(), PrimitiveActivity{}).size();
        if (p.activity_fj.b.size() != terms_of_fit)
          fail(path, kind + ": expected " + std::to_string(terms_of_fit) + " activity-energy coefficients");
      }
      if (def.structural()) {
        p.idle_fj = {e.at("idle_fj").at("a"), e.at("idle_fj").at("b_per_size_term").get<std::vector<double>>()};
        if (p.idle_fj.b.size() != terms) fail(path, kind + ": expected one idle-energy coefficient per size term");
        if (!e.contains("measured_sizes"))
          fail(path,
               kind + ": expected its characterised sizes' points (\"measured_sizes\"; retrain with fsgen train)");
        for (const auto& s : e.at("measured_sizes"))
          p.measured[s.at("h").get<std::vector<int>>()] = {s.at("idle_fj"), s.at("leakage_mw"), s.at("area_um2")};
        if (e.contains("event_fj")) load_event_fit(e.at("event_fj"), path, kind, p);
        m.primitives[kind] = std::move(p);
        continue;
      }
      p.booster = e.at("booster");
      p.trees = std::make_unique<TreeEnsemble>(p.booster);
      if (p.trees->features() != p.features.size())
        fail(path, kind + ": its booster has " + std::to_string(p.trees->features()) + " features, expected " +
                       std::to_string(p.features.size()));
      m.primitives[kind] = std::move(p);
    }
    if (j.contains("timing")) m.timing = timing_model_from_json(j.at("timing"), path);
  } catch (const nlohmann::json::exception& e) {
    fail(path, std::string("power model field missing or of the wrong type: ") + e.what());
  }
  return m;
}

}  // namespace fsgen
