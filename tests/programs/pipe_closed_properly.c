/* The correct twin of deadlock_pipe_never_closed: a child writes three lines into a pipe and
 * exits; the parent closes its own copy of the write end, so its collector thread, reading until
 * EOF, gets EOF once the child is gone, and the main thread joins it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char collected[256];
static size_t collected_length;

__attribute__((noinline)) static void* collector_reads_until_eof(void* arg) {
  const int in = *(const int*)arg;
  ssize_t n;
  while ((n = read(in, collected + collected_length, sizeof(collected) - 1 - collected_length)) > 0)
    collected_length += (size_t)n;
  return n == 0 ? NULL : (void*)1;
}

__attribute__((noinline)) static void* main_waits_for_the_collector(pthread_t collector) {
  void* result = (void*)1;
  pthread_join(collector, &result);
  return result;
}

int main(void) {
  int fds[2];
  if (pipe(fds) != 0) return 2;
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) return 2;
  if (child == 0) {
    close(fds[0]);
    const char lines[] = "first line\nsecond line\nthird line\n";
    _exit(write(fds[1], lines, strlen(lines)) == (ssize_t)strlen(lines) ? 0 : 1);
  }
  close(fds[1]); /* without this, the read below never sees EOF: deadlock_pipe_never_closed */
  pthread_t collector;
  if (pthread_create(&collector, NULL, collector_reads_until_eof, &fds[0]) != 0) return 2;
  void* result = main_waits_for_the_collector(collector);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;
  int lines = 0;
  for (size_t i = 0; i < collected_length; ++i) lines += collected[i] == '\n';
  printf("collected %d lines (%zu bytes) until EOF; child exited %d\n%s", lines, collected_length,
         WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), collected);
  return result == NULL && lines == 3 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
