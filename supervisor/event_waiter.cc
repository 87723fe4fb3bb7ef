#include "supervisor/event_waiter.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace chess::supervisor {
namespace {

volatile sig_atomic_t g_stop_signal = 0;

void OnTick(int) {}
void OnStop(int signal) { g_stop_signal = signal; }

// No SA_RESTART: the point of both handlers is to make waitpid return EINTR.
void Handle(int signal, void (*handler)(int)) {
  struct sigaction action{};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(signal, &action, nullptr);
}

MonoNanos Now() {
  timespec ts{};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);  // not the vDSO: see RealClock
  return static_cast<MonoNanos>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A SIGSEGV from an rdtsc or rdtscp of chess-trace itself: emulated, the instruction skipped.
void OnOwnTimestampCounter(int, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  auto* ip = reinterpret_cast<const unsigned char*>(uc->uc_mcontext.gregs[REG_RIP]);
  int length = 0;
  if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0x31) length = 2;
  if (info->si_code == SI_KERNEL && ip[0] == 0x0f && ip[1] == 0x01 && ip[2] == 0xf9) length = 3;
  if (length == 0) {
    signal(SIGSEGV, SIG_DFL);  // a real fault: let it kill us as it would have
    return;
  }
  timespec ts{};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, &ts);
  const uint64_t counter = static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<uint64_t>(ts.tv_nsec);
  uc->uc_mcontext.gregs[REG_RAX] = static_cast<greg_t>(counter & 0xffffffffu);
  uc->uc_mcontext.gregs[REG_RDX] = static_cast<greg_t>(counter >> 32);
  if (length == 3) uc->uc_mcontext.gregs[REG_RCX] = 0;
  uc->uc_mcontext.gregs[REG_RIP] += length;
}

}  // namespace

void TrapOwnTimestampCounter() {
  struct sigaction action{};
  action.sa_sigaction = OnOwnTimestampCounter;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &action, nullptr);
  prctl(PR_SET_TSC, PR_TSC_SIGSEGV);
}

void InstallStopHandlers() {
  Handle(SIGINT, OnStop);
  Handle(SIGTERM, OnStop);
  Handle(SIGHUP, OnStop);
}

int PendingStopSignal() { return g_stop_signal; }

EventWaiter::~EventWaiter() {
  if (started_) timer_delete(timer_);
}

Result<void> EventWaiter::Start(int64_t tick_nanos) {
  Handle(SIGALRM, OnTick);
  sigevent event{};
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = SIGALRM;
  if (timer_create(CLOCK_MONOTONIC, &event, &timer_) != 0) {
    return Error{std::string("timer_create: ") + std::strerror(errno)};
  }
  started_ = true;
  SetTick(tick_nanos);
  if (tick_nanos_ != tick_nanos) return Error{std::string("timer_settime: ") + std::strerror(errno)};
  return {};
}

void EventWaiter::SetTick(int64_t tick_nanos) {
  if (!started_ || tick_nanos == tick_nanos_) return;
  itimerspec spec{};
  spec.it_value.tv_sec = tick_nanos / 1'000'000'000;
  spec.it_value.tv_nsec = tick_nanos % 1'000'000'000;
  spec.it_interval = spec.it_value;
  if (timer_settime(timer_, 0, &spec, nullptr) == 0) tick_nanos_ = tick_nanos;
}

std::optional<ptrace::WaitEvent> EventWaiter::Wait() {
  if (g_stop_signal != 0) return std::nullopt;
  return ptrace::WaitAny();
}

std::optional<ptrace::WaitEvent> EventWaiter::WaitUntil(MonoNanos deadline) {
  while (g_stop_signal == 0 && Now() < deadline) {
    if (auto event = ptrace::PollAny()) return event;
    const MonoNanos remaining = deadline - Now();
    if (remaining <= 0) break;
    // Sleeps until the deadline or the next tick, whichever is first; a ptrace event arriving
    // meanwhile waits at most one tick, and none is expected: nothing is running.
    timespec ts{static_cast<time_t>(remaining / 1'000'000'000),
                static_cast<long>(remaining % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
  return ptrace::PollAny();
}

}  // namespace chess::supervisor
