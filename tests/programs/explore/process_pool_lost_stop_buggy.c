/* A pool of worker processes fed through one shared pipe. The parent writes two jobs and then one
 * stop record per worker, each record one line ("job\n", "stop\n") written with one write(2), and
 * waits for every worker in wait4. A worker takes lines off the pipe until it reads "stop".
 *
 * Bug: a worker reads its line one byte at a time, the way `read` in a shell does. A line is
 * whole in the pipe, but two workers reading bytewise can each take part of it: if a worker is
 * preempted in the middle of "stop\n", the other reads the rest ("op\n", not a stop) and then the
 * next whole "stop\n" — it takes both stop records and exits. The preempted worker never sees a
 * stop: it waits in read on a pipe whose write end only the parent holds, and the parent waits in
 * wait4 for it. A deadlock through a pipe and a child, found with one preemption at a read
 * (--sync-points processes: reads of a pipe the tree made are scheduling points).
 *
 * Fixed twin: process_pool_lost_stop_fixed.c reads each record with one read(2) of its length;
 * records are the same length and shorter than PIPE_BUF, so no two workers ever split one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kWorkers = 2, kJobs = 2 };

/* One line, byte by byte: the bug. Returns its length without the newline, -1 at end of file. */
static int read_line(int fd, char* line, size_t size) {
  size_t used = 0;
  for (;;) {
    char c;
    if (read(fd, &c, 1) != 1) return -1;
    if (c == '\n') break;
    if (used + 1 < size) line[used++] = c;
  }
  line[used] = '\0';
  return (int)used;
}

static int worker(int jobs) {
  int done = 0;
  char line[16];
  while (read_line(jobs, line, sizeof line) >= 0) {
    if (strcmp(line, "stop") == 0) return 0;
    if (strcmp(line, "job") == 0) ++done;
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
    if (write(jobs[1], "job\n", 4) != 4) return 2;
  }
  for (int i = 0; i < kWorkers; ++i) {
    if (write(jobs[1], "stop\n", 5) != 5) return 2;
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
