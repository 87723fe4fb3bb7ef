// The vDSO with virtual time: the kernel's image stays mapped and announced (AT_SYSINFO_EHDR),
// so programs that parse it find it, but the entry of each function that would read the time or
// produce randomness without a syscall is overwritten with a stub that makes the syscall, which
// the supervisor answers (virtual clock, seeded randomness).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace chess::supervisor {

// Bytes to write at `offset` from the image's start.
struct VdsoStub {
  std::string_view function;  // the symbol's name without "__vdso_"
  uint64_t offset = 0;
  std::span<const uint8_t> code;
};

// The stubs for `image`, the vDSO's bytes from its ELF header on, found through its dynamic
// symbol table (the kernel exports each function twice: `clock_gettime` and
// `__vdso_clock_gettime` at one address; each address gets one stub). nullopt when the image is
// not a 64-bit x86_64 ELF whose symbols lie inside it, or a function is too short for its stub.
std::optional<std::vector<VdsoStub>> PlanVdsoStubs(std::span<const uint8_t> image);

// Reads the vDSO mapped at `base` in the stopped tracee `tid` and writes the stubs into it (a
// debugger's write: the pages are read-only; the process gets its own copy). false when it
// could not: the caller then hides the vDSO instead.
bool StubVdso(pid_t tid, uint64_t base);

}  // namespace chess::supervisor
