/* A poll deadlock: a thread polls (no timeout) the read end of a pipe for input, while the main
 * thread, which holds the write end and meant to write the input after starting the thread,
 * joins the thread first. The write end is held only by this process, whose other thread waits
 * for the poller: nobody can ever write. Never run natively: it hangs. The correct twin is
 * poll_pipe_written_then_closed. */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int pipe_ends[2];

__attribute__((noinline)) static void* poller_waits_for_input(void* unused) {
  (void)unused;
  struct pollfd input = {.fd = pipe_ends[0], .events = POLLIN};
  const int ready = poll(&input, 1, -1);
  if (ready != 1) return (void*)1;
  char buffer[64];
  return read(pipe_ends[0], buffer, sizeof(buffer)) > 0 ? NULL : (void*)1;
}

__attribute__((noinline)) static void* main_joins_the_poller(pthread_t poller) {
  void* result = (void*)1;
  pthread_join(poller, &result);
  return result;
}

int main(void) {
  if (pipe(pipe_ends) != 0) return 2;
  pthread_t poller;
  if (pthread_create(&poller, NULL, poller_waits_for_input, NULL) != 0) return 2;
  /* The bug: the join comes before the write the poller waits for. */
  void* result = main_joins_the_poller(poller);
  if (write(pipe_ends[1], "input", 5) != 5) return 3;
  printf("not reached\n");
  return result == NULL ? 0 : 1;
}
