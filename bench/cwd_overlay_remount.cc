// What a private working directory (--isolate …,cwd) costs a search per execution: the check
// the namespaces' init makes after every execution (CwdOverlay::Pristine), and the new overlay it
// mounts after one that wrote through the last (CwdOverlay::Mount: the old overlay and its
// tmpfs unmounted, a tmpfs and an overlay mounted). Runs the real code, in a mount namespace of
// its own (root, or a user namespace made here), over DIRECTORY, which it leaves as it was.
//
//   bench_cwd_overlay_remount N DIRECTORY
//
// Prints "check C us" and "remount R us" (the mean of N, each after one file was written).
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "supervisor/world/cwd_overlay.h"

namespace {

double Now() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

bool WriteFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return written;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s N DIRECTORY\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]);
  char resolved[4096];
  if (n <= 0 || realpath(argv[2], resolved) == nullptr) {
    std::fprintf(stderr, "N must be positive and DIRECTORY must exist\n");
    return 2;
  }
  const std::string directory = resolved;
  // Without root, a user namespace that maps our own ids, as chess-trace's init has.
  const uid_t uid = geteuid();
  const gid_t gid = getegid();
  const bool user = uid != 0;
  if (unshare(CLONE_NEWNS | (user ? CLONE_NEWUSER : 0)) != 0 ||
      (user && !(WriteFile("/proc/self/setgroups", "deny") &&
                 WriteFile("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") &&
                 WriteFile("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))) ||
      mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    std::perror("a mount namespace of its own");
    return 1;
  }
  chess::supervisor::CwdOverlay overlay;
  int error = overlay.Hold(directory);
  if (error == 0) error = overlay.Mount();
  if (error != 0) {
    std::fprintf(stderr, "%s\n", chess::supervisor::WhyNoOverlay(directory, error).c_str());
    return 1;
  }
  double checking = 0;
  double remounting = 0;
  for (int i = 0; i < n; ++i) {
    double start = Now();
    const bool pristine = overlay.Pristine();
    checking += Now() - start;
    if (!pristine) {
      std::fprintf(stderr, "an overlay nothing wrote through is not pristine\n");
      return 1;
    }
    if (!WriteFile(directory + "/written-by-an-execution", "x\n") || overlay.Pristine()) {
      std::fprintf(stderr, "a write through the overlay went unnoticed\n");
      return 1;
    }
    start = Now();
    if (const int failed = overlay.Mount(); failed != 0) {
      std::fprintf(stderr, "%s\n", chess::supervisor::WhyNoOverlay(directory, failed).c_str());
      return 1;
    }
    remounting += Now() - start;
    if (access((directory + "/written-by-an-execution").c_str(), F_OK) == 0) {
      std::fprintf(stderr, "the new overlay still shows the last one's file\n");
      return 1;
    }
  }
  std::printf("check %.1f us\nremount %.1f us\n", checking / n, remounting / n);
  return 0;
}
