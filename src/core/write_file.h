// Writing files, with located errors ("<path>: cannot write the <what>"): a build folder's
// file, and a user's output file written whole or not at all.
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
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

// The writer fills a temporary file beside path (unique to this process and call), which is
// flushed to disk and renamed over path only once written whole, so that a failed write (a
// full disk, a writer that throws, a kill) leaves neither a half file nor the temporary
// behind, and two runs writing one path never share a temporary.
inline void write_file_atomically(const std::string& path, const std::string& what,
                                  const std::function<void(std::ostream&)>& write) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a folder: expected a file path for the " + what);
  static std::atomic<unsigned> calls{0};
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(calls++);
  auto remove_tmp = [&] {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
  };
  try {
    std::ofstream out(tmp, std::ios::binary);
    if (out) write(out);
    out.close();
    if (!out) fail(path, "cannot write the " + what);
    const int fd = ::open(tmp.c_str(), O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) {
      if (fd >= 0) ::close(fd);
      fail(path, "cannot flush the " + what + " to disk");
    }
    ::close(fd);
  } catch (...) {
    remove_tmp();
    throw;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    remove_tmp();
    fail(path, "cannot write the " + what + ": " + ec.message());
  }
}

// Line files that runs append to (datasets, validation records), resumable after a kill:
// a last line without its newline was cut by an interrupted run and is dropped (the file
// truncated after its last whole line, with a warning), so that the row is made again rather
// than read torn or glued to the next one. Returns the bytes dropped.
uint64_t drop_torn_last_line(const std::string& path);  // core/write_file.cpp

}  // namespace fsgen
