// fsgen's gate-level simulator: a mapped netlist of liberty cells, each cell a truth table
// of its pins (a flip-flop's also of its state), simulated zero-delay and two-valued, as
// Verilator simulates the netlist with the cells' Verilog models: each eval settles the
// logic on the inputs, then the flip-flops whose clock rose take their next state and the
// logic settles again. sample() counts the net bits that changed since the last sample,
// as a VCD dump records them. The netlist comes from fsgen (power/gate_compile.h), which
// orders the combinational cells so that one pass settles them.
//
// This header stands alone (the standard library only): fsgen includes it, and the
// characterisation testbenches (power/gate_sim.cpp) are compiled with a copy of it.
#pragma once
#include <cstdint>
#include <cstring>
#include <istream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fsgen_gates {

// A pin's or port bit's source: a net bit (>= 0) or a constant.
constexpr int32_t kZero = -1, kOne = -2, kUnconnected = -3;

// A function of `vars` variables: bit i of the index is variable i.
struct Table {
  uint32_t vars = 0;
  std::vector<uint64_t> words;  // 2^vars bits
  bool at(uint32_t index) const { return (words[index >> 6] >> (index & 63)) & 1u; }
};

struct Cell {
  std::vector<int32_t> in;          // input pins' net bits (or constants)
  std::vector<int32_t> out;         // output pins' net bits (kUnconnected: no net)
  std::vector<uint32_t> out_table;  // per output: its function of the inputs (a flop's: and IQ, IQN after them)
  bool flop = false;
  // A flop's functions of its inputs and state (as out_table's); -1: none.
  int32_t clocked_on = -1, next_state = -1, clear = -1, preset = -1;
  uint8_t both_q = 0, both_qn = 0;  // IQ and IQN while clear and preset are both active
};

struct Port {
  std::string name;
  bool output = false;
  std::vector<int32_t> bits;  // LSB first; net bits or constants
};

struct Netlist {
  uint32_t bits = 0;  // net bits 0 .. bits - 1
  std::vector<Port> ports;
  std::vector<Table> tables;
  std::vector<Cell> cells;  // the flops, then the combinational cells and clock gates in evaluation order

  void write(std::ostream& o) const {
    o << "fsgen-gates 1\nbits " << bits << "\ntables " << tables.size() << "\n";
    for (const Table& t : tables) {
      o << t.vars;
      for (uint64_t w : t.words) o << ' ' << w;
      o << '\n';
    }
    o << "ports " << ports.size() << "\n";
    for (const Port& p : ports) {
      o << p.name << ' ' << (p.output ? "out" : "in") << ' ' << p.bits.size();
      for (int32_t b : p.bits) o << ' ' << b;
      o << '\n';
    }
    o << "cells " << cells.size() << "\n";
    for (const Cell& c : cells) {
      o << (c.flop ? "flop" : "comb") << ' ' << c.in.size();
      for (int32_t b : c.in) o << ' ' << b;
      o << ' ' << c.out.size();
      for (size_t i = 0; i < c.out.size(); ++i) o << ' ' << c.out[i] << ' ' << c.out_table[i];
      if (c.flop)
        o << ' ' << c.clocked_on << ' ' << c.next_state << ' ' << c.clear << ' ' << c.preset << ' ' << int(c.both_q)
          << ' ' << int(c.both_qn);
      o << '\n';
    }
  }

