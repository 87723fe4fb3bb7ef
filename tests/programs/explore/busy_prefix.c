/* busy_prefix: a program that does a lot before its first thread, all of which an execution
 * forked from chess-trace's template (explore's fork server) must see exactly as one started by
 * execve does. Before the threads it writes to stdout (buffered) and stderr (not), reads its
 * standard input to the end, draws random bytes, reads the clocks, and sleeps. Then two threads
 * update a counter in two critical sections each (the atomicity bug of atomicity_buggy): the
 * search finds it with 1 preemption, and the failing execution's output, in the report, holds
 * the prefix's lines, what it read and drew, and the times it saw.
 *
 * Usage: busy_prefix [fixed]   (fixed: one critical section per update; never fails). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static int fixed;

static void* add(void* arg) {
  const long amount = (long)arg;
  pthread_mutex_lock(&lock);
  long value = counter;
  if (!fixed) {
    pthread_mutex_unlock(&lock);
    pthread_mutex_lock(&lock);
  }
  counter = value + amount;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(int argc, char** argv) {
  fixed = argc > 1 && strcmp(argv[1], "fixed") == 0;
  printf("prefix: stdout before the threads\n");
  fprintf(stderr, "prefix: stderr before the threads\n");
  char input[256] = {0};
  size_t got = fread(input, 1, sizeof(input) - 1, stdin);
  unsigned char random[8] = {0};
  if (getrandom(random, sizeof(random), 0) != sizeof(random)) return 3;
  struct timespec real, mono;
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  const struct timespec nap = {0, 5000000};
  nanosleep(&nap, NULL);
  printf("prefix: read %zu bytes \"%.*s\", drew %02x%02x%02x%02x, time %lld.%09ld, monotonic %lld.%09ld\n", got,
         (int)strcspn(input, "\n"), input, random[0], random[1], random[2], random[3], (long long)real.tv_sec,
         real.tv_nsec, (long long)mono.tv_sec, mono.tv_nsec);

  pthread_t threads[2];
  pthread_create(&threads[0], NULL, add, (void*)1L);
  pthread_create(&threads[1], NULL, add, (void*)10L);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  printf("counter %ld at monotonic %lld.%09ld\n", counter, (long long)mono.tv_sec, mono.tv_nsec);
  fflush(stdout);
  if (counter != 11) abort();
  return 0;
}
