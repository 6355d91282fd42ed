#include "core/write_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/folder_lock.h"
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

// The names of the files in folder d.
std::vector<std::string> files_in(const fs::path& d) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(WriteFile, AtomicWriteReplacesTheFileWhole) {
  const fs::path f = fs::path(test::scratch_dir("write_file")) / "out.csv";
  write_text_file(f, "old\n");
  write_file_atomically(f.string(), "trace", [](std::ostream& o) { o << "new\n"; });
  EXPECT_EQ(contents(f), "new\n");
  EXPECT_EQ(files_in(f.parent_path()), std::vector<std::string>{"out.csv"});  // no temporary left
}

TEST(WriteFile, AFailingWriterLeavesTheOldFileAndNoTemporary) {
  const fs::path f = fs::path(test::scratch_dir("write_file_throw")) / "out.csv";
  write_text_file(f, "old\n");
  EXPECT_THROW(write_file_atomically(f.string(), "trace",
                                     [](std::ostream& o) {
                                       o << "half";
                                       throw std::runtime_error("writer failed");
                                     }),
               std::runtime_error);
  EXPECT_EQ(contents(f), "old\n");
  EXPECT_EQ(files_in(f.parent_path()), std::vector<std::string>{"out.csv"});
}

TEST(WriteFile, AnUnwritablePathIsALocatedError) {
  const fs::path f = fs::path(test::scratch_dir("write_file_missing")) / "no_such_folder" / "out.csv";
  EXPECT_EQ(test::error_of([&] { write_file_atomically(f.string(), "power trace", [](std::ostream& o) { o << 1; }); }),
            f.string() + ": cannot write the power trace");
  EXPECT_FALSE(fs::exists(f));
  EXPECT_TRUE(files_in(f.parent_path().parent_path()).empty());
}

TEST(WriteFile, AFolderIsNoOutputFile) {
  const fs::path d = fs::path(test::scratch_dir("write_file_folder"));
  fs::create_directories(d / "trace.csv");
  EXPECT_EQ(test::error_of([&] {
              write_file_atomically((d / "trace.csv").string(), "power trace", [](std::ostream& o) { o << 1; });
            }),
            (d / "trace.csv").string() + ": is a folder: expected a file path for the power trace");
  EXPECT_EQ(files_in(d), std::vector<std::string>{"trace.csv"});
}

// Writers of one path at once each write their own temporary: the file is one of them, whole.
TEST(WriteFile, ConcurrentWritersOfOnePathEachLandWhole) {
  const fs::path f = fs::path(test::scratch_dir("write_file_race")) / "out.csv";
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i)
        write_file_atomically(f.string(), "trace", [&](std::ostream& o) { o << std::string(4096, char('a' + t)); });
    });
  for (auto& w : writers) w.join();
  const std::string c = contents(f);
  ASSERT_EQ(c.size(), 4096u);
  EXPECT_EQ(c, std::string(4096, c[0]));
  EXPECT_EQ(files_in(f.parent_path()), std::vector<std::string>{"out.csv"});
}

TEST(WriteFile, ATextFileUnderAFileNamesWhatItWrites) {
  const fs::path blocker = fs::path(test::scratch_dir("write_text_blocked")) / "stamp_dir";
  write_text_file(blocker, "a file where a folder is expected\n");
  const fs::path f = blocker / "build.stamp";
  EXPECT_EQ(test::error_of([&] { write_text_file(f, "stamp", "build stamp"); }),
            f.string() + ": cannot write the build stamp");
}

// A work folder is one run's at a time: a second hold fails at once naming the folder and
// what holds it (two golden replays in one folder overwrote each other's stimulus), and the
// folder is free again once the first is released.
TEST(FolderLock, ASecondRunInTheFolderFailsUntilTheFirstEnds) {
  const fs::path d = fs::path(test::scratch_dir("folder_lock"));
  {
    const FolderLock first(d.string(), "fsgen power --golden run");
    EXPECT_EQ(test::error_of([&] { FolderLock second(d.string(), "fsgen power --golden run"); }),
              d.string() + ": in use by another fsgen power --golden run, whose files this run would overwrite: "
                           "wait for it to end, or give this run another output folder");
  }
  EXPECT_NO_THROW(FolderLock again(d.string(), "fsgen characterize run"));
  EXPECT_NE(test::error_of([&] { FolderLock missing((d / "no_such_folder").string(), "fsgen characterize run"); })
                .find("cannot open the folder's lock"),
            std::string::npos);
}

// A waiting lock (a shared harness build) blocks until the holder lets go, then holds; a
// lock of another entry of the same folder does not wait.
TEST(FolderLock, AWaitingRunTakesTheLockWhenTheFirstEnds) {
  const fs::path d = fs::path(test::scratch_dir("folder_lock_wait"));
  std::atomic<bool> taken{false};
  std::thread second;
  {
    const FolderLock first(d.string(), "build", WhenLocked::kWait, ".design.lock");
    second = std::thread([&] {
      const FolderLock waiting(d.string(), "build", WhenLocked::kWait, ".design.lock");
      taken = true;
    });
    EXPECT_NO_THROW(FolderLock other(d.string(), "build", WhenLocked::kFail, ".other_design.lock"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(taken);
  }
  second.join();
  EXPECT_TRUE(taken);
}

}  // namespace
}  // namespace fsgen
