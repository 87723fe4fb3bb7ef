// The watches of one address space while races are learned (supervisor/race_sampling.h): four at
// most, the least recently sampled given up first; none in the thread whose sample it was; a
// thread's watch narrowed to writes after its first read and dropped after its first write.
#include "supervisor/race_sampling.h"

#include <gtest/gtest.h>

namespace chess::supervisor {
namespace {

using Progress = WatchList::Progress;
using Trigger = Watch::Trigger;

constexpr search::ThreadId kSampler{1}, kOther{2};

std::vector<Watch> Armed(const std::array<std::optional<Watch>, kWatchSlots>& slots) {
  std::vector<Watch> armed;
  for (const auto& slot : slots) {
    if (slot) armed.push_back(*slot);
  }
  return armed;
}

TEST(WatchList, ASampleIsWatchedInEveryThreadButItsOwn) {
  WatchList list;
  const WatchList::Entry* entry = list.Watch(0x1004, 4, kSampler);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->watch, (Watch{.address = 0x1004, .length = 4, .trigger = Trigger::kReadWrite}));
  EXPECT_TRUE(Armed(list.SlotsFor(kSampler, {})).empty());
  EXPECT_EQ(Armed(list.SlotsFor(kOther, {})), std::vector<Watch>({entry->watch}));
}

TEST(WatchList, TheSameMemoryTwiceIsOneWatchRefreshed) {
  WatchList list;
  const uint64_t first = list.Watch(0x1000, 8, kSampler)->id;
  const uint64_t generation = list.generation();
  EXPECT_EQ(list.Watch(0x1000, 8, kOther)->id, first);
  EXPECT_EQ(list.entries().size(), 1u);
  EXPECT_EQ(list.generation(), generation);  // nothing a thread must arm anew
}

TEST(WatchList, TheLeastRecentlySampledGoesWhenTheSlotsAreFull) {
  WatchList list;
  for (uint64_t word = 0; word < kWatchSlots; ++word) list.Watch(0x1000 + 8 * word, 8, kSampler);
  list.Watch(0x1000, 8, kSampler);  // the first is used again: the second is now the oldest
  list.Watch(0x2000, 8, kSampler);
  ASSERT_EQ(list.entries().size(), static_cast<size_t>(kWatchSlots));
  std::vector<uint64_t> watched;
  for (const auto& entry : list.entries()) watched.push_back(entry.watch.address);
  EXPECT_NE(std::find(watched.begin(), watched.end(), 0x1000u), watched.end());
  EXPECT_EQ(std::find(watched.begin(), watched.end(), 0x1008u), watched.end());
  EXPECT_NE(std::find(watched.begin(), watched.end(), 0x2000u), watched.end());
}

TEST(WatchList, AThreadSeenReadingIsWatchedForWritesAndSeenWritingNotAtAll) {
  WatchList list;
  const uint64_t id = list.Watch(0x1000, 8, kSampler)->id;
  EXPECT_EQ(Armed(list.SlotsFor(kOther, {{id, Progress::kRead}})),
            std::vector<Watch>({{.address = 0x1000, .length = 8, .trigger = Trigger::kWrite}}));
  EXPECT_TRUE(Armed(list.SlotsFor(kOther, {{id, Progress::kWritten}})).empty());
}

TEST(WatchList, BytesWithNoCoverAreNotWatched) {
  WatchList list;
  EXPECT_EQ(list.Watch(0x1000, 0, kSampler), nullptr);
  EXPECT_TRUE(list.entries().empty());
}

TEST(WatchList, AnAccessOverTwoWordsIsWatchedOnItsFirst) {
  WatchList list;
  const WatchList::Entry* entry = list.Watch(0x1006, 4, kSampler);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->watch, (Watch{.address = 0x1000, .length = 8, .trigger = Trigger::kReadWrite}));
  EXPECT_EQ(entry->address, 0x1006u);
  EXPECT_EQ(entry->size, 2);  // the bytes the cover holds
}

TEST(WatchList, RemovingAnEntryChangesWhatThreadsArm) {
  WatchList list;
  const uint64_t id = list.Watch(0x1000, 8, kSampler)->id;
  const uint64_t generation = list.generation();
  list.Remove(id);
  EXPECT_NE(list.generation(), generation);
  EXPECT_TRUE(Armed(list.SlotsFor(kOther, {})).empty());
  list.Remove(id);  // gone already: nothing changes
  EXPECT_TRUE(list.entries().empty());
}

}  // namespace
}  // namespace chess::supervisor
