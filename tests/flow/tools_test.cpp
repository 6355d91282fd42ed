// Running external tools: their output and status, and no tool outliving a killed fsgen.
#include "flow/tools.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "test_util.h"

namespace fsgen {
namespace {

TEST(Tools, RunCommandGathersOutputAndStatus) {
  const CommandResult ok = run_command("echo out; echo err 1>&2");
  EXPECT_EQ(ok.status, 0);
  EXPECT_EQ(ok.output, "out\nerr\n");
  EXPECT_EQ(run_command("exit 3").status, 3);
  EXPECT_EQ(run_command("kill -9 $$").status, 128);  // a signal ends the shell
}

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

// A process running a command that starts a long grandchild is killed with SIGKILL, as a
// user's kill -9 or an out-of-memory kill would: the grandchild dies with it.
TEST(Tools, ACommandDiesWithAKilledParent) {
  const std::string dir = test::scratch_dir("tools_kill");
  const std::string pid_file = dir + "/sleeper.pid";
  const pid_t runner = fork();
  ASSERT_GE(runner, 0);
  if (runner == 0) {
    run_command("sleep 60 & echo $! > " + shell_quote(pid_file) + "; wait");
    _exit(0);
  }
  pid_t sleeper = 0;
  for (int i = 0; i < 200 && sleeper == 0; ++i) {  // the grandchild's pid, once written
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream(pid_file) >> sleeper;
  }
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(alive(sleeper));
  kill(runner, SIGKILL);
  waitpid(runner, nullptr, 0);
  for (int i = 0; i < 200 && alive(sleeper); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(alive(sleeper)) << "the command's process outlived the killed run";
}

}  // namespace
}  // namespace fsgen
