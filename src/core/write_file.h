// Writing files, with located errors ("<path>: cannot write the <what>"): a build folder's
// file, and a user's output file written whole or not at all.
#pragma once
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <system_error>

#include "core/error.h"

namespace fsgen {

// Writes text into path (its folders created), for files in a build or work folder; what
// names the file in the error.
inline void write_text_file(const std::filesystem::path& path, const std::string& text,
                            const std::string& what = "file") {
  std::error_code ignored;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ignored);
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) fail(path.string(), "cannot write the " + what);
}

// The writer fills <path>.tmp, which is renamed over path only once written, so that a
// failed write (a full disk, a writer that throws) leaves neither a half file nor the
// temporary behind.
inline void write_file_atomically(const std::string& path, const std::string& what,
                                  const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp";
  try {
    std::ofstream out(tmp, std::ios::binary);
    if (out) write(out);
    out.close();
    if (!out) fail(path, "cannot write the " + what);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace fsgen
