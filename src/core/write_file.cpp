#include "core/write_file.h"

#include "core/log.h"

namespace fsgen {

uint64_t drop_torn_last_line(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (size <= 0) return 0;
  std::string text(size_t(size), '\0');
  in.seekg(0);
  in.read(text.data(), size);
  if (text.back() == '\n') return 0;
  const size_t keep = text.rfind('\n') + 1;  // 0 when no line is whole
  in.close();
  std::filesystem::resize_file(path, keep);
  logger().warn("{}: dropped a torn last line ({} bytes) left by an interrupted run", path, text.size() - keep);
  return text.size() - keep;
}

}  // namespace fsgen
