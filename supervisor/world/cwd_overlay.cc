#include "supervisor/world/cwd_overlay.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace chess::supervisor {
namespace {

// How many mounts Unmount takes down at most before it gives up: the overlay, its layer, and a
// few the program may have stacked there itself.
constexpr int kMostMountsOver = 8;

bool SameFile(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// The file system a directory is on, by name where it is a common one.
std::string FileSystemOf(const std::string& path) {
  struct statfs fs{};
  if (statfs(path.c_str(), &fs) != 0) return {};
  switch (static_cast<unsigned long>(fs.f_type)) {
    case EXT4_SUPER_MAGIC: return "ext4";
    case XFS_SUPER_MAGIC: return "xfs";
    case BTRFS_SUPER_MAGIC: return "btrfs";
    case TMPFS_MAGIC: return "tmpfs";
    case OVERLAYFS_SUPER_MAGIC: return "overlay";
    case NFS_SUPER_MAGIC: return "nfs";
    case 0x65735546: return "fuse";
    case PROC_SUPER_MAGIC: return "proc";
    case SYSFS_MAGIC: return "sysfs";
    case 0xff534d42: return "cifs";
    case 0x01021997: return "9p";
    default: {
      char hex[32];
      std::snprintf(hex, sizeof(hex), "type 0x%lx", static_cast<unsigned long>(fs.f_type));
      return hex;
    }
  }
}

}  // namespace

CwdOverlay::~CwdOverlay() {
  CloseLayers();
  if (lower_ >= 0) close(lower_);
}

int CwdOverlay::Hold(const std::string& path) {
  path_ = path;
  lower_ = open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  return lower_ >= 0 ? 0 : errno;
}

void CwdOverlay::CloseLayers() {
  if (layers_ >= 0) close(layers_);
  layers_ = -1;
  fresh_.reset();
}

void CwdOverlay::Forget() {
  CloseLayers();
  mounted_ = false;
}

int CwdOverlay::Unmount() {
  struct stat real{};
  if (fstat(lower_, &real) != 0) return errno;
  for (int i = 0; i < kMostMountsOver; ++i) {
    struct stat seen{};
    if (stat(path_.c_str(), &seen) == 0 && SameFile(seen, real)) {
      Forget();
      return 0;
    }
    // Detached: nothing of the last execution is left to use them (every process is gone).
    if (umount2(path_.c_str(), MNT_DETACH) != 0) return errno;
  }
  return EBUSY;
}

int CwdOverlay::Mount() {
  if (mounted_) {
    if (const int error = Unmount()) return error;
  }
  struct stat real{};
  if (fstat(lower_, &real) != 0) return errno;
  // The layer's tmpfs goes over the directory first, where nothing can reach it once the overlay
  // covers it; every path the overlay is given is a descriptor, so no name needs escaping.
  if (mount("tmpfs", path_.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0) return errno;
  mounted_ = true;
  layers_ = open(path_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (layers_ < 0) return errno;
  if (mkdirat(layers_, "upper", 0700) != 0 || mkdirat(layers_, "work", 0700) != 0) return errno;
  const int upper = openat(layers_, "upper", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  const int work = openat(layers_, "work", O_PATH | O_DIRECTORY | O_CLOEXEC);
  int error = upper < 0 || work < 0 ? errno : 0;
  if (error == 0) {
    // The merged directory shows the upper one's owner, mode and times: the real directory's.
    // (Without root, a user namespace maps only chess-trace's uid: another owner stays ours.)
    (void)!fchown(upper, real.st_uid, real.st_gid);
    const timespec times[2] = {real.st_atim, real.st_mtim};
    if (fchmod(upper, real.st_mode & 07777) != 0 || futimens(upper, times) != 0) error = errno;
  }
  if (error == 0) {
    const std::string options = "lowerdir=/proc/self/fd/" + std::to_string(lower_) + ",upperdir=/proc/self/fd/" +
                                std::to_string(upper) + ",workdir=/proc/self/fd/" + std::to_string(work);
    if (mount("overlay", path_.c_str(), "overlay", 0, options.c_str()) != 0) error = errno;
  }
  if (upper >= 0) close(upper);
  if (work >= 0) close(work);
  if (error != 0) return error;
  fresh_ = TmpState::Read({Layers() + "/upper"}, Layers());
  return fresh_ ? 0 : EIO;
}

bool CwdOverlay::Pristine() const {
  return mounted_ && fresh_ && TmpState::Read({Layers() + "/upper"}, Layers()) == fresh_;
}

std::string WhyNoOverlay(const std::string& cwd, int error) {
  const std::string fs = FileSystemOf(cwd);
  std::string text = "--isolate cwd: cannot put an overlay over the working directory " + cwd +
                     (fs.empty() ? "" : " (" + fs + ")") + ": " + std::strerror(error);
  if (error == ENODEV) {
    text += "; this kernel has no overlay file system (modprobe overlay, or leave cwd out of --isolate)";
  } else if (error == EPERM || error == EACCES) {
    text += getuid() == 0 ? "; the container or security policy forbids the mount (leave cwd out of --isolate)"
                          : "; without root an overlay needs Linux 5.11 or later and unprivileged user namespaces";
  } else if (error == EINVAL || error == EOPNOTSUPP || error == ENOTSUP) {
    text += "; an overlay's lower layer cannot be on this file system (an overlay nested too deep, or one "
            "without what overlayfs needs): run from a directory on a local disk, or leave cwd out of --isolate";
  }
  return text;
}

}  // namespace chess::supervisor
