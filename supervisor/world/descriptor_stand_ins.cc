#include "supervisor/world/descriptor_stand_ins.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "supervisor/world/output_capture.h"

namespace chess::supervisor {
namespace {

using Kind = StandardDescriptor::Kind;

const char* Name(int fd) { return fd == 0 ? "stdin" : fd == 1 ? "stdout" : "stderr"; }

// Moves a descriptor that took a free number among 0-2 above them (close-on-exec).
int AboveStandard(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  close(fd);
  return moved;
}

int Copy(int fd) { return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 3); }

// Another open file description of the file `fd` is (a terminal, a pipe, a memfd: not a socket).
int Reopen(int fd, int flags) {
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  return AboveStandard(open(path.c_str(), flags | O_CLOEXEC | O_NOCTTY));
}

// Whether `user` is what `recorded` says, links to other descriptors aside.
bool KindAlike(StandardDescriptor user, StandardDescriptor recorded) {
  user.same_file_as = recorded.same_file_as = -1;
  user.same_description_as = recorded.same_description_as = -1;
  return user == recorded;
}

// The memory device a recorded device number names, if it is one.
const char* MemoryDevice(uint32_t major_number, uint32_t minor_number) {
  if (major_number != 1) return nullptr;
  switch (minor_number) {
    case 3: return "/dev/null";
    case 5: return "/dev/zero";
    case 7: return "/dev/full";
    case 8: return "/dev/random";
    case 9: return "/dev/urandom";
    default: return nullptr;
  }
}

// A fresh pseudo-terminal with the recorded window size; its termios are a new terminal's.
Result<std::pair<int, int>> OpenTerminal(const StandardDescriptor& recorded) {
  const int master = AboveStandard(posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (master < 0) return Error{std::string("posix_openpt: ") + std::strerror(errno)};
  char path[64];
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, path, sizeof(path)) != 0) {
    const int error = errno;
    close(master);
    return Error{std::string("unlockpt: ") + std::strerror(error)};
  }
  const int terminal = AboveStandard(open(path, O_RDWR | O_NOCTTY | O_CLOEXEC));
  winsize size{};
  size.ws_row = recorded.rows;
  size.ws_col = recorded.columns;
  size.ws_xpixel = recorded.x_pixels;
  size.ws_ypixel = recorded.y_pixels;
  if (terminal < 0 || ioctl(master, TIOCSWINSZ, &size) != 0) {
    const int error = errno;
    close(master);
    if (terminal >= 0) close(terminal);
    return Error{std::string(path) + ": " + std::strerror(error)};
  }
  return std::pair{master, terminal};
}

}  // namespace

// What Install is going to do: for each descriptor that is replaced, the stand-in it gets (-1:
// closed).
struct DescriptorStandIns::Plan {
  std::array<int, 3> given{-1, -1, -1};
  std::array<bool, 3> replace{};

  ~Plan() {
    for (int fd : given) {
      if (fd >= 0) close(fd);
    }
  }
};

DescriptorStandIns::~DescriptorStandIns() { Restore(); }

void DescriptorStandIns::MakeStandIn(const StandardDescriptors& recorded, const std::vector<int>& group, Plan& plan) {
  const int first = group.front();
  const StandardDescriptor& kind = recorded[first];
  auto fall_short = [&](const std::string& why) {
    std::string names;
    for (int fd : group) names += std::string(names.empty() ? "" : " and ") + Name(fd);
    shortfalls_.push_back(names + ": " + why + "; the program gets this replay's own");
  };
  // Gives `made` to the group's first descriptor and to the others what they shared with it.
  auto give = [&](int made, int reopen_flags) {
    plan.given[first] = made;
    plan.replace[first] = true;
    for (size_t i = 1; i < group.size(); ++i) {
      const int fd = group[i];
      int same_description = -1;
      for (size_t j = 0; j < i && same_description < 0; ++j) {
        if (SharingOf(recorded, group[j], fd) == Sharing::kSameDescription) same_description = group[j];
      }
      int given = same_description >= 0 ? Copy(plan.given[same_description]) : Reopen(made, reopen_flags);
      if (given < 0) {
        shortfalls_.push_back(std::string(Name(fd)) + " was the same file as " + Name(first) +
                              " but opened apart, and that cannot be made again here (" + std::strerror(errno) +
                              "): it shares " + Name(first) + "'s");
        given = Copy(made);
      }
      plan.given[fd] = given;
      plan.replace[fd] = true;
    }
  };
  // The user's descriptor that gets what the program writes: the first output among them
  // (stdout for a terminal that was stdin too), or the user's stdout for stdin alone.
  auto destination = [&]() {
    for (int fd : group) {
      if (fd >= 1) return Copy(fd);
    }
    return Copy(1);
  };
  const bool input = first == 0;
  switch (kind.kind) {
    case Kind::kClosed:
      plan.replace[first] = true;
      return;
    case Kind::kTerminal: {
      auto terminal = OpenTerminal(kind);
      if (!terminal) return fall_short("no pseudo-terminal could be made (" + terminal.error() + ")");
      give(terminal->second, O_RDWR);
      relay_.AddStream(terminal->first, destination(), true);
      return;
    }
    case Kind::kPipe:
    case Kind::kFile:
    case Kind::kSocket:
      if (input) return fall_short("the trace holds no input for it");
      break;
    case Kind::kDevice: {
      const char* path = MemoryDevice(kind.major, kind.minor);
      if (path == nullptr) {
        return fall_short("the character device " + std::to_string(kind.major) + ":" + std::to_string(kind.minor) +
                          " is not one chess-trace gives");
      }
      const int device = AboveStandard(open(path, O_RDWR | O_NOCTTY | O_CLOEXEC));
      if (device < 0) return fall_short(std::string(path) + ": " + std::strerror(errno));
      give(device, O_RDWR);
      return;
    }
    case Kind::kOther:
      return fall_short("its kind of file is not one chess-trace gives");
  }
  if (kind.kind == Kind::kPipe) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return fall_short(std::string("pipe: ") + std::strerror(errno));
    give(AboveStandard(ends[1]), O_WRONLY);
    relay_.AddStream(AboveStandard(ends[0]), destination(), false);
  } else if (kind.kind == Kind::kFile) {
    // Named as explore's captured output, which is where most recorded files come from.
    const int file = AboveStandard(memfd_create(first == 1 ? kCapturedStdout : kCapturedStderr, MFD_CLOEXEC));
    if (file < 0) return fall_short(std::string("memfd_create: ") + std::strerror(errno));
    give(file, O_RDWR);
    relay_.AddFile(Copy(file), destination());
  } else {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      return fall_short(std::string("socketpair: ") + std::strerror(errno));
    }
    shutdown(ends[1], SHUT_WR);  // the program reads nothing from it, as from an output socket
    give(AboveStandard(ends[0]), O_RDWR);
    relay_.AddStream(AboveStandard(ends[1]), destination(), false);
  }
}

