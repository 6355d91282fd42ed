#include "core/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace fsgen {

FolderLock::FolderLock(const std::string& dir, const std::string& holder, WhenLocked when_locked,
                       const std::string& lock_name) {
  const std::string path = (std::filesystem::path(dir) / lock_name).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail(path, std::string("cannot open the folder's lock: ") + std::strerror(errno));
  const int mode = when_locked == WhenLocked::kWait ? LOCK_EX : LOCK_EX | LOCK_NB;
  int status;
  do status = ::flock(fd_, mode);
  while (status != 0 && errno == EINTR);
  if (status == 0) return;
  const int err = errno;
  ::close(fd_);
  fd_ = -1;
  if (err == EWOULDBLOCK)
    fail(dir, "in use by another " + holder + ", whose files this run would overwrite: wait for it to end, or give this run "
              "another output folder");
  fail(path, std::string("cannot lock the folder: ") + std::strerror(err));
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the descriptor releases the lock
}

}  // namespace fsgen
