// A new program image, patched at its exec stop before its first instruction runs: the
// auxiliary vector on its stack is what the C library and the dynamic loader read first.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <optional>

namespace chess::supervisor {

struct ImagePatch {
  // The vDSO's clock functions make syscalls (vdso_stubs.h), so that the C library's
  // clock_gettime, gettimeofday, time and getcpu reach the supervisor, which can then answer
  // them. If its image cannot be stubbed, AT_SYSINFO_EHDR becomes AT_IGNORE: without a vDSO
  // the C library makes the syscalls itself.
  bool stub_vdso = false;
  // The 16 bytes AT_RANDOM points at (the stack protector's canary, the pointer guard).
  std::optional<std::array<uint8_t, 16>> random;
  // The preload shim's control word (seccomp/hypercall_abi.h): its two entries are added
  // before AT_NULL, which moves argc, argv, envp and the vector 32 bytes down the stack.
  std::optional<uint64_t> shim_control;
};

struct PatchedImage {
  uint64_t stack_pointer = 0;  // where argc is now: the thread's rsp from here on
  uint64_t shim_control = 0;   // the control word's address, or 0 when none was added
};

// `stack_pointer` is the thread's rsp at PTRACE_EVENT_EXEC: argc, argv, envp, then auxv.
// nullopt when the stack could not be read or written (the image runs unpatched).
std::optional<PatchedImage> PatchAuxiliaryVector(pid_t tid, uint64_t stack_pointer, const ImagePatch& patch);

}  // namespace chess::supervisor
