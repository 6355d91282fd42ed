#include "core/write_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "test_util.h"

namespace fsgen {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(WriteFile, AtomicWriteReplacesTheFileWhole) {
  const fs::path f = fresh_dir("fsgen_test_write_file") / "out.csv";
  write_text_file(f, "old\n");
  write_file_atomically(f.string(), "trace", [](std::ostream& o) { o << "new\n"; });
  EXPECT_EQ(contents(f), "new\n");
  EXPECT_FALSE(fs::exists(f.string() + ".tmp"));
}

TEST(WriteFile, AFailingWriterLeavesTheOldFileAndNoTemporary) {
  const fs::path f = fresh_dir("fsgen_test_write_file_throw") / "out.csv";
  write_text_file(f, "old\n");
  EXPECT_THROW(write_file_atomically(f.string(), "trace",
                                     [](std::ostream& o) {
                                       o << "half";
                                       throw std::runtime_error("writer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(contents(f), "old\n");
  EXPECT_FALSE(fs::exists(f.string() + ".tmp"));
}

TEST(WriteFile, AnUnwritablePathIsALocatedError) {
  const fs::path f = fresh_dir("fsgen_test_write_file_missing") / "no_such_folder" / "out.csv";
  EXPECT_EQ(test::error_of([&] { write_file_atomically(f.string(), "power trace", [](std::ostream& o) { o << 1; }); }),
            f.string() + ": cannot write the power trace");
  EXPECT_FALSE(fs::exists(f));
  EXPECT_FALSE(fs::exists(f.string() + ".tmp"));
}

TEST(WriteFile, ATextFileUnderAFileNamesWhatItWrites) {
  const fs::path blocker = fresh_dir("fsgen_test_write_text_blocked") / "stamp_dir";
  write_text_file(blocker, "a file where a folder is expected\n");
  const fs::path f = blocker / "build.stamp";
  EXPECT_EQ(test::error_of([&] { write_text_file(f, "stamp", "build stamp"); }),
            f.string() + ": cannot write the build stamp");
}

}  // namespace
}  // namespace fsgen
