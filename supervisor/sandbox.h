// The program's own seccomp filters (a sandbox) as chess-trace must live with them. The kernel
// runs them on every syscall of the program, those chess-trace injects or rewrites included,
// and kills the program for a call they refuse; so the supervisor keeps a copy of each thread's
// filters (seccomp_handler.cc) and asks them before it changes a call. The implementation, in
// sandbox.cc, also carries the preload shim's hypercall traps, which no filter sees, and tells
// chess-trace's own interference from the program's bugs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "seccomp/bpf_interpreter.h"
#include "supervisor/ptrace/registers.h"
#include "supervisor/thread_table.h"

namespace chess::supervisor {

// What the filters see of syscall `nr` made with the argument registers of `regs` by the
// `syscall` instruction that ends at `ip_after`.
seccomp::SyscallData SeccompDataOf(int64_t nr, const Registers& regs, uint64_t ip_after);

// What the thread's own filters answer together for `call` (SECCOMP_RET_ALLOW when it has
// none); nullopt if one could not be run.
std::optional<uint32_t> ProgramVerdict(const Thread& thread, const seccomp::SyscallData& call);

// Whether the kernel runs `call` in `thread` after its own filters judged it: on a fresh entry,
// or when they run again after a seccomp stop whose registers the supervisor changed (`recheck`;
// see seccomp::Permits). A filter that cannot be run counts as refusing.
bool FiltersPermit(const Thread& thread, const seccomp::SyscallData& call, bool recheck);

// Calls a program makes through the vDSO natively, without a syscall — and as syscalls under
// chess-trace, whose vDSO makes them for virtual time. Their names, with the clock for
// clock_gettime and clock_getres ("clock_gettime(CLOCK_MONOTONIC)"); nullopt for other calls.
std::optional<std::string> VdsoCallName(int64_t nr, const uint64_t (&args)[6]);

// The preload shim's control word for an image whose threads are (or are not) under filters of
// the program's own: announce by system call, or by trap where a filter could refuse it.
uint64_t ShimControlFor(bool filtered);

// With the vDSO hidden (virtual time) the program makes syscalls it does not make natively; a
// filter that refuses them refuses what the program never asked for. The first such call the
// thread's filters refuse, with their answer ("KILL_PROCESS for gettimeofday"); nullopt if none.
std::optional<std::string> RefusedVdsoCall(const Thread& thread);

// The stop is a RET_TRACE of the program's own filter: a call for a tracer it does not have.
// `vdso_hidden`: time is virtual, and the calls the vDSO would make are chess-trace's.
bool ProgramWantsItsTracer(const Thread& thread, bool vdso_hidden);

// Why a call refused by the program's filter is chess-trace's doing, not the program's: a
// hypercall, or a call the program makes only because the vDSO is hidden. nullopt otherwise.
std::optional<std::string> Interference(int64_t nr, const uint64_t (&args)[6], bool vdso_hidden);

// The thread is exiting: when its filter killed it for such a call, why (the execution then ends
// as chess-trace's error).
std::optional<std::string> InterferenceKilled(const Thread& thread, bool vdso_hidden);

// The thread is stopped with a SIGSYS: when it is its filter's RET_TRAP for such a call, why (the
// execution then ends as chess-trace's error).
std::optional<std::string> InterferenceTrapped(const Thread& thread, bool vdso_hidden);

// Why the thread's own filters would refuse a call the fork server injects to make or fork the
// template at this stop (`fresh`: the namespaces each forked process gets afresh; `enters_cwd`:
// each enters a private working directory); nullopt when they would not.
std::optional<std::string> FiltersRefuseTemplate(const Thread& thread, int fresh, bool enters_cwd);

// A debug build's check that the data bits of the thread's seccomp stop are the family the
// syscall table gave its call, when chess-trace's filter wrote them: they are the program's when
// its own filter answers SECCOMP_RET_TRACE too. The supervisor does not read them otherwise (see
// seccomp::SyscallFamily). Does nothing with NDEBUG.
void CheckStopDataIsFamily(const Thread& thread);

}  // namespace chess::supervisor