  static Netlist read(std::istream& in) {
    auto expect = [&](const char* word) {
      std::string w;
      if (!(in >> w) || w != word) throw std::runtime_error(std::string("gate netlist: expected '") + word + "'");
    };
    auto count = [&]() {
      uint64_t n = 0;
      if (!(in >> n)) throw std::runtime_error("gate netlist: expected a count");
      return n;
    };
    auto number = [&]() {
      int64_t v = 0;
      if (!(in >> v)) throw std::runtime_error("gate netlist: expected a number");
      return v;
    };
    Netlist n;
    expect("fsgen-gates");
    expect("1");
    expect("bits");
    n.bits = uint32_t(count());
    expect("tables");
    n.tables.resize(count());
    for (Table& t : n.tables) {
      t.vars = uint32_t(count());
      if (t.vars > 16) throw std::runtime_error("gate netlist: a table of more than 16 variables");
      t.words.resize(((size_t(1) << t.vars) + 63) / 64);
      for (uint64_t& w : t.words) w = count();
    }
    expect("ports");
    n.ports.resize(count());
    for (Port& p : n.ports) {
      std::string dir;
      in >> p.name >> dir;
      p.output = dir == "out";
      p.bits.resize(count());
      for (int32_t& b : p.bits) b = int32_t(number());
    }
    expect("cells");
    n.cells.resize(count());
    for (Cell& c : n.cells) {
      std::string kind;
      in >> kind;
      c.flop = kind == "flop";
      c.in.resize(count());
      for (int32_t& b : c.in) b = int32_t(number());
      c.out.resize(count());
      c.out_table.resize(c.out.size());
      for (size_t i = 0; i < c.out.size(); ++i) c.out[i] = int32_t(number()), c.out_table[i] = uint32_t(count());
      if (c.flop) {
        c.clocked_on = int32_t(number()), c.next_state = int32_t(number());
        c.clear = int32_t(number()), c.preset = int32_t(number());
        c.both_q = uint8_t(count()), c.both_qn = uint8_t(count());
      }
    }
    if (!in) throw std::runtime_error("gate netlist: truncated");
    return n;
  }

  // Every reference in range and every table of its cell's variables: a damaged file is an
  // error, not a stray read.
  void check() const {
    auto net = [&](int32_t b) {
      if (b < kUnconnected || (b >= 0 && uint32_t(b) >= bits))
        throw std::runtime_error("gate netlist: a net bit out of range");
    };
    auto table = [&](int64_t t, size_t vars) {
      if (t < 0 || size_t(t) >= tables.size() || tables[size_t(t)].vars != vars)
        throw std::runtime_error("gate netlist: a table out of range or of another cell's variables");
    };
    for (const Port& p : ports)
      for (int32_t b : p.bits) net(b);
    for (const Cell& c : cells) {
      const size_t vars = c.in.size() + (c.flop ? 2 : 0);
      for (int32_t b : c.in) net(b);
      for (size_t i = 0; i < c.out.size(); ++i) net(c.out[i]), table(c.out_table[i], vars);
      if (!c.flop) continue;
      table(c.clocked_on, vars);
      table(c.next_state, vars);
      if (c.clear >= 0) table(c.clear, vars);
      if (c.preset >= 0) table(c.preset, vars);
    }
  }
};

class Simulator {
 public:
  explicit Simulator(const Netlist& n) : n_(n) {
    n_.check();
    const uint32_t slots = n.bits + 3;  // the net bits, then constant 0, constant 1, unconnected
    value_.assign(slots, 0);
    value_[n.bits + 1] = 1;
    sampled_.assign(n.bits, 0);
    for (const Cell& c : n.cells) {
      Flat f;
      f.first_in = uint32_t(pins_.size());
      for (int32_t b : c.in) pins_.push_back(slot(b));
      f.n_in = uint32_t(c.in.size());
      f.first_out = uint32_t(pins_.size());
      for (size_t i = 0; i < c.out.size(); ++i) pins_.push_back(slot(c.out[i])), out_tables_.push_back(c.out_table[i]);
      f.n_out = uint32_t(c.out.size());
      f.first_table = uint32_t(out_tables_.size() - c.out.size());
      if (c.flop) f.flop = uint32_t(flops_.size()), flops_.push_back({});
      flat_.push_back(f);
    }
  }

  // The port's index, or -1 if the netlist has no such port.
  int port(const std::string& name) const {
    for (size_t i = 0; i < n_.ports.size(); ++i)
      if (n_.ports[i].name == name) return int(i);
    return -1;
  }
  // An input port's value from `bytes` bytes of little-endian memory (bit i of the port is
  // bit i of the data; missing bits are 0).
  void write_port(int port, const void* data, size_t bytes) {
    const auto* d = static_cast<const uint8_t*>(data);
    const Port& p = n_.ports[size_t(port)];
    for (size_t i = 0; i < p.bits.size(); ++i)
      if (p.bits[i] >= 0) value_[size_t(p.bits[i])] = i / 8 < bytes ? (d[i / 8] >> (i % 8)) & 1u : 0;
  }
  void read_port(int port, void* data, size_t bytes) const {
    auto* d = static_cast<uint8_t*>(data);
    std::memset(d, 0, bytes);
    const Port& p = n_.ports[size_t(port)];
    for (size_t i = 0; i < p.bits.size() && i / 8 < bytes; ++i)
      if (value_[slot(p.bits[i])]) d[i / 8] |= uint8_t(1u << (i % 8));
  }
  uint8_t bit(uint32_t net_bit) const { return value_[net_bit]; }

