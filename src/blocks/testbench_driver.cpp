#include "blocks/testbench_driver.h"

#include <sstream>

namespace fsgen {

const char* const kTestbenchPortAccess = R"(template <class P> void put32(P& p, int word, uint32_t v) {
  if constexpr (!std::is_integral_v<P>) p[word] = v;
  else if constexpr (sizeof(P) > 4) p = (p & ~(uint64_t(0xFFFFFFFFu) << (32 * word))) | uint64_t(v) << (32 * word);
  else p = P(v);
}
template <class P> uint32_t get8(const P& p, int byte) {
  if constexpr (!std::is_integral_v<P>) return (p[byte / 4] >> (8 * (byte % 4))) & 0xFFu;
  else return uint32_t(uint64_t(p) >> (8 * byte)) & 0xFFu;
}
template <class P> void put8(P& p, int byte, uint32_t v) {
  if constexpr (!std::is_integral_v<P>) p[byte / 4] = (p[byte / 4] & ~(0xFFu << (8 * (byte % 4)))) | v << (8 * (byte % 4));
  else p = P((uint64_t(p) & ~(uint64_t(0xFF) << (8 * byte))) | uint64_t(v) << (8 * byte));
}
)";

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
