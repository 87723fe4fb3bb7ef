#include "supervisor/virtual_timers.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "supervisor/handlers/pending_signals.h"
#include "supervisor/ptrace/ptrace.h"
#include "supervisor/report/fd_owners.h"

namespace chess::supervisor {
namespace {

// TFD_IOC_SET_TICKS of <linux/timerfd.h>, which cannot be included with <sys/timerfd.h>.
const unsigned long kSetTimerFdTicks = _IOW('T', 0, uint64_t);

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

std::optional<MonoNanos> VirtualTimers::Earliest() const {
  std::optional<MonoNanos> earliest;
  ForEachTimer(threads_, [&](Process&, VirtualTimer& timer, int) {
    if (timer.expires) earliest = std::min(earliest.value_or(*timer.expires), *timer.expires);
  });
  return earliest;
}

uint64_t Expire(VirtualTimer& timer, MonoNanos now) {
  if (!timer.expires || *timer.expires > now) return 0;
  uint64_t expirations = 1;
  if (timer.interval > 0) {
    expirations += static_cast<uint64_t>((now - *timer.expires) / timer.interval);
    *timer.expires += static_cast<int64_t>(expirations) * timer.interval;
  } else {
    timer.expires.reset();
  }
  if (timer.signal != 0) timer.overrun += static_cast<int>(expirations - 1);
  return expirations;
}

void VirtualTimers::FireDue(MonoNanos now, SignalScan& signals) {
  ForEachTimer(threads_, [&](Process& process, VirtualTimer& timer, int fd) {
    const uint64_t expirations = Expire(timer, now);
    if (expirations == 0) return;
    if (fd >= 0) {
      ExpireTimerFd(process, fd, expirations);
    } else if (timer.signal != 0) {
      SendSignal(process, timer, signals);
    }
  });
}

void VirtualTimers::SendSignal(Process& process, VirtualTimer& timer, SignalScan& signals) {
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
    info.si_timerid = timer.id;
    info.si_overrun = 0;  // the expiries until it is taken are counted then (Process::TakeTimerSignal)
    if (thread != nullptr) {
      syscall(SYS_rt_tgsigqueueinfo, process.tgid, thread->tid, timer.signal, &info);
    } else {
      syscall(SYS_rt_sigqueueinfo, process.tgid, timer.signal, &info);
    }
  }
  signals.MayHaveSignal(process.tgid);
}

void TimerSignalDelivered(Thread& thread) {
  siginfo_t info{};
  if (ptrace::GetSignalInfo(thread.tid, info) && thread.process->TakeTimerSignal(info)) {
    ptrace::SetSignalInfo(thread.tid, info);
  }
}

void VirtualTimers::ExpireTimerFd(Process& process, int fd, uint64_t expirations) {
  if (FdTarget(process.tgid, fd) != "anon_inode:[timerfd]") return;  // closed since
  const FdCopy copy = fds_.Copy(process.tgid, fd);
  if (!copy) return;
  // The expiry count the program has not read yet, plus these: readers and pollers see the
  // kernel's own count go up (TFD_IOC_SET_TICKS also wakes them).
  uint64_t unread = 0;
  const std::string info = "/proc/" + std::to_string(process.tgid) + "/fdinfo/" + std::to_string(fd);
  if (FILE* file = std::fopen(info.c_str(), "re")) {
    char line[128];
    while (std::fgets(line, sizeof(line), file) != nullptr) {
      unsigned long long ticks = 0;
      if (std::sscanf(line, "ticks: %llu", &ticks) == 1) unread = ticks;
    }
    std::fclose(file);
  }
  const uint64_t ticks = unread + expirations;
  if (ioctl(copy.get(), kSetTimerFdTicks, &ticks) == 0) return;
  // Kernels without TFD_IOC_SET_TICKS: the kernel's timer one nanosecond from now (one expiry),
  // and the moment it takes to fire waited for, so that it is ordered before what comes next.
  const itimerspec soon{{0, 0}, {0, 1}};
  if (timerfd_settime(copy.get(), 0, &soon, nullptr) != 0) return;
  pollfd expired{copy.get(), POLLIN, 0};
  poll(&expired, 1, 5);
}

}  // namespace chess::supervisor