  // Settles the logic on the inputs; flops whose clock rose take their next state, and the
  // logic settles again.
  void eval() {
    settle();
    captures_.clear();
    for (size_t i = 0; i < flat_.size(); ++i) {
      if (flat_[i].flop < 0) continue;
      FlopState& s = flops_[size_t(flat_[i].flop)];
      const Cell& c = n_.cells[i];
      const uint8_t clk = table(uint32_t(c.clocked_on), index(flat_[i], &s));
      if (clk && !s.clk) captures_.push_back({uint32_t(i), table(uint32_t(c.next_state), index(flat_[i], &s))});
      s.clk = clk;
    }
    if (captures_.empty()) return;
    for (const auto& [i, next] : captures_) {
      FlopState& s = flops_[size_t(flat_[i].flop)];
      s.q = next;
      s.qn = !next;
    }
    settle();
  }

  // Appends the net bits whose value differs from the last sample's (every bit is 0 before
  // the first sample) to `toggled`.
  void sample(std::vector<uint32_t>& toggled) {
    for (uint32_t b = 0; b < n_.bits; ++b)
      if (value_[b] != sampled_[b]) {
        sampled_[b] = value_[b];
        toggled.push_back(b);
      }
  }

 private:
  struct Flat {
    uint32_t first_in = 0, n_in = 0, first_out = 0, n_out = 0, first_table = 0;
    int32_t flop = -1;
  };
  struct FlopState {
    uint8_t q = 0, qn = 1, clk = 0;
  };

  uint32_t slot(int32_t b) const {
    if (b >= 0) return uint32_t(b);
    return b == kZero ? n_.bits : b == kOne ? n_.bits + 1 : n_.bits + 2;
  }
  uint32_t index(const Flat& f, const FlopState* s) const {
    uint32_t x = 0;
    for (uint32_t k = 0; k < f.n_in; ++k) x |= uint32_t(value_[pins_[f.first_in + k]]) << k;
    if (s) x |= uint32_t(s->q) << f.n_in | uint32_t(s->qn) << (f.n_in + 1);
    return x;
  }
  uint8_t table(uint32_t t, uint32_t x) const { return n_.tables[t].at(x); }

  // Clear and preset (levels) applied to a flop's state; true if it changed.
  bool apply_async(size_t i) {
    const Cell& c = n_.cells[i];
    if (c.clear < 0 && c.preset < 0) return false;
    FlopState& s = flops_[size_t(flat_[i].flop)];
    const uint32_t x = index(flat_[i], &s);
    const bool clear = c.clear >= 0 && table(uint32_t(c.clear), x),
               preset = c.preset >= 0 && table(uint32_t(c.preset), x);
    if (!clear && !preset) return false;
    const uint8_t q = clear && preset ? c.both_q : preset, qn = clear && preset ? c.both_qn : clear;
    const bool changed = q != s.q || qn != s.qn;
    s.q = q;
    s.qn = qn;
    return changed;
  }

  void settle() {
    for (int pass = 0;; ++pass) {
      if (pass > 16) throw std::runtime_error("gate netlist: clear and preset do not settle");
      for (size_t i = 0; i < flat_.size(); ++i) {
        const Flat& f = flat_[i];
        const FlopState* s = f.flop >= 0 ? &flops_[size_t(f.flop)] : nullptr;
        if (s) apply_async(i);
        const uint32_t x = index(f, s);
        for (uint32_t k = 0; k < f.n_out; ++k)
          value_[pins_[f.first_out + k]] = table(out_tables_[f.first_table + k], x);
      }
      bool again = false;
      for (size_t i = 0; i < flat_.size(); ++i)
        if (flat_[i].flop >= 0) again = apply_async(i) || again;
      if (!again) return;
    }
  }

  Netlist n_;
  std::vector<uint8_t> value_, sampled_;
  std::vector<uint32_t> pins_, out_tables_;
  std::vector<Flat> flat_;
  std::vector<FlopState> flops_;
  std::vector<std::pair<uint32_t, uint8_t>> captures_;
};

}  // namespace fsgen_gates
