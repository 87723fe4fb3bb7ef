/* A worker pool over one shared pipe: the parent writes 1000 jobs, 16-byte records, into a job
 * pipe shrunk to one page (so it blocks while the pool drains it), followed by one stop record
 * per worker; four forked workers read one record per read (16 ≤ PIPE_BUF, so records are never
 * split or interleaved), answer each job with its square over a shared result pipe, and on a
 * stop record send a done record with the number of jobs they took. The parent checks that every
 * job was answered exactly once and prints totals only: which worker took which job depends on
 * the schedule. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kJobs = 1000, kWorkers = 4, kRecord = 16 };

/* Both directions use one record layout: a kind letter, then a number and a value. */
struct record {
  char text[kRecord];
};

static struct record make(char kind, long number, long value) {
  struct record r;
  char text[48]; /* room for any long; the fields here take 1 + 5 + 10 characters */
  snprintf(text, sizeof(text), "%c%05ld%010ld", kind, number % 100000, value % 10000000000L);
  memcpy(r.text, text, kRecord);
  return r;
}

static long number_of(const struct record* r) {
  char text[6] = {0};
  memcpy(text, r->text + 1, 5);
  return strtol(text, NULL, 10);
}

static long value_of(const struct record* r) {
  char text[11] = {0};
  memcpy(text, r->text + 6, 10);
  return strtol(text, NULL, 10);
}

static int read_record(int fd, struct record* r) {
  for (;;) {
    const ssize_t n = read(fd, r->text, kRecord);
    if (n == kRecord) return 1;
    if (n == 0) return 0;
    if (n < 0 && errno == EINTR) continue;
    return -1; /* a short read: a record was split, which must never happen */
  }
}

static int write_record(int fd, struct record r) {
  for (;;) {
    const ssize_t n = write(fd, r.text, kRecord);
    if (n == kRecord) return 0;
    if (n < 0 && errno == EINTR) continue;
    return -1;
  }
}

static int worker(int jobs, int results) {
  long taken = 0;
  struct record r;
  int got;
  while ((got = read_record(jobs, &r)) == 1) {
    if (r.text[0] == 'S') return write_record(results, make('D', taken, 0)) == 0 ? 0 : 11;
    if (r.text[0] != 'J') return 12;
    const long job = number_of(&r);
    if (write_record(results, make('R', job, job * job)) != 0) return 13;
    ++taken;
  }
  return 14; /* EOF or an error before the stop record */
}

int main(void) {
  int jobs[2], results[2];
  if (pipe2(jobs, O_CLOEXEC) != 0 || pipe2(results, O_CLOEXEC) != 0) return 2;
  /* One page: the 16000 bytes of jobs do not fit, so the parent's writes must wait for the pool. */
  if (fcntl(jobs[1], F_SETPIPE_SZ, 4096) < 0) return 2;
  fflush(stdout);
  pid_t workers[kWorkers];
  for (int w = 0; w < kWorkers; ++w) {
    workers[w] = fork();
    if (workers[w] < 0) return 2;
    if (workers[w] == 0) {
      close(jobs[1]);
      close(results[0]);
      _exit(worker(jobs[0], results[1]));
    }
  }
  close(jobs[0]);
  close(results[1]);

  /* The results (16000 bytes and four done records) fit in the result pipe's 64 KiB, so the
   * workers never wait for the parent while it is still writing jobs. */
  for (long job = 1; job <= kJobs; ++job)
    if (write_record(jobs[1], make('J', job, 0)) != 0) return 3;
  for (int w = 0; w < kWorkers; ++w)
    if (write_record(jobs[1], make('S', 0, 0)) != 0) return 3;
  close(jobs[1]);

  static int answered[kJobs + 1];
  long sum = 0, taken = 0;
  int results_read = 0, done = 0, wrong = 0, got;
  struct record r;
  while ((got = read_record(results[0], &r)) == 1) {
    if (r.text[0] == 'D') {
      ++done;
      taken += number_of(&r);
      continue;
    }
    const long job = number_of(&r);
    if (r.text[0] != 'R' || job < 1 || job > kJobs || value_of(&r) != job * job) {
      ++wrong;
      continue;
    }
    ++answered[job];
    sum += value_of(&r);
    ++results_read;
  }
  close(results[0]);
  int once = 0;
  for (int job = 1; job <= kJobs; ++job) once += answered[job] == 1;
  int failed_workers = 0;
  for (int w = 0; w < kWorkers; ++w) {
    int status;
    if (waitpid(workers[w], &status, 0) != workers[w]) return 4;
    failed_workers += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const long expected_sum = (long)kJobs * (kJobs + 1) * (2 * kJobs + 1) / 6;
  printf("%d jobs through one pipe to %d workers: %d results, %d jobs answered exactly once, %d wrong\n", kJobs,
         kWorkers, results_read, once, wrong);
  printf("sum of squares %ld (expected %ld); %d workers stopped, %ld jobs taken in all, %d failed\n", sum,
         expected_sum, done, taken, failed_workers);
  return got == 0 && results_read == kJobs && once == kJobs && wrong == 0 && sum == expected_sum &&
                 done == kWorkers && taken == kJobs && failed_workers == 0
             ? 0
             : 1;
}
