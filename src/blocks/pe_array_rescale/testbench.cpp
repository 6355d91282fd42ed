// The rescaling array's gate-level testbench driver ("rescale_tiles").
#include <sstream>

#include "blocks/testbench_driver.h"

namespace fsgen {

namespace {

// Array b as the fused attention's controller drives it: key tiles of TK stream steps
// (en, a column of P on x and a row of V on w), kTiles key tiles to a query tile; the
// first step of a query tile's first key tile clears the accumulators (clr), the first
// step of each later one rescales them (sc, the side enable). Before each key tile that
// rescales, the controller writes every row's factor: new (uniform in [0, 1), the row's
// running max grew) with probability factor_share, else 1.0 (over a 1.0: no toggle). The
// side share sets TK = round(1 / side_share), so that the sc steps' share of the stream
// steps spans a design's key tiles and beyond (TK 10, 2, 1 at the grid's 0.1, 0.5, 0.9);
// a key tile starts in an idle cycle with the probability that makes the stream steps the
// enable rate's share of the cycles. Operands flip and are zeroed as the random driver's
// data ports. The query tiles' clears keep the accumulators at what a tile's P V sums
// give, as in a design, where redrawn factors with sc at random (the random driver's)
// drained them towards zero at a rate no feature saw.
// Each row's factor is drawn in reset (1.0 half the time, else uniform), and the first
// kTestbenchFillCycles cycles after reset stream dense operands (every bit flipping with
// probability one half, no byte zeroed or counted), so that an idle point (enable rate 0)
// holds values in its accumulators, as a design's array b holds O between its passes: its
// factors are redrawn in any cycle at factor_share per row (the controller's writes in a
// softmax pass while the array is idle), the multipliers acc x alpha switching with them.
// Neither reset nor fill cycles are counted: a point is measured after them.
constexpr int kTiles = 4;

std::string rescale_declarations(const TestbenchPorts& ports) {
  std::ostringstream o;
  o << "  constexpr int ROWS = " << ports.at("alpha") / 32 << ", TILES = " << kTiles << ";\n"
    << "  constexpr uint64_t reset = " << kTestbenchResetCycles << ", fill = " << kTestbenchFillCycles << ";\n"
    << "  const int TK = side_share > 0 ? std::max(1, int(std::lround(1.0 / side_share))) : 1;\n"
    << "  std::bernoulli_distribution tile_start(enable_rate >= 1 ? 1.0 : enable_rate / (enable_rate + TK * (1 - "
       "enable_rate)));\n"
    << "  std::bernoulli_distribution keep_factor(0.5), new_max(factor_share), fill_flip(0.5);\n"
    << "  std::uniform_int_distribution<uint32_t> factor_of(0, 32767);\n"
    << "  int steps_left = 0, tile = 0;\n  bool write_factors = false;\n";
  return o.str();
}

std::string rescale_cycle(const TestbenchPorts& ports) {
  std::ostringstream o;
  o << "    top->rst_n = c >= reset;\n"
    << "    const bool filling = c >= reset && c < reset + fill, measured = c >= reset + fill;\n"
    << "    for (int r = 0; r < ROWS; ++r)\n"
    << "      if (c == 0 || (enable_rate == 0 && measured && new_max(rng)))\n"
    << "        put32(top->alpha, r, keep_factor(rng) ? 32768u : factor_of(rng));\n"
    << "      else if (write_factors)\n"
    << "        put32(top->alpha, r, new_max(rng) ? factor_of(rng) : 32768u);\n"
    << "    write_factors = false;\n"
    << "    if (measured && enable_rate > 0 && steps_left == 0 && tile_start(rng)) steps_left = TK;\n"
    << "    const bool stream = steps_left > 0, first = steps_left == TK;\n"
    << "    top->en = filling || stream;\n"
    << "    top->clr = stream && first && tile == 0;\n"
    << "    top->sc = stream && first && tile != 0;\n"
    << "    top->rd_row = 0;\n"
    << "    enabled += stream;\n    side += top->sc;\n"
    << "    if (filling || stream) {\n"
    << drive_data_port("x", ports.at("x"), "(filling ? fill_flip(rng) : flip(rng))", "filling")
    << drive_data_port("w", ports.at("w"), "(filling ? fill_flip(rng) : flip(rng))", "filling") << "    }\n"
    << "    if (stream && --steps_left == 0) {\n"
    << "      tile = (tile + 1) % TILES;\n      write_factors = tile != 0;\n    }\n";
  return o.str();
}

}  // namespace

TestbenchDriver rescale_tiles_driver() {
  return {"rescale_tiles",
          std::string("#include <algorithm>\n#include <cmath>\n#include <type_traits>\n") + kTestbenchPortAccess,
          rescale_declarations, rescale_cycle, nullptr};
}

}  // namespace fsgen
