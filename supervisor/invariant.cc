#include "supervisor/invariant.h"

#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace chess::supervisor {
namespace {

const ThreadTable* g_table = nullptr;

void PrintThreadTable() {
  if (g_table == nullptr) return;
  std::fprintf(stderr, "thread table:\n");
  for (const auto& [id, thread] : g_table->All()) {
    std::fprintf(stderr, "  thread %u tid %d pid %d %s syscall %lld %s\n", id, thread->tid, thread->process->tgid,
                 ThreadStateName(thread->state), static_cast<long long>(thread->call.nr),
                 ParkedAtName(thread->parked.at));
  }
}

// Where the signal came from, in words: a fault at an address, or the process that sent it.
void DescribeOrigin(const siginfo_t& info) {
  const bool sent = info.si_code == SI_USER || info.si_code == SI_TKILL || info.si_code == SI_QUEUE;
  if (sent && info.si_pid == getpid()) {
    std::fprintf(stderr, "raised by chess-trace itself (an abort() or a failed assertion in its code or a library)");
  } else if (sent) {
    std::fprintf(stderr, "sent by another process, pid %d uid %u", info.si_pid, static_cast<unsigned>(info.si_uid));
  } else if (info.si_code > 0 && info.si_signo != SIGABRT) {
    std::fprintf(stderr, "a fault in chess-trace at address %p (code %d)", info.si_addr, info.si_code);
  } else {
    std::fprintf(stderr, "code %d", info.si_code);
  }
}

void OnFatalSignal(int signal, siginfo_t* info, void*) {
  // The process is lost: what it writes now only has to be useful, and stdio may be broken, so
  // the first line goes out with write(2). The handler may be called by another one that chains
  // to it (the rdtsc trap's), so the default action is restored here, not by SA_RESETHAND alone.
  ::signal(signal, SIG_DFL);
  static constexpr char kHead[] = "\nchess-trace: internal error: killed by signal ";
  (void)!write(STDERR_FILENO, kHead, sizeof kHead - 1);
  const char* name = sigabbrev_np(signal);
  (void)!write(STDERR_FILENO, name != nullptr ? name : "?", name != nullptr ? std::strlen(name) : 1);
  (void)!write(STDERR_FILENO, " (", 2);
  DescribeOrigin(*info);
  std::fprintf(stderr, ")\nbacktrace (addr2line -e $(which chess-trace) takes the offsets):\n");
  std::fflush(stderr);
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  PrintThreadTable();
  std::fprintf(stderr, "Please report this with the command line that produced it.\n");
  std::fflush(stderr);
  // Delivered when the handler returns (it is blocked until then); a fault recurs on its own.
  raise(signal);
}

}  // namespace

void InvariantContext::Set(const ThreadTable* table) { g_table = table; }

void InvariantContext::Fail(const char* condition, const char* message, const char* file,
                            int line) {
  std::fprintf(stderr, "chess-trace: internal error at %s:%d: %s (%s)\n", file, line, message,
               condition);
  PrintThreadTable();
  std::fprintf(stderr, "Please report this with the command line that produced it.\n");
  // The report is out: the abort that follows is not reported again.
  signal(SIGABRT, SIG_DFL);
  std::abort();
}

void InstallCrashReporter() {
  // backtrace() loads libgcc on its first call, which a handler must not be the one to do.
  void* warm[1];
  (void)backtrace(warm, 1);
  static char alternate_stack[1 << 16];
  stack_t stack{};
  stack.ss_sp = alternate_stack;
  stack.ss_size = sizeof alternate_stack;
  sigaltstack(&stack, nullptr);
  struct sigaction action{};
  action.sa_sigaction = OnFatalSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  for (int signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(signal, &action, nullptr);
}

}  // namespace chess::supervisor
