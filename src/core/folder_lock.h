// An exclusive hold on a work folder for the life of the object, so that two fsgen runs
// that would rewrite the same builds' files (a gate-level replay's stimulus, its VCD) fail
// at once instead of corrupting each other's results, or, for a build the second run can
// reuse (a design's Verilator harness), wait for the first to finish it.
#pragma once
#include <string>

namespace fsgen {

enum class WhenLocked { kFail, kWait };

class FolderLock {
 public:
  // Locks <dir>/<lock_name> (flock, released when the process ends however it ends).
  // When another run holds it: kFail throws a UserError naming the folder and `holder` (what
  // uses it, for the message); kWait blocks until that run releases it. A lock_name of its
  // own locks one entry of the folder (a subfolder that is replaced whole keeps no lock).
  FolderLock(const std::string& dir, const std::string& holder, WhenLocked when_locked = WhenLocked::kFail,
             const std::string& lock_name = ".fsgen.lock");
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace fsgen
