// /proc/PID/maps read in one place (supervisor/proc_maps.h): each column of a line as the kernel
// writes it, a pathname with spaces or " (deleted)", anonymous memory, pseudo-mappings; and this
// process's own maps, which hold its executable and its vDSO.
#include "supervisor/proc_maps.h"

#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

namespace chess::supervisor {
namespace {

TEST(ProcMaps, EveryColumnOfAFileMapping) {
  const auto entry =
      ParseMapsLine("7f1c2a600000-7f1c2a628000 r-xp 00028000 fd:01 1311852                    /usr/lib/x86_64-linux-gnu/libc.so.6\n");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->start, 0x7f1c2a600000u);
  EXPECT_EQ(entry->end, 0x7f1c2a628000u);
  EXPECT_TRUE(entry->readable);
  EXPECT_FALSE(entry->writable);
  EXPECT_TRUE(entry->executable);
  EXPECT_FALSE(entry->shared);
  EXPECT_EQ(entry->offset, 0x28000u);
  EXPECT_EQ(entry->device_major, 0xfdu);
  EXPECT_EQ(entry->device_minor, 1u);
  EXPECT_EQ(entry->inode, 1311852u);
  EXPECT_EQ(entry->path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
  EXPECT_TRUE(entry->IsFile());
}

TEST(ProcMaps, APathKeepsItsSpacesAndItsDeletedMark) {
  const auto entry = ParseMapsLine("10000-11000 rw-s 00000000 00:05 77 /dev/shm/my data (deleted)\n");
  ASSERT_TRUE(entry);
  EXPECT_TRUE(entry->shared);
  EXPECT_TRUE(entry->writable);
  EXPECT_EQ(entry->path, "/dev/shm/my data (deleted)");
}

TEST(ProcMaps, AnonymousMemoryAndPseudoMappingsAreNoFiles) {
  const auto anonymous = ParseMapsLine("7ffd1000-7ffd3000 rw-p 00000000 00:00 0 \n");
  ASSERT_TRUE(anonymous);
  EXPECT_TRUE(anonymous->path.empty());
  EXPECT_FALSE(anonymous->IsFile());
  const auto vdso = ParseMapsLine("7ffd5000-7ffd7000 r-xp 00000000 00:00 0                          [vdso]\n");
  ASSERT_TRUE(vdso);
  EXPECT_EQ(vdso->path, "[vdso]");
  EXPECT_FALSE(vdso->IsFile());
}

TEST(ProcMaps, ATruncatedLineIsNone) {
  EXPECT_FALSE(ParseMapsLine("7ffd5000-7ffd7000 r-xp"));
  EXPECT_FALSE(ParseMapsLine(""));
}

TEST(ProcMaps, ThisProcessMapsItsExecutableAndItsVdso) {
  const std::vector<MapsEntry> maps = ReadMaps(getpid());
  ASSERT_FALSE(maps.empty());
  char self[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof(self) - 1), 0);
  EXPECT_TRUE(std::any_of(maps.begin(), maps.end(),
                          [&](const MapsEntry& m) { return m.executable && m.path == self; }));
  EXPECT_TRUE(std::any_of(maps.begin(), maps.end(), [](const MapsEntry& m) { return m.path == "[vdso]"; }));
  EXPECT_TRUE(std::is_sorted(maps.begin(), maps.end(),
                             [](const MapsEntry& a, const MapsEntry& b) { return a.start < b.start; }));
  EXPECT_TRUE(ReadMaps(-1).empty());
}

}  // namespace
}  // namespace chess::supervisor
