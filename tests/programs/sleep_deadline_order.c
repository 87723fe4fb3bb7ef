/* Sleepers wake in deadline order: thread A sleeps 1 s and then sets a flag; thread B, created
 * first, sleeps 2 s and then expects the flag. Exits 1 if B woke before A had set it. Under
 * `chess-trace run` time is virtual: the run takes no wall time, and A, whose deadline is the
 * earlier, must still run first although B is the older thread.
 *
 * Optional arguments: A's and B's sleeps in microseconds (default 1000000 and 2000000).
 */
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_int flag;

static void sleep_us(long us) {
  struct timespec d = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&d, &d) != 0) {
  }
}

static void* thread_a(void* arg) {
  sleep_us((long)arg);
  atomic_store(&flag, 1);
  return NULL;
}

static void* thread_b(void* arg) {
  sleep_us((long)arg);
  return (void*)(long)atomic_load(&flag);
}

int main(int argc, char** argv) {
  const long a_us = argc > 1 ? atol(argv[1]) : 1000000;
  const long b_us = argc > 2 ? atol(argv[2]) : 2000000;
  pthread_t a, b;
  pthread_create(&b, NULL, thread_b, (void*)b_us);
  pthread_create(&a, NULL, thread_a, (void*)a_us);
  void* seen;
  pthread_join(b, &seen);
  pthread_join(a, NULL);
  if (seen == NULL) {
    printf("B woke after %ld us before A, which sleeps %ld us, had set the flag\n", b_us, a_us);
    return 1;
  }
  printf("A (%ld us) set the flag before B (%ld us) looked\n", a_us, b_us);
  return 0;
}
