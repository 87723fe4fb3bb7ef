// The raw cost of a scheduling point at an atomic instruction planted as a breakpoint: a
// child runs `lock xadd` on a global in a loop; the tracer has written an int3 over the
// instruction's first byte and, at each SIGTRAP, lets the instruction run in one of four ways.
//   step:    put the original byte back, rewind rip, PTRACE_SINGLESTEP, wait for its trap,
//            plant the int3 again, continue (any instruction; two stops per execution of it);
//   emulate: carry the xadd out from the tracer (read the word, add, write it, set the
//            register, rip past the instruction), continue (one stop; the common forms only);
//   xol:     execute out of line, as uprobes do (supervisor/breakpoints.h): a copy of the
//            instruction (its rip-relative displacement moved) followed by a jmp back lies in a
//            page near the text; the tracer only points rip at it (one stop, no memory access,
//            any instruction that does not read rip for control flow);
//   xol-rip: the same, writing rip alone (PTRACE_POKEUSER) instead of reading and writing all
//            the registers: what a point costs when the stop needs no register to name its
//            address (a rip-relative operand).
// Pinned to the child's CPU as chess-trace is; compare with bench_ptrace_round_trip (a seccomp
// stop). Prints "us_per_point N".
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench/tracer_bench.h"
#include "supervisor/breakpoints.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/ptrace/registers.h"
#include "supervisor/ptrace/remote_memory.h"

namespace tracing = chess::supervisor::ptrace;
using chess::supervisor::Registers;
using chess::supervisor::RemoteMemory;

extern "C" {
// The instruction's address, the counter it adds to, and its length (lock, REX.W, 0f c1, modrm,
// disp32 of a rip-relative operand: 9 bytes).
extern const unsigned char bench_atomic_site[];
extern const unsigned char bench_atomic_site_end[];
uint64_t bench_counter;
}

