// The private /tmp of a search's namespaces (IsolatedInit): a tmpfs mounted on /tmp in the
// tree's mount namespace, with the paths that must stay visible (the working directory, the
// program, the files its arguments name) bound back in, and what tells whether an execution
// left anything in it. Runs in the namespaces' init.
#pragma once

#include <sys/types.h>
#include <time.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace chess::supervisor {

// Opens each directory or file of `kept` (under /tmp) before a tmpfs hides it.
std::vector<std::pair<std::string, int>> HoldKept(const std::vector<std::string>& kept);

// A fresh tmpfs on /tmp (over the last one, which goes, when `replace`), with the `held`
// directories and files bound back where they were. 0 or the errno.
int MountPrivateTmp(const std::vector<std::pair<std::string, int>>& held, bool replace);

// The directories strictly between /tmp and each kept path: the tmpfs's own, made to hold the
// kept paths' mount points.
std::vector<std::string> DirectoriesMadeFor(const std::vector<std::pair<std::string, int>>& held);

// What shows whether anything of an execution is left in a private /tmp: the inodes and blocks
// the tmpfs holds, and the times, mode and owner of its root and of the directories the kept
// paths needed. A file made anywhere in it takes an inode; a rename or a chmod changes a
// directory's times. (tmpfs takes them from a coarse clock: a file made and removed within a
// tick of the mount leaves the times as they were, and nothing else behind.) Kept directories
// are bound-in real ones, which no new tmpfs resets anyway.
struct TmpState {
  struct Directory {
    timespec modified{};
    timespec changed{};
    mode_t mode = 0;
    uid_t owner = 0;
    gid_t group = 0;

    bool operator==(const Directory& other) const {
      auto same = [](const timespec& a, const timespec& b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; };
      return same(modified, other.modified) && same(changed, other.changed) && mode == other.mode &&
             owner == other.owner && group == other.group;
    }
  };
  uint64_t inodes_used = 0;
  uint64_t blocks_used = 0;
  std::vector<Directory> directories;  // /tmp, then the directories the kept paths needed

  // `made`: the directories the tmpfs holds for the kept paths' mount points (a chmod there takes no inode).
  // `root`: where the tmpfs is (a private working directory's layers are reached through /proc/self/fd).
  static std::optional<TmpState> Read(const std::vector<std::string>& made, const std::string& root = "/tmp");
  bool operator==(const TmpState& other) const {
    return inodes_used == other.inodes_used && blocks_used == other.blocks_used && directories == other.directories;
  }
};

}  // namespace chess::supervisor
