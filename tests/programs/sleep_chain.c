/* Five threads sleep in chains, about 30 s of sleeps in all (the longest chain about 7 s), each
 * step with another way to wait for time to pass: nanosleep, clock_nanosleep (relative, absolute
 * on CLOCK_MONOTONIC, absolute on CLOCK_REALTIME), usleep, poll and select on a pipe nobody
 * writes, pthread_cond_timedwait, sem_timedwait, and a read of a timerfd. Every step checks its
 * result (0, a timeout, one expiry) and that CLOCK_MONOTONIC advanced by at least what it asked
 * for; at the end, that the whole run took at least the longest chain — and less than the sum
 * of the chains, since the threads slept at the same time. Exits 0 when all of that held.
 *
 * Natively it takes as long as the longest chain; under `chess-trace run` time is virtual and the
 * sleeps cost no wall time. An optional argument divides every duration (`sleep_chain 20` sleeps
 * 1.5 s in all), to try it natively.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

enum { kThreads = 5, kSteps = 12, kMechanisms = 10 };

static const char* const kNames[kMechanisms] = {
    "nanosleep",        "clock_nanosleep",   "clock_nanosleep_abs", "clock_nanosleep_realtime_abs",
    "usleep",           "poll",              "select",              "pthread_cond_timedwait",
    "sem_timedwait",    "timerfd_read",
};

static long divisor = 1;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int failures;

static int64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec to_timespec(int64_t ns) {
  return (struct timespec){.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
}

static void failed(int thread, int step, const char* how, const char* what) {
  pthread_mutex_lock(&report_lock);
  fprintf(stderr, "thread %d step %d (%s): %s\n", thread, step, how, what);
  ++failures;
  pthread_mutex_unlock(&report_lock);
}

/* The duration of a step, in microseconds: 100 ms to 1050 ms, varied per thread and step. */
static int64_t step_us(int thread, int step) {
  const int64_t ms = 100 + 50 * ((thread * 7 + step * 3) % 20);
  return ms * 1000 / divisor;
}

static int64_t chain_us(int thread) {
  int64_t total = 0;
  for (int step = 0; step < kSteps; ++step) total += step_us(thread, step);
  return total;
}

struct sleeper {
  int id;
  int pipe_fds[2];
  pthread_mutex_t lock;
  pthread_cond_t never_signalled;
  sem_t never_posted;
  int timer;
};

/* Sleeps `us` microseconds with mechanism `how`; returns NULL or what went wrong. */
static const char* sleep_with(struct sleeper* s, int how, int64_t us) {
  const int64_t ns = us * 1000;
  switch (how) {
    case 0: {
      const struct timespec d = to_timespec(ns);
      return nanosleep(&d, NULL) == 0 ? NULL : "nanosleep failed";
    }
    case 1: {
      const struct timespec d = to_timespec(ns);
      return clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL) == 0 ? NULL : "clock_nanosleep failed";
    }
    case 2: {
      const struct timespec at = to_timespec(now_ns(CLOCK_MONOTONIC) + ns);
      return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == 0 ? NULL : "clock_nanosleep failed";
    }
    case 3: {
      const struct timespec at = to_timespec(now_ns(CLOCK_REALTIME) + ns);
      return clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL) == 0 ? NULL : "clock_nanosleep failed";
    }
    case 4:
      return usleep((useconds_t)us) == 0 ? NULL : "usleep failed";
    case 5: {
      /* Whole milliseconds, rounded up so the sleep is at least `us`. */
      struct pollfd fd = {.fd = s->pipe_fds[0], .events = POLLIN};
      const int r = poll(&fd, 1, (int)((us + 999) / 1000));
      return r == 0 ? NULL : "poll did not time out";
    }
    case 6: {
      fd_set readable;
      FD_ZERO(&readable);
      FD_SET(s->pipe_fds[0], &readable);
      struct timeval tv = {.tv_sec = us / 1000000, .tv_usec = us % 1000000};
      const int r = select(s->pipe_fds[0] + 1, &readable, NULL, NULL, &tv);
      return r == 0 ? NULL : "select did not time out";
    }
    case 7: {
      const struct timespec at = to_timespec(now_ns(CLOCK_REALTIME) + ns);
      pthread_mutex_lock(&s->lock);
      int r;
      do r = pthread_cond_timedwait(&s->never_signalled, &s->lock, &at);
      while (r == 0); /* a spurious wake-up: wait again until the deadline */
      pthread_mutex_unlock(&s->lock);
      return r == ETIMEDOUT ? NULL : "pthread_cond_timedwait did not time out";
    }
    case 8: {
      const struct timespec at = to_timespec(now_ns(CLOCK_REALTIME) + ns);
      int r;
      while ((r = sem_timedwait(&s->never_posted, &at)) != 0 && errno == EINTR) {
      }
      return r == -1 && errno == ETIMEDOUT ? NULL : "sem_timedwait did not time out";
    }
    case 9: {
      const struct itimerspec spec = {.it_value = to_timespec(ns)};
      if (timerfd_settime(s->timer, 0, &spec, NULL) != 0) return "timerfd_settime failed";
      uint64_t expirations = 0;
      if (read(s->timer, &expirations, sizeof(expirations)) != (ssize_t)sizeof(expirations)) {
        return "timerfd read failed";
      }
      return expirations == 1 ? NULL : "timerfd expired other than once";
    }
  }
  return "no such mechanism";
}

