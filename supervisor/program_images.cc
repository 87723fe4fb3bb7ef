#include "supervisor/program_images.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <tuple>

namespace chess::supervisor {
namespace {

Linking ReadLinking(int fd) {
  Elf64_Ehdr header{};
  if (pread(fd, &header, sizeof(header), 0) != static_cast<ssize_t>(sizeof(header))) return Linking::kUnknown;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr) || header.e_phnum == 0 || header.e_phnum > 256) {
    return Linking::kUnknown;
  }
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program{};
    const off_t at = static_cast<off_t>(header.e_phoff + i * sizeof(Elf64_Phdr));
    if (pread(fd, &program, sizeof(program), at) != static_cast<ssize_t>(sizeof(program))) return Linking::kUnknown;
    if (program.p_type == PT_INTERP) return Linking::kDynamic;
  }
  return Linking::kStatic;
}

}  // namespace

size_t ProgramImages::Exec(pid_t tid) {
  char link[64];
  std::snprintf(link, sizeof(link), "/proc/%d/exe", tid);
  char target[PATH_MAX];
  const ssize_t length = readlink(link, target, sizeof(target) - 1);
  const std::string path = length > 0 ? std::string(target, static_cast<size_t>(length)) : "?";
  if (auto found = by_path_.find(path); found != by_path_.end()) return found->second;
  images_.push_back({path, LinkingOf(link)});
  by_path_.emplace(path, images_.size() - 1);
  return images_.size() - 1;
}

std::string ProcessComm(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/comm", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char name[32];
  const ssize_t length = read(fd, name, sizeof(name));
  close(fd);
  if (length <= 0) return {};
  std::string comm(name, static_cast<size_t>(length));
  while (!comm.empty() && comm.back() == '\n') comm.pop_back();
  return comm;
}

bool ProgramImages::Matches(size_t image, const std::string& comm, const std::vector<std::string>& names) const {
  const std::string executable = image < images_.size() ? images_[image].path.substr(images_[image].path.rfind('/') + 1) : "";
  for (const std::string& name : names) {
    // The kernel keeps 15 bytes of the name: a longer one matches on them.
    if (name == executable || (!comm.empty() && name.substr(0, 15) == comm)) return true;
  }
  return false;
}

Linking LinkingOf(const std::string& path) {
  using Key = std::tuple<dev_t, ino_t, int64_t, int64_t>;
  static std::mutex mutex;
  static std::map<Key, Linking> cache;
  struct stat info{};
  if (stat(path.c_str(), &info) != 0) return Linking::kUnknown;
  const Key key{info.st_dev, info.st_ino, info.st_mtim.tv_sec, info.st_mtim.tv_nsec};
  std::lock_guard lock(mutex);
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Linking::kUnknown;
  const Linking linking = ReadLinking(fd);
  close(fd);
  cache.emplace(key, linking);
  return linking;
}

}  // namespace chess::supervisor
