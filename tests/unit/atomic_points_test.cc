// The pure parts of atomic points: where breakpoints go, the address an operand names, and the
// decision at a stop in a learning execution and in a search's.
#include "supervisor/atomic_points.h"

#include <gtest/gtest.h>

namespace chess::supervisor {
namespace {

using code::AccessMode;
using code::AddressRegister;

PlantedSite Site(uint64_t address, AccessMode mode) {
  PlantedSite site;
  site.location = {"/usr/bin/program", address};
  site.site.address = address;
  site.site.length = 4;
  site.site.kind = code::SiteKind::kAtomic;
  code::MemoryAccess access;
  access.mode = mode;
  access.size = 8;
  access.base = AddressRegister::kRdi;
  access.displacement = 8;
  site.site.accesses.push_back(access);
  site.load_bias = 0x1000;
  return site;
}

TEST(AtomicPoints, NeverInTheShimNorInTheCLibraryWhoseSyncOperationsTheShimAnnounces) {
  EXPECT_FALSE(PlantsIn("/usr/lib/chess-trace/libchess_preload.so", false));
  EXPECT_FALSE(PlantsIn("/usr/lib/x86_64-linux-gnu/libc.so.6", true));
  EXPECT_FALSE(PlantsIn("/usr/lib64/ld-linux-x86-64.so.2", true));
  EXPECT_TRUE(PlantsIn("/usr/lib/x86_64-linux-gnu/libc.so.6", false));  // no shim: its locks are all there is
  EXPECT_TRUE(PlantsIn("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", true));
  EXPECT_TRUE(PlantsIn("/tmp/a.out", true));
}

TEST(AtomicPoints, TheAddressOfAnOperandFromTheRegistersBeforeTheInstruction) {
  user_regs_struct regs{};
  regs.rdi = 0x5000;
  regs.rcx = 3;
  regs.fs_base = 0x7000'0000;
  code::MemoryAccess access;
  access.base = AddressRegister::kRdi;
  access.index = AddressRegister::kRcx;
  access.scale = 8;
  access.displacement = -16;
  EXPECT_EQ(EffectiveAddress(access, regs, 0), 0x5000u + 24 - 16);
  code::MemoryAccess global;  // rip-relative, resolved in the file's numbering
  global.absolute = true;
  global.address = 0x4040;
  EXPECT_EQ(EffectiveAddress(global, regs, 0x5555'0000'0000), 0x5555'0000'4040u);
  code::MemoryAccess tls;
  tls.segment = AddressRegister::kFs;
  tls.displacement = 0x28;
  EXPECT_EQ(EffectiveAddress(tls, regs, 0), 0x7000'0028u);
}

TEST(AtomicPoints, ALearningExecutionNeverParksAndLearnsTheSitesRunBesideAnotherThread) {
  AtomicPointState state;
  const search::AtomicPointPlan learn;
  const PlantedSite alone = Site(0x100, AccessMode::kReadWrite);
  const PlantedSite beside = Site(0x200, AccessMode::kReadWrite);
  user_regs_struct regs{};
  regs.rdi = 0x9000;
  bool retire = true;
  AtomicStop stop = DecideAtomicStop(state, learn, alone, false, regs, retire);
  EXPECT_FALSE(stop.point);
  EXPECT_FALSE(retire);  // it may yet run beside another thread
  EXPECT_EQ(stop.resource, 0x9008u);
  EXPECT_TRUE(stop.is_write);
  EXPECT_EQ(stop.instruction, 0x1100u);
  stop = DecideAtomicStop(state, learn, beside, true, regs, retire);
  EXPECT_FALSE(stop.point);
  EXPECT_TRUE(retire);  // learned: its breakpoint has done its work
  EXPECT_EQ(state.count.learned_sites, 2u);
  EXPECT_EQ(state.count.stops, 2u);
  EXPECT_EQ(state.count.shared, (std::set<search::CodeLocation>{beside.location}));
  EXPECT_EQ(state.count.alone, (std::set<search::CodeLocation>{alone.location}));
  // Alone once, beside another thread later: no longer an alone site.
  DecideAtomicStop(state, learn, alone, true, regs, retire);
  EXPECT_TRUE(state.count.alone.empty());
  EXPECT_EQ(state.count.shared.size(), 2u);
}

TEST(AtomicPoints, ASearchParksOnlyBesideAnotherThreadAndUpToItsCap) {
  AtomicPointState state;
  search::AtomicPointPlan plan;
  plan.mode = search::AtomicPointPlan::Mode::kPoints;
  plan.max_points = 2;
  const PlantedSite site = Site(0x100, AccessMode::kRead);
  const user_regs_struct regs{};
  bool retire = false;
  EXPECT_FALSE(DecideAtomicStop(state, plan, site, false, regs, retire).point);  // alone: no decision
  const AtomicStop point = DecideAtomicStop(state, plan, site, true, regs, retire);
  EXPECT_TRUE(point.point);
  EXPECT_FALSE(point.is_write);
  EXPECT_TRUE(DecideAtomicStop(state, plan, site, true, regs, retire).point);
  EXPECT_FALSE(state.count.capped);
  EXPECT_FALSE(DecideAtomicStop(state, plan, site, true, regs, retire).point);
  EXPECT_TRUE(state.count.capped);
  EXPECT_FALSE(retire);
  EXPECT_EQ(state.count.points, 2u);
  EXPECT_EQ(state.count.stops, 4u);
}

}  // namespace
}  // namespace chess::supervisor