static void* chain(void* arg) {
  struct sleeper* s = arg;
  const int64_t started = now_ns(CLOCK_MONOTONIC);
  for (int step = 0; step < kSteps; ++step) {
    const int how = (s->id + step) % kMechanisms;
    const int64_t us = step_us(s->id, step);
    const int64_t before = now_ns(CLOCK_MONOTONIC);
    const char* error = sleep_with(s, how, us);
    const int64_t slept = now_ns(CLOCK_MONOTONIC) - before;
    if (error != NULL) failed(s->id, step, kNames[how], error);
    if (slept < us * 1000) {
      char what[128];
      snprintf(what, sizeof(what), "slept %lld ns of the %lld requested", (long long)slept, (long long)us * 1000);
      failed(s->id, step, kNames[how], what);
    }
  }
  if (now_ns(CLOCK_MONOTONIC) - started < chain_us(s->id) * 1000) failed(s->id, kSteps, "chain", "ended early");
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) divisor = atol(argv[1]);
  if (divisor < 1) divisor = 1;
  struct sleeper sleepers[kThreads];
  pthread_t threads[kThreads];
  int64_t longest = 0, total = 0;
  for (int i = 0; i < kThreads; ++i) {
    struct sleeper* s = &sleepers[i];
    s->id = i;
    if (pipe(s->pipe_fds) != 0 || sem_init(&s->never_posted, 0, 0) != 0 ||
        (s->timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) < 0) {
      perror("setup");
      return 2;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->never_signalled, NULL);
    const int64_t us = chain_us(i);
    total += us;
    if (us > longest) longest = us;
  }
  const int64_t started = now_ns(CLOCK_MONOTONIC);
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, chain, &sleepers[i]);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  const int64_t elapsed_us = (now_ns(CLOCK_MONOTONIC) - started) / 1000;
  if (elapsed_us < longest) {
    fprintf(stderr, "the run took %lld us, less than the longest chain (%lld us)\n", (long long)elapsed_us,
            (long long)longest);
    ++failures;
  }
  if (elapsed_us >= total) {
    fprintf(stderr, "the run took %lld us, as long as all chains one after the other (%lld us): the sleeps did not overlap\n",
            (long long)elapsed_us, (long long)total);
    ++failures;
  }
  printf("%d threads x %d sleeps, %lld ms requested in all, longest chain %lld ms: %s\n", kThreads, kSteps,
         (long long)(total / 1000), (long long)(longest / 1000), failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
