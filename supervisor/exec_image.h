// A new program image, patched at its exec stop before its first instruction runs: the
// auxiliary vector on its stack is what the C library and the dynamic loader read first.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>

namespace chess::supervisor {

struct ImagePatch {
  // AT_SYSINFO_EHDR becomes AT_IGNORE: without a vDSO the C library makes real syscalls for
  // clock_gettime, gettimeofday, time and getcpu, which the supervisor can then answer.
  bool hide_vdso = false;
  // The 16 bytes AT_RANDOM points at (the stack protector's canary, the pointer guard).
  std::optional<std::array<uint8_t, 16>> random;
};

// `stack_pointer` is the thread's rsp at PTRACE_EVENT_EXEC: argc, argv, envp, then auxv.
// False when the stack could not be read or written (the image runs unpatched).
bool PatchAuxiliaryVector(pid_t tid, uint64_t stack_pointer, const ImagePatch& patch);

}  // namespace chess::supervisor
