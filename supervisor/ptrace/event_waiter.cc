#include "supervisor/ptrace/event_waiter.h"

#include "supervisor/clock.h"

#include <signal.h>

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

MonoNanos Now() { return RealClock().Monotonic(); }

}  // namespace



void InstallStopHandlers() {
  Handle(SIGINT, OnStop);
  Handle(SIGTERM, OnStop);
  Handle(SIGHUP, OnStop);
}

int PendingStopSignal() { return g_stop_signal; }

void ForgetStopSignal() { g_stop_signal = 0; }

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
  if (!put_back_.empty()) {
    const ptrace::WaitEvent event = put_back_.front();
    put_back_.pop_front();
    return event;
  }
  if (g_stop_signal != 0) return std::nullopt;
  return ptrace::WaitAny();
}

std::optional<ptrace::WaitEvent> EventWaiter::WaitUntil(MonoNanos deadline) {
  if (!put_back_.empty()) return Wait();
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
