#include "supervisor/vdso_stubs.h"

#include <elf.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstring>

#include "supervisor/ptrace/remote_memory.h"

namespace chess::supervisor {
namespace {

// mov $nr, %eax; syscall; ret — the vDSO functions take their arguments in the registers the
// syscalls do (rdi, rsi, rdx), and the syscall clobbers only rcx and r11, which the C ABI lets
// a callee clobber.
#define CHESS_SYSCALL_STUB(nr) {0xb8, (nr) & 0xff, (nr) >> 8, 0, 0, 0x0f, 0x05, 0xc3}
constexpr uint8_t kClockGettime[] = CHESS_SYSCALL_STUB(SYS_clock_gettime);
constexpr uint8_t kGettimeofday[] = CHESS_SYSCALL_STUB(SYS_gettimeofday);
constexpr uint8_t kTime[] = CHESS_SYSCALL_STUB(SYS_time);
constexpr uint8_t kClockGetres[] = CHESS_SYSCALL_STUB(SYS_clock_getres);
constexpr uint8_t kGetcpu[] = CHESS_SYSCALL_STUB(SYS_getcpu);
#undef CHESS_SYSCALL_STUB
// getrandom(buffer, len, flags, opaque_state, opaque_len) (Linux 6.11). Its fifth argument ~0
// asks for the size of the state a caller must allocate (glibc 2.41 asks once): the stub
// answers -ENOSYS, so the caller does without the vDSO and makes the syscall, as on an older
// kernel; any other call is the syscall (what the kernel's own falls back to).
//   cmp $-1, %r8; jne 1f; mov $-ENOSYS, %rax; ret; 1: mov $SYS_getrandom, %eax; syscall; ret
constexpr uint8_t kGetrandom[] = {0x49, 0x83, 0xf8, 0xff, 0x75, 0x08, 0x48, 0xc7, 0xc0, 0xda, 0xff,
                                  0xff, 0xff, 0xc3, 0xb8, SYS_getrandom & 0xff, SYS_getrandom >> 8,
                                  0,    0,    0x0f, 0x05, 0xc3};
static_assert(SYS_getrandom < 0x10000 && SYS_getcpu < 0x10000);

struct StubbedFunction {
  std::string_view name;
  std::span<const uint8_t> code;
};
constexpr StubbedFunction kStubbed[] = {
    {"clock_gettime", kClockGettime}, {"gettimeofday", kGettimeofday}, {"time", kTime},
    {"clock_getres", kClockGetres},   {"getcpu", kGetcpu},             {"getrandom", kGetrandom},
};

// More than any vDSO needs (two pages on x86_64 today): a bound for a damaged header.
constexpr uint64_t kMaxImage = 64 * 1024;

template <typename T>
std::optional<T> At(std::span<const uint8_t> image, uint64_t offset) {
  if (offset > image.size() || image.size() - offset < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, image.data() + offset, sizeof(T));
  return value;
}

std::optional<std::string_view> StringAt(std::span<const uint8_t> image, const Elf64_Shdr& table, uint64_t index) {
  if (index >= table.sh_size || table.sh_offset > image.size() || image.size() - table.sh_offset < table.sh_size) {
    return std::nullopt;
  }
  const char* start = reinterpret_cast<const char*>(image.data() + table.sh_offset + index);
  return std::string_view(start, strnlen(start, table.sh_size - index));
}

// The extent of the image its ELF header describes: through its section headers, which the
// kernel's vDSO carries (and programs that parse it read).
std::optional<uint64_t> ImageSize(const Elf64_Ehdr& header) {
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_machine != EM_X86_64 || header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shoff == 0) {
    return std::nullopt;
  }
  const uint64_t end = header.e_shoff + uint64_t{header.e_shnum} * sizeof(Elf64_Shdr);
  if (end > kMaxImage) return std::nullopt;
  return end;
}

}  // namespace

std::optional<std::vector<VdsoStub>> PlanVdsoStubs(std::span<const uint8_t> image) {
  const auto header = At<Elf64_Ehdr>(image, 0);
  if (!header || !ImageSize(*header) || *ImageSize(*header) > image.size()) return std::nullopt;
  std::optional<Elf64_Shdr> symbols;
  std::optional<Elf64_Shdr> strings;
  for (uint16_t i = 0; i < header->e_shnum && !symbols; ++i) {
    auto section = At<Elf64_Shdr>(image, header->e_shoff + uint64_t{i} * sizeof(Elf64_Shdr));
    if (!section) return std::nullopt;
    if (section->sh_type != SHT_DYNSYM || section->sh_link >= header->e_shnum) continue;
    symbols = section;
    strings = At<Elf64_Shdr>(image, header->e_shoff + uint64_t{section->sh_link} * sizeof(Elf64_Shdr));
  }
  if (!symbols || !strings || symbols->sh_entsize != sizeof(Elf64_Sym)) return std::nullopt;
  std::vector<VdsoStub> stubs;
  for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols->sh_size; at += sizeof(Elf64_Sym)) {
    auto symbol = At<Elf64_Sym>(image, symbols->sh_offset + at);
    if (!symbol) return std::nullopt;
    if (ELF64_ST_TYPE(symbol->st_info) != STT_FUNC || symbol->st_shndx == SHN_UNDEF) continue;
    auto name = StringAt(image, *strings, symbol->st_name);
    if (!name) return std::nullopt;
    if (name->starts_with("__vdso_")) name->remove_prefix(7);
    const auto stubbed = std::find_if(std::begin(kStubbed), std::end(kStubbed),
                                      [&](const StubbedFunction& f) { return f.name == *name; });
    if (stubbed == std::end(kStubbed)) continue;
    // The vDSO is linked at 0: a symbol's value is its offset in the image.
    if (symbol->st_size < stubbed->code.size() || symbol->st_value > image.size() ||
        image.size() - symbol->st_value < stubbed->code.size()) {
      return std::nullopt;
    }
    const bool seen = std::any_of(stubs.begin(), stubs.end(), [&](const VdsoStub& s) { return s.offset == symbol->st_value; });
    if (!seen) stubs.push_back({stubbed->name, symbol->st_value, stubbed->code});
  }
  std::sort(stubs.begin(), stubs.end(), [](const VdsoStub& a, const VdsoStub& b) { return a.offset < b.offset; });
  return stubs;
}

bool StubVdso(pid_t tid, uint64_t base) {
  const RemoteMemory memory(tid);
  const auto header = memory.Read<Elf64_Ehdr>(base);
  if (!header) return false;
  const std::optional<uint64_t> size = ImageSize(*header);
  if (!size) return false;
  std::vector<uint8_t> image(*size);
  if (!memory.Read(base, image.data(), image.size())) return false;
  const auto stubs = PlanVdsoStubs(image);
  if (!stubs || stubs->empty()) return false;
  // One write from the first stub to the end of the last, the bytes between as they were: a
  // write into the read-only vDSO opens /proc/PID/mem, once rather than per function.
  for (const VdsoStub& stub : *stubs) std::copy(stub.code.begin(), stub.code.end(), image.begin() + stub.offset);
  const uint64_t first = stubs->front().offset;
  uint64_t end = first;
  for (const VdsoStub& stub : *stubs) end = std::max<uint64_t>(end, stub.offset + stub.code.size());
  return memory.Write(base + first, image.data() + first, end - first);
}

}  // namespace chess::supervisor
