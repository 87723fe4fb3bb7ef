// Virtual-time timers coming due: alarm and POSIX timers send their signal, a timerfd's kernel
// timer is armed to fire at once. Periodic timers are rescheduled; an expiry while the previous
// signal is still pending counts as an overrun, as in the kernel.
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cstring>

#include "supervisor/fd_owners.h"
#include "supervisor/pending_signals.h"
#include "supervisor/supervisor.h"

namespace chess::supervisor {
namespace {

// Expiries of one periodic timer handled at once, when virtual time jumps over many periods.
constexpr int kMaxExpiriesAtOnce = 1000;

uint64_t Bit(int signal) { return uint64_t{1} << (signal - 1); }

template <typename Visit>
void ForEachTimer(const ThreadTable& threads, Visit visit) {
  for (const auto& [tgid, process] : threads.Processes()) {
    if (process->exit_code || process->exit_signal) continue;
    visit(*process, process->alarm, -1);
    for (auto& [id, timer] : process->posix_timers) visit(*process, timer, -1);
    for (auto& [fd, timer] : process->timerfds) visit(*process, timer, fd);
  }
}

}  // namespace

std::optional<MonoNanos> Supervisor::EarliestTimer() const {
  std::optional<MonoNanos> earliest;
  ForEachTimer(threads_, [&](Process&, VirtualTimer& timer, int) {
    if (timer.expires) earliest = std::min(earliest.value_or(*timer.expires), *timer.expires);
  });
  return earliest;
}

void Supervisor::FireDueTimers() {
  if (virtual_clock_ == nullptr) return;
  const MonoNanos now = ProgramNow();
  ForEachTimer(threads_, [&](Process& process, VirtualTimer& timer, int fd) {
    for (int i = 0; i < kMaxExpiriesAtOnce && timer.expires && *timer.expires <= now; ++i) {
      if (fd >= 0) {
        ExpireTimerFd(process, fd);
      } else if (timer.signal != 0) {
        SendTimerSignal(process, timer);
      }
      if (timer.interval > 0) {
        *timer.expires += timer.interval;
      } else {
        timer.expires.reset();
      }
    }
  });
}

void Supervisor::SendTimerSignal(Process& process, VirtualTimer& timer) {
  // SIGEV_THREAD_ID names the thread as the program sees it.
  Thread* thread = timer.thread != 0 ? threads_.FindByProgramTid(timer.thread) : nullptr;
  if (timer.thread != 0 && thread == nullptr) return;  // gone: the kernel would drop it too
  const pid_t target = thread != nullptr ? thread->tid : process.tgid;
  if (auto masks = ReadSignalMasks(target)) {
    const uint64_t pending = timer.thread != 0 ? masks->thread_pending : masks->process_pending;
    if (pending & Bit(timer.signal)) {
      ++timer.overrun;  // the kernel queues one timer signal at a time
      return;
    }
  }
  if (&timer == &process.alarm) {
    kill(process.tgid, timer.signal);
  } else {
    siginfo_t info;
    std::memset(&info, 0, sizeof(info));
    info.si_signo = timer.signal;
    info.si_code = SI_TIMER;
    info.si_value.sival_ptr = reinterpret_cast<void*>(timer.value);
    info.si_overrun = timer.overrun;
    if (thread != nullptr) {
      syscall(SYS_rt_tgsigqueueinfo, process.tgid, thread->tid, timer.signal, &info);
    } else {
      syscall(SYS_rt_sigqueueinfo, process.tgid, timer.signal, &info);
    }
  }
  timer.overrun = 0;
  signal_checks_.insert(process.tgid);
}

void Supervisor::ExpireTimerFd(Process& process, int fd) {
  if (FdTarget(process.tgid, fd) != "anon_inode:[timerfd]") return;  // closed since
  const FdCopy copy = fd_probe_.Copy(process.tgid, fd);
  if (!copy) return;
  // The kernel's timer, one nanosecond from now: the expiry count goes up by one, and readers
  // and pollers see it as the kernel's own. Waiting the moment it takes keeps that ordered.
  const itimerspec soon{{0, 0}, {0, 1}};
  if (timerfd_settime(copy.get(), 0, &soon, nullptr) != 0) return;
  pollfd expired{copy.get(), POLLIN, 0};
  poll(&expired, 1, 5);
}

}  // namespace chess::supervisor
