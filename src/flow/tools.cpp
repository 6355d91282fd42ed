#include "flow/tools.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "core/error.h"
#include "core/write_file.h"

namespace fsgen {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string find_tool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    fs::path p = fs::path(dir) / name;
    if (fs::exists(p)) return p.string();
  }
  return "";
}

std::string require_tool(const std::string& name) {
  const std::string path = find_tool(name);
  if (path.empty()) fail(name, "tool not found on PATH: install it with scripts/install-deps.sh");
  return path;
}

namespace {

// The child side of run_command: a supervisor leading a process group of its own, which runs
// the command in a shell and, should fsgen die first (its parent-death signal), takes the
// whole group down with it, so that no build or tool outlives a killed run.
[[noreturn]] void supervise(const std::string& command, int out_fd, pid_t parent) {
  setpgid(0, 0);
  struct sigaction kill_group {};
  kill_group.sa_handler = [](int) { kill(0, SIGKILL); };
  sigaction(SIGTERM, &kill_group, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) kill(0, SIGKILL);  // fsgen died before the signal was armed
  dup2(out_fd, STDOUT_FILENO);
  dup2(out_fd, STDERR_FILENO);
  close(out_fd);
  const pid_t shell = fork();
  if (shell == 0) {
    signal(SIGTERM, SIG_DFL);
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  if (shell < 0 || waitpid(shell, &status, 0) < 0) _exit(127);
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

}  // namespace

CommandResult run_command(const std::string& command) {
  CommandResult r{0, ""};
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) fail(command, "cannot start command: no pipe");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    fail(command, "cannot start command: fork failed");
  }
  if (pid == 0) {
    close(fds[0]);
    const int out = dup(fds[1]);  // without O_CLOEXEC: the shell writes to it
    supervise(command, out, parent);
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) != 0) {
    if (n > 0)
      r.output.append(buf, size_t(n));
    else if (errno != EINTR)
      break;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string verilator_objcache() { return find_tool("ccache").empty() ? "" : " OBJCACHE=ccache"; }

std::string fingerprint_key(const std::string& fingerprint) {
  return std::to_string(std::hash<std::string>{}(fingerprint));
}

namespace {
std::string stamp_of(const std::string& fingerprint) { return fingerprint_key(fingerprint); }
}  // namespace

bool stamp_matches(const std::string& stamp_file, const std::string& fingerprint) {
  return fs::exists(stamp_file) && read_text_file(stamp_file) == stamp_of(fingerprint);
}

void write_stamp(const std::string& stamp_file, const std::string& fingerprint) {
  write_text_file(stamp_file, stamp_of(fingerprint), "build stamp");
}

std::string tool_version(const std::string& tool, const std::string& flag) {
  const CommandResult r = run_command(shell_quote(require_tool(tool)) + " " + flag);
  std::string v = r.output.substr(0, r.output.find('\n'));
  return v.empty() ? "unknown" : v;
}

}  // namespace fsgen
