// OutputRelay against real descriptors: a pipe, a pseudo-terminal (its "\n" → "\r\n" undone), a
// file followed as it grows; a user's pipe that nobody reads never makes the program's stand-in
// fill up, and a relay asked to finish or stopped always returns.
#include "supervisor/world/output_relay.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <sys/mman.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace chess::supervisor {
namespace {

using namespace std::chrono_literals;

struct Pipe {
  Pipe() { EXPECT_EQ(pipe2(ends, O_CLOEXEC), 0); }
  ~Pipe() {
    for (int fd : ends) {
      if (fd >= 0) close(fd);
    }
  }
  // The end given away to the relay, which closes it.
  int Give(int which) {
    const int fd = ends[which];
    ends[which] = -1;
    return fd;
  }
  int ends[2] = {-1, -1};
};

// What the pipe holds now, without waiting.
std::string Drain(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;) text.append(buffer, static_cast<size_t>(n));
  return text;
}

void WriteAll(int fd, const std::string& text) { ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size())); }

TEST(OutputRelay, CopiesAPipeWhileItRunsAndTheRestAtTheEnd) {
  Pipe program;
  Pipe user;
  OutputRelay relay;
  relay.AddStream(program.Give(0), user.Give(1), false);
  ASSERT_TRUE(relay.Start().ok());
  WriteAll(program.ends[1], "first\n");
  ASSERT_TRUE(relay.Flush(5s));
  EXPECT_EQ(Drain(user.ends[0]), "first\n");
  WriteAll(program.ends[1], "second\n");
  // The write end is still open (the namespace's init holds one too): Finish does not wait for
  // an end of file.
  const auto started = std::chrono::steady_clock::now();
  relay.Finish(nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);
  EXPECT_EQ(Drain(user.ends[0]), "second\n");
}

TEST(OutputRelay, UndoesWhatATerminalDoesToNewlines) {
  int master = -1;
  int terminal = -1;
  ASSERT_EQ(openpty(&master, &terminal, nullptr, nullptr, nullptr), 0);
  Pipe user;
  OutputRelay relay;
  relay.AddStream(master, user.Give(1), true);
  ASSERT_TRUE(relay.Start().ok());
  // ONLCR makes "a\r\r\nb\r\n…" of this; the relay gives back what was written, a "\r" at the
  // very end included.
  WriteAll(terminal, "a\r\nb\nc\rd\r");
  ASSERT_TRUE(relay.Flush(5s));
  termios raw{};
  ASSERT_EQ(tcgetattr(terminal, &raw), 0);
  raw.c_oflag &= ~static_cast<tcflag_t>(OPOST);
  ASSERT_EQ(tcsetattr(terminal, TCSANOW, &raw), 0);
  WriteAll(terminal, "\nraw\r\n");  // no output processing now: passed as it is
  close(terminal);
  relay.Finish(nullptr);
  EXPECT_EQ(Drain(user.ends[0]), "a\r\nb\nc\rd\r\nraw\r\n");
}

TEST(OutputRelay, FollowsAFileAsItGrows) {
  const int file = memfd_create("relay-test", MFD_CLOEXEC);
  ASSERT_GE(file, 0);
  Pipe user;
  OutputRelay relay;
  relay.AddFile(fcntl(file, F_DUPFD_CLOEXEC, 3), user.Give(1));
  ASSERT_TRUE(relay.Start().ok());
  WriteAll(file, "one ");
  ASSERT_TRUE(relay.Flush(5s));
  EXPECT_EQ(Drain(user.ends[0]), "one ");
  WriteAll(file, "two");
  relay.Finish(nullptr);
  EXPECT_EQ(Drain(user.ends[0]), "two");
  EXPECT_EQ(lseek(file, 0, SEEK_CUR), 7);  // the program's offset is its own
  close(file);
}

TEST(OutputRelay, TheProgramNeverWaitsForAUserWhoDoesNotRead) {
  Pipe program;
  Pipe user;  // nobody reads it: it fills at 64 KiB
  OutputRelay relay;
  relay.AddStream(program.Give(0), user.Give(1), false);
  ASSERT_TRUE(relay.Start().ok());
  fcntl(program.ends[1], F_SETFL, O_NONBLOCK);
  const std::string block(1 << 16, 'x');
  size_t written = 0;
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (written < (size_t{4} << 20) && std::chrono::steady_clock::now() < deadline) {
    const ssize_t n = write(program.ends[1], block.data(), block.size());
    if (n > 0) written += static_cast<size_t>(n);
    if (n < 0) {
      pollfd room{program.ends[1], POLLOUT, 0};
      poll(&room, 1, 100);
    }
  }
  EXPECT_EQ(written, size_t{4} << 20) << "the program's pipe stopped being drained";
  // Finishing waits for the user, but not past its deadline.
  const auto started = std::chrono::steady_clock::now();
  relay.Finish(nullptr, std::chrono::steady_clock::now() + 300ms);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

TEST(OutputRelay, GivesUpWhenAskedAndWhenTheUserIsGone) {
  Pipe program;
  Pipe stalled;
  {
    OutputRelay relay;
    relay.AddStream(program.Give(0), stalled.Give(1), false);
    ASSERT_TRUE(relay.Start().ok());
    const std::string block(1 << 16, 'y');
    for (int i = 0; i < 4; ++i) WriteAll(program.ends[1], block);
    const auto started = std::chrono::steady_clock::now();
    int asked = 0;
    relay.Finish([&] { return ++asked > 2; });
    EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
    EXPECT_GT(asked, 2);
  }
  Pipe again;
  Pipe gone;
  close(gone.Give(0));  // a pipe into `head` that has exited: EPIPE, not SIGPIPE
  OutputRelay relay;
  relay.AddStream(again.Give(0), gone.Give(1), false);
  ASSERT_TRUE(relay.Start().ok());
  WriteAll(again.ends[1], "nobody reads this\n");
  const auto started = std::chrono::steady_clock::now();
  relay.Finish(nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 3s);
}

}  // namespace
}  // namespace chess::supervisor
