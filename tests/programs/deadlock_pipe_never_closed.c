/* A pipe deadlock: a child writes three lines into a pipe and exits, but the parent forgot to
 * close its own copy of the write end, so its collector thread, reading until EOF, waits
 * forever — the only writer left is its own process — and the main thread waits forever in
 * pthread_join. Never run natively: it hangs. The correct twin is pipe_closed_properly. */
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
  /* The bug: close(fds[1]) is missing, so the pipe keeps a writer for as long as we live. */
  pthread_t collector;
  if (pthread_create(&collector, NULL, collector_reads_until_eof, &fds[0]) != 0) return 2;
  void* result = main_waits_for_the_collector(collector);
  int status;
  if (waitpid(child, &status, 0) != child) return 3;
  printf("not reached: collected %zu bytes\n", collected_length);
  return result == NULL ? 0 : 1;
}
