/* The twin of process_pool_lost_stop_buggy.c: every record is one read(2) of the record's
 * length. Writes of at most PIPE_BUF bytes are atomic and a read of exactly one record's length
 * takes exactly one record, so workers never split a stop between them; each takes its own. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kWorkers = 2, kJobs = 2, kRecord = 5 };

static int worker(int jobs) {
  int done = 0;
  char record[kRecord + 1] = {0};
  while (read(jobs, record, kRecord) == kRecord) {
    if (memcmp(record, "stop\n", kRecord) == 0) return 0;
    if (memcmp(record, "job \n", kRecord) == 0) ++done;
  }
  return 1; /* the pipe closed without a stop */
}

int main(void) {
  int jobs[2];
  if (pipe(jobs) != 0) return 2;
  pid_t workers[kWorkers];
  for (int i = 0; i < kWorkers; ++i) {
    workers[i] = fork();
    if (workers[i] < 0) return 2;
    if (workers[i] == 0) {
      close(jobs[1]);
      _exit(worker(jobs[0]));
    }
  }
  close(jobs[0]);
  for (int i = 0; i < kJobs; ++i) {
    if (write(jobs[1], "job \n", kRecord) != kRecord) return 2;
  }
  for (int i = 0; i < kWorkers; ++i) {
    if (write(jobs[1], "stop\n", kRecord) != kRecord) return 2;
  }
  int failed = 0;
  for (int i = 0; i < kWorkers; ++i) {
    int status = 0;
    if (waitpid(workers[i], &status, 0) != workers[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
  }
  close(jobs[1]);
  puts(failed ? "a worker failed" : "every worker stopped");
  return failed;
}
