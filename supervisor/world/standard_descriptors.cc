#include "supervisor/world/standard_descriptors.h"

#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

namespace chess::supervisor {
namespace {

// Whether descriptors a and b, which are one file, are also one open file description. kcmp
// tells; where it is refused (a kernel without it, a seccomp profile), one file on two standard
// descriptors is taken to be a shell's dup of one description, as it nearly always is.
bool SameDescription(int a, int b) {
  const pid_t self = getpid();
  const long same = syscall(SYS_kcmp, self, self, KCMP_FILE, a, b);
  return same == 0 || same < 0;
}

StandardDescriptor Inspect(int fd, struct stat& st) {
  StandardDescriptor described;
  const int flags = fcntl(fd, F_GETFD);
  if (flags < 0 || (flags & FD_CLOEXEC) != 0 || fstat(fd, &st) != 0) return described;  // kClosed
  using Kind = StandardDescriptor::Kind;
  if (S_ISREG(st.st_mode)) {
    described.kind = Kind::kFile;
  } else if (S_ISFIFO(st.st_mode)) {
    described.kind = Kind::kPipe;
  } else if (S_ISSOCK(st.st_mode)) {
    described.kind = Kind::kSocket;
  } else if (S_ISCHR(st.st_mode)) {
    termios settings{};
    if (tcgetattr(fd, &settings) == 0) {
      described.kind = Kind::kTerminal;
      winsize size{};
      if (ioctl(fd, TIOCGWINSZ, &size) == 0) {
        described.rows = size.ws_row;
        described.columns = size.ws_col;
        described.x_pixels = size.ws_xpixel;
        described.y_pixels = size.ws_ypixel;
      }
    } else {
      described.kind = Kind::kDevice;
      described.major = major(st.st_rdev);
      described.minor = minor(st.st_rdev);
    }
  } else {
    described.kind = Kind::kOther;
  }
  return described;
}

}  // namespace

StandardDescriptors CurrentStandardDescriptors() {
  StandardDescriptors descriptors;
  struct stat files[3] = {};
  for (int fd = 0; fd < 3; ++fd) {
    StandardDescriptor& described = descriptors[fd];
    described = Inspect(fd, files[fd]);
    if (described.kind == StandardDescriptor::Kind::kClosed) continue;
    for (int before = 0; before < fd; ++before) {
      if (descriptors[before].kind == StandardDescriptor::Kind::kClosed || files[before].st_dev != files[fd].st_dev ||
          files[before].st_ino != files[fd].st_ino) {
        continue;
      }
      if (described.same_file_as < 0) described.same_file_as = static_cast<int8_t>(before);
      if (described.same_description_as < 0 && descriptors[before].same_description_as < 0 && SameDescription(before, fd)) {
        described.same_description_as = static_cast<int8_t>(before);
      }
    }
  }
  return descriptors;
}

Sharing SharingOf(const StandardDescriptors& descriptors, int a, int b) {
  if (a == b) return Sharing::kSameDescription;
  const auto file = [&](int fd) { return descriptors[fd].same_file_as >= 0 ? descriptors[fd].same_file_as : fd; };
  const auto description = [&](int fd) {
    return descriptors[fd].same_description_as >= 0 ? descriptors[fd].same_description_as : fd;
  };
  if (descriptors[a].kind == StandardDescriptor::Kind::kClosed || file(a) != file(b)) return Sharing::kApart;
  return description(a) == description(b) ? Sharing::kSameDescription : Sharing::kSameFile;
}

}  // namespace chess::supervisor
