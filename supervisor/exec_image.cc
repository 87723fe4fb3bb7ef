#include "supervisor/exec_image.h"

#include <elf.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "seccomp/hypercall_abi.h"
#include "supervisor/ptrace/remote_memory.h"
#include "supervisor/vdso_stubs.h"

namespace chess::supervisor {
namespace {

// More entries than any kernel writes (about 25 today): a bound for a damaged stack.
constexpr int kMaxAuxvEntries = 128;
constexpr uint64_t kMaxStrings = 1 << 20;  // argv + envp entries, a bound of the same kind

// The address just past a NULL-terminated array of pointers starting at `address`.
std::optional<uint64_t> SkipPointerArray(const RemoteMemory& memory, uint64_t address) {
  // Read in blocks, but never past the end of the page: with a small environment the array
  // ends a few words below the top of the stack, and a block across it would fail whole.
  uint64_t block[64];
  for (uint64_t read = 0; read < kMaxStrings;) {
    const uint64_t to_page_end = (4096 - address % 4096) / 8;
    const uint64_t count = std::min<uint64_t>(64, to_page_end == 0 ? 1 : to_page_end);
    if (!memory.Read(address, block, count * 8)) return std::nullopt;
    for (uint64_t i = 0; i < count; ++i, address += 8) {
      if (block[i] == 0) return address + 8;
    }
    read += count;
  }
  return std::nullopt;
}

}  // namespace

std::optional<PatchedImage> PatchAuxiliaryVector(pid_t tid, uint64_t stack_pointer, const ImagePatch& patch) {
  const RemoteMemory memory(tid);
  auto argc = memory.Read<uint64_t>(stack_pointer);
  if (!argc) return std::nullopt;
  const uint64_t envp = stack_pointer + 8 + (*argc + 1) * 8;
  auto auxv = SkipPointerArray(memory, envp);
  if (!auxv) return std::nullopt;
  bool ok = true;
  std::optional<uint64_t> end;  // the AT_NULL entry
  for (int i = 0; i < kMaxAuxvEntries && !end; ++i) {
    const uint64_t entry = *auxv + static_cast<uint64_t>(i) * 16;
    auto pair = memory.Read<Elf64_auxv_t>(entry);
    if (!pair) return std::nullopt;
    if (pair->a_type == AT_NULL) {
      end = entry;
    } else if (pair->a_type == AT_SYSINFO_EHDR && patch.stub_vdso && !StubVdso(tid, pair->a_un.a_val)) {
      ok = memory.Write(entry, uint64_t{AT_IGNORE}) && ok;
    } else if (pair->a_type == AT_RANDOM && patch.random) {
      ok = memory.Write(pair->a_un.a_val, patch.random->data(), patch.random->size()) && ok;
    }
  }
  if (!end || !ok) return std::nullopt;
  PatchedImage patched{stack_pointer, 0};
  if (!patch.shim_control) return patched;
  // Two entries more: everything from argc to the last entry moves down by their size (the
  // strings they point at stay where they are), which keeps rsp 16-byte aligned. The kernel
  // leaves room below: it grows a new stack 128 KiB past what the arguments need.
  constexpr uint64_t kAdded = 2 * sizeof(Elf64_auxv_t);
  std::vector<uint8_t> block(*end - stack_pointer);
  if (!memory.Read(stack_pointer, block.data(), block.size()) ||
      !memory.Write(stack_pointer - kAdded, block.data(), block.size())) {
    return std::nullopt;
  }
  const uint64_t first = *end - kAdded;
  const uint64_t control = first + sizeof(Elf64_auxv_t) + offsetof(Elf64_auxv_t, a_un);
  const uint64_t added[4] = {CHESS_AT_CONTROL_ADDRESS, control, CHESS_AT_CONTROL, *patch.shim_control};
  if (!memory.Write(first, added, sizeof(added))) return std::nullopt;
  patched.stack_pointer = stack_pointer - kAdded;
  patched.shim_control = control;
  return patched;
}

}  // namespace chess::supervisor
