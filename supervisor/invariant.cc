#include "supervisor/invariant.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace chess::supervisor {
namespace {

const ThreadTable* g_table = nullptr;
// Where the last words go: chess-trace's stderr, even while fd 2 is the program's captured output.
int g_diagnostics = STDERR_FILENO;

void PrintThreadTable() {
  if (g_table == nullptr) return;
  dprintf(g_diagnostics, "thread table:\n");
  for (const auto& [id, thread] : g_table->All()) {
    dprintf(g_diagnostics, "  thread %u tid %d pid %d %s syscall %lld %s\n", id, thread->tid, thread->process->tgid,
            ThreadStateName(thread->state), static_cast<long long>(thread->call.nr), ParkedAtName(thread->parked.at));
  }
}

// Where the signal came from, in words: a fault at an address, or the process that sent it.
void DescribeOrigin(const siginfo_t& info) {
  const bool sent = info.si_code == SI_USER || info.si_code == SI_TKILL || info.si_code == SI_QUEUE;
  if (sent && info.si_pid == getpid()) {
    dprintf(g_diagnostics, "raised by chess-trace itself (an abort() or a failed assertion in its code or a library)");
  } else if (sent) {
    dprintf(g_diagnostics, "sent by another process, pid %d uid %u", info.si_pid, static_cast<unsigned>(info.si_uid));
  } else if (info.si_code > 0 && info.si_signo != SIGABRT) {
    dprintf(g_diagnostics, "a fault in chess-trace at address %p (code %d)", info.si_addr, info.si_code);
  } else {
    dprintf(g_diagnostics, "code %d", info.si_code);
  }
}

void OnFatalSignal(int signal, siginfo_t* info, void*) {
  // The process is lost: what it writes now only has to be useful, and stdio may be broken, so
  // the first line goes out with write(2). The handler may be called by another one that chains
  // to it (the rdtsc trap's), so the default action is restored here, not by SA_RESETHAND alone.
  ::signal(signal, SIG_DFL);
  static constexpr char kHead[] = "\nchess-trace: internal error: killed by signal ";
  (void)!write(g_diagnostics, kHead, sizeof kHead - 1);
  const char* name = sigabbrev_np(signal);
  (void)!write(g_diagnostics, name != nullptr ? name : "?", name != nullptr ? std::strlen(name) : 1);
  (void)!write(g_diagnostics, " (", 2);
  DescribeOrigin(*info);
  dprintf(g_diagnostics, ")\nbacktrace (addr2line -e $(which chess-trace) takes the offsets):\n");
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), g_diagnostics);
  PrintThreadTable();
  dprintf(g_diagnostics, "Please report this with the command line that produced it.\n");
  // Delivered when the handler returns (it is blocked until then); a fault recurs on its own.
  raise(signal);
}

}  // namespace

void InvariantContext::Set(const ThreadTable* table) { g_table = table; }

void SetDiagnosticDescriptor(int fd) { g_diagnostics = fd >= 0 ? fd : STDERR_FILENO; }

void InvariantContext::Fail(const char* condition, const char* message, const char* file,
                            int line) {
  dprintf(g_diagnostics, "chess-trace: internal error at %s:%d: %s (%s)\n", file, line, message, condition);
  PrintThreadTable();
  dprintf(g_diagnostics, "Please report this with the command line that produced it.\n");
  // The report is out: the abort that follows is not reported again.
  signal(SIGABRT, SIG_DFL);
  std::abort();
}

void InstallCrashReporter() {
  // backtrace() loads its unwinder on its first call, which a handler must not be the one to do.
  // The unwinder may keep descriptors open (libunwind's memory-checking pipe): a closed standard
  // descriptor is held meanwhile, so that none of them takes its number — the program must find
  // it closed, and chess-trace must not read its standard input from that pipe.
  int held[3];
  for (int fd = 0; fd < 3; ++fd) {
    held[fd] = fcntl(fd, F_GETFD) < 0 ? open("/dev/null", O_RDWR | O_CLOEXEC) : -1;
  }
  void* warm[1];
  (void)backtrace(warm, 1);
  for (int fd : held) {
    if (fd >= 0) close(fd);
  }
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
