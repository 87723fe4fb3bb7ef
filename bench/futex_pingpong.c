/* Two threads hand a token back and forth through a futex: every hand-over is a wake and a
 * wait, so each round is four scheduling points under chess-trace. Prints "us_per_round N". */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int turn;
static long rounds = 100000;

static void wait_for(int mine) {
  while (atomic_load(&turn) != mine) syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, !mine, NULL, NULL, 0);
}

static void pass_to(int other) {
  atomic_store(&turn, other);
  syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void* pong(void* arg) {
  for (long i = 0; i < rounds; ++i) {
    wait_for(1);
    pass_to(0);
  }
  return arg;
}

int main(int argc, char** argv) {
  if (argc > 1) rounds = atol(argv[1]);
  pthread_t thread;
  struct timespec start, end;
  pthread_create(&thread, NULL, pong, NULL);
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long i = 0; i < rounds; ++i) {
    wait_for(0);
    pass_to(1);
  }
  pthread_join(thread, NULL);
  clock_gettime(CLOCK_MONOTONIC, &end);
  printf("us_per_round %.2f\n", ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / rounds);
  return 0;
}
