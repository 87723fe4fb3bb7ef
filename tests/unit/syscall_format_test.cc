#include "supervisor/report/syscall_format.h"

#include <gtest/gtest.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#include "seccomp/arch.h"
#include "seccomp/hypercall_abi.h"

namespace chess::supervisor {
namespace {

TrappedCall Futex(uint64_t address, uint64_t op, uint64_t val, uint64_t timeout = 0, uint64_t val3 = 0) {
  TrappedCall call;
  call.nr = SYS_futex;
  call.args[0] = address;
  call.args[1] = op;
  call.args[2] = val;
  call.args[3] = timeout;
  call.args[5] = val3;
  return call;
}

TEST(FormatCall, FutexShowsWhatEachOperationMeans) {
  EXPECT_EQ(FormatCall(Futex(0x1000, FUTEX_WAIT_PRIVATE, 2)), "futex(0x1000, FUTEX_WAIT_PRIVATE, 2, NULL)");
  EXPECT_EQ(FormatCall(Futex(0x1000, FUTEX_WAKE_PRIVATE, 1)), "futex(0x1000, FUTEX_WAKE_PRIVATE, 1)");
  EXPECT_EQ(FormatCall(Futex(0x2000, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 7, 0, 0xffffffff)),
            "futex(0x2000, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, 7, NULL, 0xffffffff)");
  EXPECT_EQ(FormatCall(Futex(0x3000, FUTEX_UNLOCK_PI_PRIVATE, 0)), "futex(0x3000, FUTEX_UNLOCK_PI_PRIVATE)");
}

TEST(FormatCall, TheShimsAnnouncementsReadAsTheCallTheyPrecede) {
  TrappedCall announcement;
  announcement.nr = seccomp::kHypercallFirst + CHESS_HC_SYNC_OP;
  announcement.args[0] = CHESS_OP_SEM_WAIT | CHESS_OP_FLAG_TRY;
  announcement.args[1] = 0x55555555b7d0;
  EXPECT_EQ(FormatCall(announcement), "a semaphore wait (try) on 0x55555555b7d0, announced by the preload shim");
  announcement.args[0] = CHESS_OP_MUTEX_LOCK;
  EXPECT_EQ(FormatCall(announcement), "a mutex lock on 0x55555555b7d0, announced by the preload shim");
  announcement.args[0] = CHESS_OP_COND_WAIT | CHESS_OP_FLAG_TIMED;
  EXPECT_EQ(FormatCall(announcement),
            "a condition-variable wait (with a timeout) on 0x55555555b7d0, announced by the preload shim");
  EXPECT_EQ(FormatCall(announcement).find("syscall_"), std::string::npos);
  // Where the report knows the variable, it is named instead of its address.
  announcement.args[0] = CHESS_OP_MUTEX_LOCK;
  EXPECT_EQ(FormatCall(announcement, 0, "balance_lock (bank)"),
            "a mutex lock on balance_lock (bank), announced by the preload shim");
}

TEST(FormatCall, OtherTrappedAndUntrappedCalls) {
  TrappedCall sleep;
  sleep.nr = SYS_nanosleep;
  sleep.args[0] = 0x7ffd0000;
  EXPECT_EQ(FormatCall(sleep), "nanosleep(0x7ffd0000, NULL)");
  TrappedCall read;
  read.nr = SYS_read;
  read.args[0] = 0;
  read.args[1] = 0x5000;
  read.args[2] = 4096;
  EXPECT_EQ(FormatCall(read), "read(0, 0x5000, 4096)");
}

}  // namespace
}  // namespace chess::supervisor
