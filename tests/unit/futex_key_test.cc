// Futex keys as the kernel makes them: a shared futex on MAP_SHARED memory is keyed by the
// backing object, so two mappings of one file meet; on private memory it stays per address
// space. Looked up in this test process's own mappings.
#include "supervisor/handlers/futex_key.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

namespace chess::supervisor {
namespace {

class FutexKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    process_.tgid = getpid();
    process_.address_space = 7;
    thread_.tid = getpid();
    thread_.process = &process_;
  }
  Process process_;
  Thread thread_;
};

TEST_F(FutexKeyTest, TwoMappingsOfOneFileMeet) {
  const int file = memfd_create("futex_key_test", MFD_CLOEXEC);
  ASSERT_GE(file, 0);
  ASSERT_EQ(ftruncate(file, 2 * 4096), 0);
  auto* first = static_cast<char*>(mmap(nullptr, 2 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0));
  // The second maps from the file's second page: offsets count from the file, not the mapping.
  auto* second = static_cast<char*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, file, 4096));
  ASSERT_NE(first, MAP_FAILED);
  ASSERT_NE(second, MAP_FAILED);
  const FutexKey a = MakeFutexKey(thread_, reinterpret_cast<uint64_t>(first + 4096 + 8), true);
  const FutexKey b = MakeFutexKey(thread_, reinterpret_cast<uint64_t>(second + 8), true);
  EXPECT_EQ(a.kind, FutexKey::Kind::kSharedObject);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.offset, 4096u + 8u);
  const FutexKey other = MakeFutexKey(thread_, reinterpret_cast<uint64_t>(first + 8), true);
  EXPECT_NE(a, other);
  munmap(first, 2 * 4096);
  munmap(second, 4096);
  close(file);
}

TEST_F(FutexKeyTest, PrivateMemoryStaysInItsAddressSpace) {
  static int word = 0;
  const auto address = reinterpret_cast<uint64_t>(&word);
  const FutexKey shared = MakeFutexKey(thread_, address, true);
  EXPECT_EQ(shared.kind, FutexKey::Kind::kSharedPrivateMemory);
  EXPECT_EQ(shared.space, 7u);
  EXPECT_EQ(shared.offset, address);
  const FutexKey private_key = MakeFutexKey(thread_, address, false);
  EXPECT_EQ(private_key.kind, FutexKey::Kind::kPrivate);
  EXPECT_EQ(private_key.offset, address);
}

TEST_F(FutexKeyTest, AnAddressNothingMapsIsPerAddressSpace) {
  const FutexKey key = MakeFutexKey(thread_, 0x10, true);  // below mmap_min_addr: never mapped
  EXPECT_EQ(key.kind, FutexKey::Kind::kSharedPrivateMemory);
}

}  // namespace
}  // namespace chess::supervisor
