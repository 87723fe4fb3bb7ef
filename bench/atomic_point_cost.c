/* Two threads, each making N operations that are scheduling points under `explore`: atomic
 * increments of one shared counter (`atomic`: a lock xadd, an atomic point), or FUTEX_WAKE calls
 * on a word nobody waits on (`futex`: a syscall point). Both threads are created before either
 * starts, so every operation is made while another thread lives. Prints "operations 2N".
 *
 *     bench_atomic_point_cost atomic|futex N */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long count;
static int use_atomics;
static atomic_long counter;
static int word;

static void* operate(void* arg) {
  for (long i = 0; i < count; ++i) {
    if (use_atomics) {
      atomic_fetch_add(&counter, 1);
    } else {
      syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
  }
  return arg;
}

int main(int argc, char** argv) {
  if (argc != 3 || (strcmp(argv[1], "atomic") != 0 && strcmp(argv[1], "futex") != 0)) {
    fprintf(stderr, "usage: %s atomic|futex N\n", argv[0]);
    return 2;
  }
  use_atomics = strcmp(argv[1], "atomic") == 0;
  count = atol(argv[2]);
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, operate, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("operations %ld\n", 2 * count);
  return 0;
}
