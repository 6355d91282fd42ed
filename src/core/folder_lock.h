// An exclusive hold on a work folder for the life of the object, so that two fsgen runs
// that would rewrite the same builds' files (a gate-level replay's stimulus, its VCD) fail
// at once instead of corrupting each other's results.
#pragma once
#include <string>

namespace fsgen {

class FolderLock {
 public:
  // Locks <dir>/.fsgen.lock (flock, released when the process ends however it ends).
  // UserError naming the folder and `holder` (what uses it, for the message) when another
  // run holds it.
  FolderLock(const std::string& dir, const std::string& holder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace fsgen
