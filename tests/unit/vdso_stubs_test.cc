// The vDSO's stubs, planned on this process's own vDSO and run from a copy of it: each stub
// makes its syscall, and getrandom's refuses the state-size query.
#include "supervisor/vdso_stubs.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace chess::supervisor {
namespace {

std::vector<uint8_t> OwnVdso() {
  const auto* base = reinterpret_cast<const uint8_t*>(getauxval(AT_SYSINFO_EHDR));
  if (base == nullptr) return {};
  Elf64_Ehdr header;
  std::memcpy(&header, base, sizeof(header));
  return std::vector<uint8_t>(base, base + header.e_shoff + header.e_shnum * sizeof(Elf64_Shdr));
}

// The image with its stubs written, in executable memory of its own.
class StubbedCopy {
 public:
  StubbedCopy(std::vector<uint8_t> image, const std::vector<VdsoStub>& stubs) : size_(image.size()) {
    for (const VdsoStub& stub : stubs) std::copy(stub.code.begin(), stub.code.end(), image.begin() + stub.offset);
    memory_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    std::memcpy(memory_, image.data(), size_);
    mprotect(memory_, size_, PROT_READ | PROT_EXEC);
  }
  ~StubbedCopy() { munmap(memory_, size_); }
  template <typename F>
  F At(uint64_t offset) const {
    return reinterpret_cast<F>(static_cast<uint8_t*>(memory_) + offset);
  }

 private:
  size_t size_;
  void* memory_;
};

const VdsoStub* Find(const std::vector<VdsoStub>& stubs, std::string_view function) {
  const auto it = std::find_if(stubs.begin(), stubs.end(), [&](const VdsoStub& s) { return s.function == function; });
  return it == stubs.end() ? nullptr : &*it;
}

TEST(VdsoStubs, EveryClockFunctionOfTheKernelsVdsoGetsOneStub) {
  const std::vector<uint8_t> image = OwnVdso();
  if (image.empty()) GTEST_SKIP() << "no vDSO";
  const auto stubs = PlanVdsoStubs(image);
  ASSERT_TRUE(stubs.has_value());
  std::set<std::string_view> functions;
  std::set<uint64_t> offsets;
  for (const VdsoStub& stub : *stubs) {
    functions.insert(stub.function);
    offsets.insert(stub.offset);
    EXPECT_LE(stub.offset + stub.code.size(), image.size());
  }
  // Each exported twice (clock_gettime and __vdso_clock_gettime), stubbed once.
  EXPECT_EQ(functions.size(), stubs->size());
  EXPECT_EQ(offsets.size(), stubs->size());
  for (std::string_view name : {"clock_gettime", "gettimeofday", "time", "clock_getres", "getcpu"}) {
    EXPECT_TRUE(functions.count(name)) << name;
  }
}

TEST(VdsoStubs, TheStubsMakeTheirSyscalls) {
  const std::vector<uint8_t> image = OwnVdso();
  if (image.empty()) GTEST_SKIP() << "no vDSO";
  const auto stubs = PlanVdsoStubs(image);
  ASSERT_TRUE(stubs.has_value());
  const StubbedCopy copy(image, *stubs);

  timespec from_stub{}, from_syscall{};
  const auto clock_gettime_stub = copy.At<int (*)(clockid_t, timespec*)>(Find(*stubs, "clock_gettime")->offset);
  ASSERT_EQ(clock_gettime_stub(CLOCK_REALTIME, &from_stub), 0);
  syscall(SYS_clock_gettime, CLOCK_REALTIME, &from_syscall);
  EXPECT_LE(std::abs(from_stub.tv_sec - from_syscall.tv_sec), 1);
  // The syscall's error comes back as the kernel's vDSO returns it: negated.
  EXPECT_EQ(clock_gettime_stub(-1000, &from_stub), -EINVAL);

  const auto time_stub = copy.At<time_t (*)(time_t*)>(Find(*stubs, "time")->offset);
  time_t stored = 0;
  EXPECT_LE(std::abs(time_stub(&stored) - from_syscall.tv_sec), 1);
  EXPECT_LE(std::abs(stored - from_syscall.tv_sec), 1);

  unsigned cpu = ~0u;
  const auto getcpu_stub = copy.At<int (*)(unsigned*, unsigned*, void*)>(Find(*stubs, "getcpu")->offset);
  EXPECT_EQ(getcpu_stub(&cpu, nullptr, nullptr), 0);
  EXPECT_LT(cpu, 1u << 16);
}

TEST(VdsoStubs, GetrandomsStubRefusesTheStateQueryAndMakesTheSyscall) {
  const std::vector<uint8_t> image = OwnVdso();
  if (image.empty()) GTEST_SKIP() << "no vDSO";
  const auto stubs = PlanVdsoStubs(image);
  ASSERT_TRUE(stubs.has_value());
  const VdsoStub* getrandom = Find(*stubs, "getrandom");
  if (getrandom == nullptr) GTEST_SKIP() << "this kernel's vDSO has no getrandom (Linux < 6.11)";
  const StubbedCopy copy(image, *stubs);
  using Getrandom = ssize_t (*)(void*, size_t, unsigned, void*, size_t);
  const auto stub = copy.At<Getrandom>(getrandom->offset);
  uint8_t params[64] = {};
  EXPECT_EQ(stub(nullptr, 0, 0, params, ~size_t{0}), -ENOSYS);
  uint8_t bytes[32] = {};
  EXPECT_EQ(stub(bytes, sizeof(bytes), 0, nullptr, 0), static_cast<ssize_t>(sizeof(bytes)));
  EXPECT_TRUE(std::any_of(std::begin(bytes), std::end(bytes), [](uint8_t b) { return b != 0; }));
}

TEST(VdsoStubs, AnImageThatIsNotAnX8664VdsoGetsNone) {
  EXPECT_FALSE(PlanVdsoStubs({}).has_value());
  std::vector<uint8_t> image = OwnVdso();
  if (image.empty()) GTEST_SKIP() << "no vDSO";
  EXPECT_FALSE(PlanVdsoStubs(std::span(image).first(image.size() / 2)).has_value());  // cut short
  std::vector<uint8_t> thirty_two_bit = image;
  thirty_two_bit[EI_CLASS] = ELFCLASS32;
  EXPECT_FALSE(PlanVdsoStubs(thirty_two_bit).has_value());
  std::vector<uint8_t> not_elf = image;
  not_elf[0] = 0;
  EXPECT_FALSE(PlanVdsoStubs(not_elf).has_value());
}

}  // namespace
}  // namespace chess::supervisor