Result<void> DescriptorStandIns::Install(const StandardDescriptors& recorded, bool input_apart) {
  const StandardDescriptors user = CurrentStandardDescriptors();
  const int lowest = input_apart ? 1 : 0;
  std::array<bool, 3> grouped{};
  std::array<bool, 3> passed{};
  Plan plan;
  for (int fd = lowest; fd < 3; ++fd) {
    if (grouped[fd]) continue;
    // The descriptors that were one file with this one (a terminal on all three, say).
    std::vector<int> group;
    for (int other = fd; other < 3; ++other) {
      if (SharingOf(recorded, fd, other) != Sharing::kApart) group.push_back(other);
    }
    // The user's own are given when they are alike, and stand to each other, and to the
    // user's descriptors already given, as the recording's did.
    bool alike = true;
    for (int member : group) {
      grouped[member] = true;
      alike = alike && KindAlike(user[member], recorded[member]);
      for (int other = lowest; other < 3; ++other) {
        const bool counts = other != member && (passed[other] || SharingOf(recorded, fd, other) != Sharing::kApart);
        if (counts && SharingOf(user, other, member) != SharingOf(recorded, other, member)) alike = false;
      }
    }
    if (alike) {
      for (int member : group) passed[member] = true;
      continue;
    }
    MakeStandIn(recorded, group, plan);
  }
  // Every stand-in is made: now chess-trace's descriptors change.
  for (int fd = 0; fd < 3; ++fd) {
    if (!plan.replace[fd]) continue;
    const int flags = fcntl(fd, F_GETFD);
    saved_[fd] = flags >= 0 && (flags & FD_CLOEXEC) == 0 ? Copy(fd) : -1;
    replaced_[fd] = true;
    if (plan.given[fd] < 0) {
      close(fd);
    } else if (dup2(plan.given[fd], fd) != fd) {  // the copy is inherited: dup2 clears close-on-exec
      const std::string reason = std::strerror(errno);
      Restore();
      return Error{std::string("cannot give the program its ") + Name(fd) + ": " + reason};
    }
  }
  if (!relay_.Empty()) {
    if (auto started = relay_.Start(); !started) {
      Restore();
      return started;
    }
  }
  return {};
}

void DescriptorStandIns::Flush() { relay_.Flush(std::chrono::seconds(1)); }

void DescriptorStandIns::Finish(const std::function<bool()>& give_up, bool hurry) {
  // The stand-ins chess-trace holds on 0-2 go first: nothing the program left can keep a relay
  // waiting for them.
  Restore();
  // In a hurry (the stop signal already came), what can be delivered within a second is.
  if (hurry) {
    relay_.Finish(nullptr, std::chrono::steady_clock::now() + std::chrono::seconds(1));
  } else {
    relay_.Finish(give_up);
  }
}

void DescriptorStandIns::Restore() {
  for (int fd = 0; fd < 3; ++fd) {
    if (!replaced_[fd]) continue;
    if (saved_[fd] >= 0) {
      dup2(saved_[fd], fd);
      close(saved_[fd]);
    } else {
      close(fd);
    }
    saved_[fd] = -1;
    replaced_[fd] = false;
  }
}

}  // namespace chess::supervisor
