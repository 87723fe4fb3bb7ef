// CurrentStandardDescriptors and DescriptorStandIns on real descriptors 0-2. Each test runs in a
// child process, which sets its own 0-2 as a user's shell would (a pipe, files, /dev/null), so
// the test runner's are never touched; the child reports what it saw as text.
#include "supervisor/world/descriptor_stand_ins.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "supervisor/world/standard_descriptors.h"

namespace chess::supervisor {
namespace {

using Kind = StandardDescriptor::Kind;

// Runs `body` in a child process and returns what it returned, or what went wrong.
std::string InChild(const std::function<std::string()>& body) {
  int result[2];
  if (pipe2(result, O_CLOEXEC) != 0) return "pipe failed";
  const pid_t child = fork();
  if (child == 0) {
    const std::string text = body();
    (void)!write(result[1], text.data(), text.size());
    _exit(0);
  }
  close(result[1]);
  std::string text;
  char buffer[4096];
  for (;;) {
    pollfd readable{result[0], POLLIN, 0};
    if (poll(&readable, 1, 20'000) <= 0) {
      kill(child, SIGKILL);
      text += " (the child took more than 20 s)";
      break;
    }
    const ssize_t n = read(result[0], buffer, sizeof(buffer));
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(result[0]);
  waitpid(child, nullptr, 0);
  return text;
}

// Puts `fd` on `target` (0-2), as a shell's redirection does.
void Redirect(int fd, int target) {
  dup2(fd, target);
  close(fd);
}

std::string Read(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) text.append(buffer, static_cast<size_t>(n));
  return text;
}

std::string Words(const StandardDescriptors& fds) {
  std::string text;
  for (const StandardDescriptor& fd : fds) {
    text += std::to_string(static_cast<int>(fd.kind)) + "/" + std::to_string(fd.same_file_as) + "/" +
            std::to_string(fd.same_description_as);
    if (fd.kind == Kind::kTerminal) text += "/" + std::to_string(fd.columns) + "x" + std::to_string(fd.rows);
    if (fd.kind == Kind::kDevice) text += "/" + std::to_string(fd.major) + ":" + std::to_string(fd.minor);
    text += " ";
  }
  return text;
}

ino_t Inode(int fd) {
  struct stat st{};
  fstat(fd, &st);
  return st.st_ino;
}

TEST(StandardDescriptors, KindsAndWhatTheyShare) {
  // /dev/null; one pipe on 1 and 2 (2>&1); then 2 opened apart on the same pipe.
  const std::string seen = InChild([] {
    int ends[2];
    pipe(ends);
    Redirect(open("/dev/null", O_RDONLY), 0);
    Redirect(ends[1], 1);
    dup2(1, 2);
    std::string text = Words(CurrentStandardDescriptors());
    Redirect(open(("/proc/self/fd/" + std::to_string(1)).c_str(), O_WRONLY), 2);
    text += "| " + Words(CurrentStandardDescriptors());
    close(0);
    fcntl(1, F_SETFD, FD_CLOEXEC);  // chess-trace's own descriptor on a free number: closed for the program
    return text + "| " + Words(CurrentStandardDescriptors());
  });
  EXPECT_EQ(seen, "5/-1/-1/1:3 2/-1/-1 2/1/1 | 5/-1/-1/1:3 2/-1/-1 2/1/-1 | 0/-1/-1 0/-1/-1 2/-1/-1 ");
}

TEST(DescriptorStandIns, ATerminalOfTheRecordedSizeRelayedToTheUsersPipe) {
  const std::string seen = InChild([] {
    int ends[2];
    pipe(ends);
    Redirect(open("/dev/null", O_RDONLY), 0);
    Redirect(ends[1], 1);
    dup2(1, 2);
    const int user_reads = ends[0];
    const ino_t user_pipe = Inode(1);
    StandardDescriptors recorded;
    recorded[0] = {.kind = Kind::kDevice, .major = 1, .minor = 3};
    recorded[1] = {.kind = Kind::kTerminal, .rows = 30, .columns = 100};
    recorded[2] = recorded[1];
    recorded[2].same_file_as = recorded[2].same_description_as = 1;
    DescriptorStandIns stand_ins;
    if (auto installed = stand_ins.Install(recorded, false); !installed) return installed.error();
    const StandardDescriptors given = CurrentStandardDescriptors();
    std::string text = given == recorded ? "as recorded; " : "given " + Words(given) + "; ";
    (void)!write(1, "out\n", 4);
    (void)!write(2, "err\n", 4);
    stand_ins.Finish(nullptr, false);
    text += Inode(1) == user_pipe && Inode(2) == user_pipe ? "restored; " : "not restored; ";
    close(1);
    close(2);
    return text + Read(user_reads) + std::to_string(stand_ins.Shortfalls().size());
  });
  EXPECT_EQ(seen, "as recorded; restored; out\nerr\n0");
}

TEST(DescriptorStandIns, FilesApartForAUserWithOnePipe) {
  // explore's recording: two files; the user's: one pipe for both (2>&1 | cat).
  const std::string seen = InChild([] {
    int ends[2];
    pipe(ends);
    Redirect(open("/dev/null", O_RDONLY), 0);
    Redirect(ends[1], 1);
    dup2(1, 2);
    StandardDescriptors recorded;
    recorded[0] = {.kind = Kind::kDevice, .major = 1, .minor = 3};
    recorded[1] = {.kind = Kind::kFile};
    recorded[2] = {.kind = Kind::kFile};
    DescriptorStandIns stand_ins;
    if (auto installed = stand_ins.Install(recorded, false); !installed) return installed.error();
    const StandardDescriptors given = CurrentStandardDescriptors();
    std::string text = given == recorded ? "as recorded; " : "given " + Words(given) + "; ";
    (void)!write(1, "out\n", 4);
    stand_ins.Flush();  // a file has no order with another: what one holds goes first
    (void)!write(2, "err\n", 4);
    stand_ins.Finish(nullptr, false);
    close(1);
    close(2);
    return text + Read(ends[0]);
  });
  EXPECT_EQ(seen, "as recorded; out\nerr\n");
}

TEST(DescriptorStandIns, TheUsersOwnWhenAlikeAndWhatCannotBeGiven) {
  const std::string seen = InChild([] {
    Redirect(open("/dev/null", O_RDWR), 0);
    Redirect(memfd_create("out", 0), 1);
    Redirect(memfd_create("err", 0), 2);
    const ino_t out = Inode(1);
    StandardDescriptors recorded;
    recorded[0] = {.kind = Kind::kDevice, .major = 4, .minor = 64};  // a serial line: not given
    recorded[1] = {.kind = Kind::kFile};
    recorded[2] = {.kind = Kind::kClosed};
    DescriptorStandIns stand_ins;
    if (auto installed = stand_ins.Install(recorded, false); !installed) return installed.error();
    const StandardDescriptors given = CurrentStandardDescriptors();
    std::string text = Words(given) + (Inode(1) == out ? "the user's stdout; " : "another stdout; ");
    for (const std::string& shortfall : stand_ins.Shortfalls()) text += shortfall + "; ";
    stand_ins.Finish(nullptr, false);
    return text + (fcntl(2, F_GETFD) >= 0 ? "stderr back" : "stderr still closed");
  });
  EXPECT_EQ(seen,
            "5/-1/-1/1:3 1/-1/-1 0/-1/-1 the user's stdout; stdin: the character device 4:64 is not one chess-trace "
            "gives; the program gets this replay's own; stderr back");
}

TEST(DescriptorStandIns, StdinGivenApartIsLeftAlone) {
  const std::string seen = InChild([] {
    int ends[2];
    pipe(ends);
    Redirect(ends[0], 0);
    Redirect(open("/dev/null", O_WRONLY), 1);
    dup2(1, 2);
    const ino_t input = Inode(0);
    StandardDescriptors recorded;
    recorded[0] = {.kind = Kind::kPipe};
    recorded[1] = {.kind = Kind::kDevice, .major = 1, .minor = 3};
    recorded[2] = {.kind = Kind::kDevice, .same_file_as = 1, .same_description_as = 1, .major = 1, .minor = 3};
    DescriptorStandIns stand_ins;
    if (auto installed = stand_ins.Install(recorded, true); !installed) return installed.error();
    std::string text = Inode(0) == input ? "stdin left" : "stdin replaced";
    stand_ins.Finish(nullptr, false);
    return text + " " + std::to_string(stand_ins.Shortfalls().size());
  });
  EXPECT_EQ(seen, "stdin left 0");
}

}  // namespace
}  // namespace chess::supervisor