namespace {

// PTRACE_POKEUSER: the ptrace headers are the ptrace layer's alone (tests/layout).
constexpr long kPokeUser = 6;

[[gnu::noinline]] void AddLoop(long times) {
  for (long i = 0; i < times; ++i) {
    uint64_t one = 1;
    asm volatile(
        ".globl bench_atomic_site\n"
        "bench_atomic_site:\n"
        "lock xaddq %0, bench_counter(%%rip)\n"
        ".globl bench_atomic_site_end\n"
        "bench_atomic_site_end:\n"
        : "+r"(one)
        :
        : "memory");
  }
}

// The text is read-only: /proc/PID/mem writes it as a debugger does (process_vm_writev refuses
// it), through a descriptor opened once, as a process's text patcher would keep it.
bool PlantByte(int memory, uint64_t address, unsigned char byte) {
  return pwrite(memory, &byte, 1, static_cast<off_t>(address)) == 1;
}

// The register the xadd names as its source (ModRM.reg with REX.R).
unsigned long long* SourceRegister(Registers& regs, const unsigned char* code) {
  const int reg = ((code[1] & 0x04) ? 8 : 0) | ((code[4] >> 3) & 7);
  auto& raw = regs.raw();
  unsigned long long* const table[16] = {&raw.rax, &raw.rcx, &raw.rdx, &raw.rbx, &raw.rsp, &raw.rbp, &raw.rsi, &raw.rdi,
                               &raw.r8,  &raw.r9,  &raw.r10, &raw.r11, &raw.r12, &raw.r13, &raw.r14, &raw.r15};
  return table[reg];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "step";
  const long points = argc > 2 ? std::atol(argv[2]) : 100000;
  if (mode != "step" && mode != "emulate" && mode != "xol" && mode != "xol-rip") {
    std::fprintf(stderr, "usage: %s step|emulate|xol|xol-rip [POINTS]\n", argv[0]);
    return 2;
  }
  const auto site = reinterpret_cast<uint64_t>(bench_atomic_site);
  const size_t length = bench_atomic_site_end - bench_atomic_site;
  unsigned char original[16];
  std::memcpy(original, bench_atomic_site, length);
  if (length != 9 || original[0] != 0xf0 || original[3] != 0xc1) {
    std::fprintf(stderr, "unexpected encoding of the atomic site (%zu bytes)\n", length);
    return 1;
  }
  PinToOneCpu();
  // The out-of-line page, mapped before the fork so the child has it at the same address: within
  // a rel32 of the text, read and execute only (the tracer writes it through /proc/PID/mem).
  const uint64_t near = (site & ~uint64_t{0xfff}) - (uint64_t{1} << 28);
  void* page = mmap(reinterpret_cast<void*>(near), 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const auto scratch = reinterpret_cast<uint64_t>(page);
  if (page == MAP_FAILED || scratch + (uint64_t{1} << 31) < site || site + (uint64_t{1} << 31) < scratch) {
    std::fprintf(stderr, "no page within a rel32 of the text\n");
    return 1;
  }
  HeldChild held([points] {
    AddLoop(points);
    return bench_counter == static_cast<uint64_t>(points) ? 0 : 3;
  });
  const pid_t child = held.Pid();
  if (child < 0) return 1;
  if (tracing::Seize(child) != 0 || !tracing::Interrupt(child)) {
    std::perror("PTRACE_SEIZE");
    kill(child, SIGKILL);
    return 1;
  }
  tracing::WaitFor(child);  // the interrupt's stop: the child is still waiting on the pipe
  const int text = open(("/proc/" + std::to_string(child) + "/mem").c_str(), O_RDWR | O_CLOEXEC);
  if (text < 0 || !PlantByte(text, site, 0xcc)) {
    std::perror("writing the int3");
    kill(child, SIGKILL);
    return 1;
  }
  if (mode == "xol" || mode == "xol-rip") {
    // The copy chess-trace runs (supervisor/breakpoints.h): the displacement taken from the
    // scratch address, then `jmp rel32` to the instruction after the site.
    const chess::supervisor::PatchableInstruction xadd{
        .address = site, .bytes = {original, original + length}, .rip_displacement_at = 5};
    const auto copy = chess::supervisor::RelocatedCopy(xadd, scratch);
    if (!copy || pwrite(text, copy->data(), copy->size(), static_cast<off_t>(scratch)) != static_cast<ssize_t>(copy->size())) {
      std::perror("writing the out-of-line copy");
      kill(child, SIGKILL);
      return 1;
    }
  }
  tracing::Resume(child);
  held.Release();
  timespec start{}, end{};
  long seen = 0;
  int exit_code = -1;
  Registers regs;
  for (;;) {
    auto event = tracing::WaitFor(child);
    if (!event) break;
    if (event->kind == tracing::StopKind::kExited) {
      exit_code = event->value;
      break;
    }
    if (event->kind == tracing::StopKind::kKilled) break;
    if (event->kind != tracing::StopKind::kSignal || event->value != SIGTRAP) {
      tracing::Resume(child, event->kind == tracing::StopKind::kSignal ? event->value : 0);
      continue;
    }
    if (seen++ == 0) clock_gettime(CLOCK_MONOTONIC, &start);
    if (mode == "xol-rip") {
      tracing::ProgramRequest(kPokeUser, child, offsetof(user_regs_struct, rip), reinterpret_cast<void*>(scratch));
      tracing::Resume(child);
      continue;
    }
    tracing::GetRegisters(child, regs);
    auto& raw = regs.raw();
    if (mode == "step") {
      PlantByte(text, site, original[0]);
      raw.rip = site;
      tracing::SetRegisters(child, regs);
      tracing::SingleStep(child, 0);
      tracing::WaitFor(child);  // the single-step's SIGTRAP
      PlantByte(text, site, 0xcc);
    } else if (mode == "xol") {
      raw.rip = scratch;
      tracing::SetRegisters(child, regs);
    } else {
      int32_t displacement;
      std::memcpy(&displacement, original + 5, sizeof(displacement));
      const uint64_t address = site + length + displacement;
      const RemoteMemory memory(child);
      const auto old = memory.Read<uint64_t>(address);
      unsigned long long* source = SourceRegister(regs, original);
      if (!old || !memory.Write(address, *old + *source)) break;
      *source = *old;
      raw.rip = site + length;
      tracing::SetRegisters(child, regs);
    }
    tracing::Resume(child);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  if (exit_code != 0 || seen < 2) {
    std::fprintf(stderr, "the child did not finish its adds correctly (exit %d, %ld points)\n", exit_code, seen);
    kill(child, SIGKILL);
    return 1;
  }
  const double us = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / (seen - 1);
  std::printf("us_per_point %.2f\n", us);
  return 0;
}
