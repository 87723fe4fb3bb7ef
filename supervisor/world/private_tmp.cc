#include "supervisor/world/private_tmp.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace chess::supervisor {
namespace {

// Creates `path` and its parents (mkdir -p); false when it cannot.
bool MakeDirectories(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

// Makes the place a kept directory or file is bound onto in the new tmpfs.
bool MakeMountPoint(const std::string& path, int held) {
  struct stat kept{};
  if (fstat(held, &kept) != 0) return false;
  if (S_ISDIR(kept.st_mode)) return MakeDirectories(path);
  if (!MakeDirectories(path.substr(0, path.rfind('/')))) return false;
  const int file = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (file < 0) return false;
  close(file);
  return true;
}

}  // namespace

std::vector<std::pair<std::string, int>> HoldKept(const std::vector<std::string>& kept) {
  std::vector<std::pair<std::string, int>> held;
  for (const std::string& path : kept) {
    const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
    if (fd >= 0) held.emplace_back(path, fd);
  }
  return held;
}

int MountPrivateTmp(const std::vector<std::pair<std::string, int>>& held, bool replace) {
  // Detached, the old tmpfs and what the last execution left in it are freed once unused; every
  // process of that execution is gone by now.
  if (replace && umount2("/tmp", MNT_DETACH) != 0) return errno;
  if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) return errno;
  for (const auto& [path, fd] : held) {
    const std::string source = "/proc/self/fd/" + std::to_string(fd);
    if (!MakeMountPoint(path, fd) || mount(source.c_str(), path.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      return errno;
    }
  }
  return 0;
}

std::vector<std::string> DirectoriesMadeFor(const std::vector<std::pair<std::string, int>>& held) {
  std::vector<std::string> made;
  for (const auto& [path, fd] : held) {
    for (size_t slash = path.find('/', 5); slash != std::string::npos; slash = path.find('/', slash + 1)) {
      const std::string directory = path.substr(0, slash);
      if (std::find(made.begin(), made.end(), directory) == made.end()) made.push_back(directory);
    }
  }
  return made;
}

std::optional<TmpState> TmpState::Read(const std::vector<std::string>& made, const std::string& root) {
  struct statfs fs{};
  if (statfs(root.c_str(), &fs) != 0 || fs.f_files == 0) return std::nullopt;
  TmpState state{fs.f_files - fs.f_ffree, fs.f_blocks - fs.f_bfree, {}};
  auto look = [&state](const char* path) {
    struct stat directory{};
    if (stat(path, &directory) != 0) return false;
    state.directories.push_back(
        {directory.st_mtim, directory.st_ctim, directory.st_mode, directory.st_uid, directory.st_gid});
    return true;
  };
  if (!look(root.c_str())) return std::nullopt;
  for (const std::string& path : made) {
    if (!look(path.c_str())) return std::nullopt;
  }
  return state;
}

}  // namespace chess::supervisor
