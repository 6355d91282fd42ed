// A block kind's power primitive (docs/POWER.md, "Primitives"): how the kind is
// characterised at gate level and what its model's features are. A pure description,
// declared in the kind's folder (src/blocks/<kind>/) and read by the power flow
// (src/power/characterize.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"

namespace fsgen {

// A primitive's activity in a window (or a characterised point): its model's features
// after the hyperparameters.
struct PrimitiveActivity {
  double alpha = 0;        // data-input toggles / (bits x cycles)
  double enable = 0;       // share of cycles busy
  double zeros = 0;        // share of zero operand bytes
  double side = 0;         // share of cycles with the side enable (PrimitiveDef::side_enable)
  double factor = 0;       // toggles on the rescale factors / (bits x cycles) (PrimitiveDef::factor_port)
  double state = 0;        // toggles of its state register / (bits x cycles) (PrimitiveDef::state_register)
  double state_ones = 0;   // the share of its state register's bits at 1 over the cycles
  double factor_ones = 0;  // the share of its factor port's bits at 1 over the cycles
};

struct PrimitiveDef {
  std::string kind;                      // the graph block kind: pe_array_os, pe_array_dot, ...
  std::string module;                    // its RTL module
  std::vector<std::string> params;       // hyperparameters, in feature order
  std::vector<std::vector<int>> sizes;   // the hyperparameter points characterised
  std::map<std::string, int64_t> fixed;  // other module parameters
  // Hyperparameters an instance may leave unset, at its module's defaults given the
  // parameters it sets (a controller's sparsity and top-k parameters, which only the cores
  // that have them set; a dense dot array's lanes of K MACs). Empty: it sets them all.
  std::function<std::map<std::string, int64_t>(const std::map<std::string, int64_t>& params)> defaults{};
  std::vector<std::string> enables, held_low;
  std::map<std::string, std::string> enable_of;  // data port -> the enable it changes with (gate_sim.h)
  // Index ports -> the modulus each counts at hyperparameters h (gate_sim.h: 0, 1, ... in its
  // enable's cycles).
  std::map<std::string, std::function<uint32_t(const std::vector<int>& h)>> counters;
  // Processing elements at hyperparameters h: the unit the hierarchical model scales by.
  std::function<double(const std::vector<int>&)> elements;
  // Module parameters that only route wires (which select bit reaches which output, how
  // the generate loops are grouped, values kept for reports): every element's logic is the
  // same whatever they are, so an instance differing in them is not another variant.
  std::vector<std::string> wiring;
  // Where alpha is measured: empty, the data input ports (what the SystemC model probes at
  // a PE array); else these ports. At a neighbour (alpha_at_neighbour) the SystemC model
  // probes the one port's bus at the block it feeds or is fed by: a value network's output
  // lane register (its array's operand bus), an accumulator cache's write data (its array's
  // output y); otherwise the block's own probes are these ports (the DMA's read data in and
  // write data register out).
  std::vector<std::string> alpha_ports;
  bool alpha_at_neighbour = false;
  // Module parameters that follow from the hyperparameters (a select's width from SK).
  std::function<std::map<std::string, int64_t>(const std::vector<int>&)> derived;
  // What an instance's area and leakage grow with, at hyperparameters h (each a term of a
  // least-squares fit); empty: its elements alone.
  std::function<std::vector<double>(const std::vector<int>&)> size_terms;
  // A hyperparameter that is not a module parameter: 1 where the design's instances of
  // macro_modules (a controller's operand buffers) are SRAM macros priced apart
  // (memory_macro.h), and its netlist is characterised with them left out (Yosys black
  // boxes), 0 where they are its flip-flops. "" none.
  std::string macro_param{};
  std::vector<std::string> macro_modules{};
  // How the gate-level testbench drives it (PrimitiveStimulus::driver): "" random ports,
  // "axi_dma" a controller issuing bursts and an AXI slave answering them, "softmax_rows"
  // a controller's score rows with the unit's outputs fed back (gate_sim.h); or
  // kIdleClock: no testbench, a structural primitive (structural()).
  std::string driver;
  // A second kind of event the primitive's energy depends on apart from its enable, counted
  // by its driver and given by the SystemC model's spans (BlockTimeline::side): the DMA's
  // commands (each loads its address and beat registers, and costs several beats), a dot
  // array's loads (the random driver's enable port of that name, PrimitiveStimulus::
  // side_enable: a load writes one column of stationary registers where a stream cycle
  // switches every MAC), or a port qualifying the enable (the rescaling array's sc: that
  // step rescales the accumulators). Its share of the cycles is a model feature of this
  // primitive only; "" none.
  std::string side_enable;
  // The side event opens a burst that follows it (the DMA's command): estimation prices it
  // over the burst, since a window of the command alone lies outside every characterised
  // point, and shapes the burst by the energy per kind of cycle (power_model.h). Otherwise
  // each window is priced at its own side share.
  bool side_opens_burst = false;
  // Hyperparameters that are not module parameters but settings the driver holds on input
  // ports for a whole run (the softmax unit's MODE: 0 the attention's online softmax, 1 the
  // FFN's activation and gate passes): one synthesis serves every value, and the testbench
  // takes them as arguments after the stimulus' own. An RTL instance does not carry them:
  // estimation takes them from the kernel the run programs (held_in_kernel).
  std::vector<std::string> held_params{};
  // Their values, in held_params' order, in a run of the kernel with this id (reg::Kernel,
  // core/regmap.h).
  std::function<std::vector<int64_t>(uint32_t kernel)> held_in_kernel{};
  // The block's probes (graph port names) whose toggles give alpha in estimation; empty:
  // its input ports, or, with alpha_ports, every probed port of the block.
  std::vector<std::string> probes{};
  // Cycles a data port's values take to cross the block at hyperparameters h, switching its
  // registers and logic on their way (a systolic grid's x along its C columns, w down its R
  // rows): estimation spreads each cycle's toggles at the port evenly over that many cycles,
  // as its elements see them (in steady streams, as the characterisation drives them, the
  // same rate). Empty, or 1: the cycle they arrive in.
  std::function<uint32_t(const std::vector<int>& h, const std::string& port)> port_transit{};
  // A port of Q0.15 factors, one per 32-bit word, that the random driver redraws in any
  // cycle, enabled or not (the rescaling array's alpha, which its controller writes in the
  // softmax pass; PrimitiveStimulus::factor_port), at a share of the cycles varied by the
  // grid. Not a data port: alpha is not measured on it; its toggles are a feature of their
  // own (factor), which the SystemC model gives from its probe of the port.
  std::string factor_port{};
  // A register of every element whose bits' toggles are a feature of their own (state):
  // the flip-flops named so in the netlist (the last part of their hierarchical name), per
  // bit and cycle, which the SystemC model gives from the values it holds there
  // (BlockTimeline::state). An array's accumulators: what they switch, and the rescaling
  // array's rescale steps and multipliers behind them, depends on the values they hold and
  // on when each PE takes its sums (a systolic grid's i + j cycles apart), which no port
  // shows. "" none.
  std::string state_register{};
  // Terms of a linear model of the dynamic energy per element per cycle in the activity at
  // hyperparameters h (PrimitivePowerModel::activity_fj), under the trees: where the energy
  // is a sum of switching of known sources (an array's accumulators, the rescaling array's
  // multipliers driven by the factors times the accumulators' bits at 1), a few dozen
  // points per size fit it where trees, cutting the features into steps, do not. Empty:
  // trees alone.
  std::function<std::vector<double>(const std::vector<int>& h, const PrimitiveActivity&)> activity_terms{};
  // Toggle rates characterised beyond the grid's, at every zero fraction and enable rate:
  // the softmax unit's 0.5, rows whose every score is new (its driver redraws a score with
  // probability 2 x rate), as the rows of a pass are (other queries' scores), which the
  // grid's 0.45 falls short of. Appended after the grid, so its points keep their seeds.
  std::vector<double> extra_toggle_rates{};
  // A structural primitive (the controller, the register file): characterised by synthesis
  // and the engine alone, held idle with only its clock running. Its one point per size is
  // the energy of the clock net's two transitions per cycle (the flip-flops' clock pins and
  // the net) with every other net still, plus leakage and area: what a held register costs
  // each cycle in RTL without clock gating, most of such a block's power. Its model is a
  // least-squares fit of that energy over its size terms, with no activity features (the
  // logic's switching under a kernel is left out, and reports say so).
  bool structural() const { return driver == kIdleClock; }
  // Sizes of a structural primitive also characterised under kernels (the controller):
  // a training core with this primitive's instance at each runs training kernels on its
  // Verilated RTL, the instance's netlist replays its ports, and each window of a run is a
  // point whose features are the events of controller_events.h (controller_training.h).
  std::vector<std::vector<int>> kernel_sizes{};
  // What its events' energy grows with at hyperparameters h besides a constant, by event
  // name (controller_events.h): the flip-flops and logic one event switches (0: nothing that
  // grows with the core). An event not named, or every event when empty: the first size
  // term.
  std::function<std::map<std::string, double>(const std::vector<int>& h)> event_size_terms{};
  static constexpr const char* kIdleClock = "idle_clock";
  // Where hyperparameter `name` is in params (an assertion: a name the primitive's own
  // declaration uses).
  size_t param_at(const std::string& name) const {
    const auto at = std::find(params.begin(), params.end(), name);
    FSGEN_ASSERT(at != params.end(), "a primitive's own declaration names its hyperparameters");
    return size_t(at - params.begin());
  }
  std::vector<double> size_terms_at(const std::vector<int>& h) const {
    return size_terms ? size_terms(h) : std::vector<double>{elements(h)};
  }
};

}  // namespace fsgen
