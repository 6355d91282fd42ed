#include "blocks/testbench_driver.h"

#include <sstream>

namespace fsgen {

std::string drive_data_port(const std::string& name, size_t width, const std::string& flip,
                            const std::string& filling) {
  const std::string when_zeroed = filling.empty() ? "" : "!(" + filling + ") && ";
  const std::string counted = filling.empty() ? "" : "if (!(" + filling + ")) { ",
                    counted_end = filling.empty() ? "" : " }";
  std::ostringstream o;
  const size_t words = (width + 31) / 32;
  const bool wide = width > 64;
  auto word = [&](const std::string& w) { return wide ? "top->" + name + "[" + w + "]" : std::string("top->") + name; };
  o << "    {\n";
  if (wide) {
    o << "      for (int w = 0; w < " << words << "; ++w) { uint32_t m = 0; for (int b = 0; b < 32 && w * 32 + b < "
      << width << "; ++b) if (" << flip << ") m |= 1u << b; " << word("w") << " ^= m; }\n"
      << "      for (int y = 0; y < " << (width + 7) / 8 << "; ++y) {\n"
      << "        uint32_t& v = " << word("y / 4") << "; const int sh = (y % 4) * 8;\n"
      << "        if (" << when_zeroed << "zero(rng)) v &= ~(0xFFu << sh);\n"
      << "        " << counted << "zero_bytes += ((v >> sh) & 0xFFu) == 0; ++data_bytes;" << counted_end
      << "\n      }\n";
  } else {
    o << "      uint64_t m = 0; for (int b = 0; b < " << width << "; ++b) if (" << flip << ") m |= 1ull << b;\n"
      << "      uint64_t v = uint64_t(top->" << name << ") ^ m;\n"
      << "      for (int y = 0; y < " << (width + 7) / 8 << "; ++y) {\n"
      << "        if (" << when_zeroed << "zero(rng)) v &= ~(0xFFull << (8 * y));\n"
      << "        " << counted << "zero_bytes += ((v >> (8 * y)) & 0xFFull) == 0; ++data_bytes;" << counted_end
      << "\n      }\n"
      << "      top->" << name << " = v;\n";
  }
  o << "    }\n";
  return o.str();
}

}  // namespace fsgen
