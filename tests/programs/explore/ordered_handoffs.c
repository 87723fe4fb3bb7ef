/* ordered_handoffs: plain memory handed from thread to thread by every ordering the race layer
 * models, and no data race at all. A race detector that missed one of these orderings would
 * report a race here; none may be reported, under any schedule.
 *
 * The race layer watches only the memory of its last few samples, so each handoff is a phase of
 * its own, with threads of its own, whose handed-over variable is the last thing sampled before
 * the handoff (in the non-preemptive schedule, the one the race layer learns from):
 * - join: a thread's result read after joining it when it has already ended (glibc makes no
 *   futex call then: it reads the thread's tid word, which the kernel cleared);
 * - condition: a flag read under a mutex before a condition wait (which releases the mutex
 *   inside libc), then set under the mutex by the signaller;
 * - pipe: a value written before a write(), read after the read() that returns it;
 * - semaphore: a value set before sem_post, read after sem_wait;
 * - atomic: a value set before an atomic read-modify-write, read after one that saw it;
 * - malloc: a block written and freed by one thread, got back from malloc by the next;
 * - start: main's write before creating the thread that reads it.
 * Accesses go through volatile globals, so the compiler keeps them plain loads and stores. */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void run_pair(void* (*a)(void*), void* (*b)(void*)) {
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, a, NULL);
  pthread_create(&threads[1], NULL, b, NULL);
  /* The second is joined first: the first has ended by then in the non-preemptive schedule,
   which runs the first until it blocks or ends. */
  pthread_join(threads[1], NULL);
  pthread_join(threads[0], NULL);
}

/* join */
static volatile long result_of_first;
static void* join_first(void* arg) {
  result_of_first = 1;
  return arg;
}
static void* join_second(void* arg) { return arg; }

/* condition */
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_changed = PTHREAD_COND_INITIALIZER;
static volatile int ready;
static void* condition_signaller(void* arg) {
  pthread_mutex_lock(&ready_lock);
  ready = 1;
  pthread_cond_signal(&ready_changed);
  pthread_mutex_unlock(&ready_lock);
  return arg;
}
static void* condition_waiter(void* arg) {
  pthread_mutex_lock(&ready_lock);
  while (!ready) pthread_cond_wait(&ready_changed, &ready_lock);
  pthread_mutex_unlock(&ready_lock);
  return arg;
}

/* pipe */
static int pipe_ends[2];
static volatile long sent_through_pipe;
static void* pipe_writer(void* arg) {
  sent_through_pipe = 7;
  char byte = 'x';
  assert(write(pipe_ends[1], &byte, 1) == 1);
  return arg;
}
static void* pipe_reader(void* arg) {
  char byte;
  assert(read(pipe_ends[0], &byte, 1) == 1);
  assert(sent_through_pipe == 7);
  return arg;
}

/* semaphore */
static sem_t posted;
static volatile long before_post;
static void* semaphore_poster(void* arg) {
  before_post = 3;
  sem_post(&posted);
  return arg;
}
static void* semaphore_waiter(void* arg) {
  sem_wait(&posted);
  assert(before_post == 3);
  return arg;
}

/* atomic */
static atomic_int flag;
static volatile long before_flag;
static void* atomic_setter(void* arg) {
  before_flag = 5;
  atomic_fetch_add(&flag, 1);
  return arg;
}
static void* atomic_spinner(void* arg) {
  while (atomic_fetch_add(&flag, 0) == 0) sched_yield();
  assert(before_flag == 5);
  return arg;
}

/* malloc */
static void* malloc_first(void* arg) {
  volatile long* block = malloc(sizeof(long) * 4);
  block[0] = 1;
  free((void*)block);
  return arg;
}
static void* malloc_second(void* arg) {
  volatile long* block = malloc(sizeof(long) * 4);
  block[0] = 2;
  free((void*)block);
  return arg;
}

/* start */
static volatile long before_start;
static void* start_reader(void* arg) {
  assert(before_start == 10);
  return arg;
}

int main(void) {
  assert(pipe(pipe_ends) == 0);
  sem_init(&posted, 0, 0);
  run_pair(join_first, join_second);
  assert(result_of_first == 1);
  run_pair(condition_waiter, condition_signaller);
  run_pair(pipe_writer, pipe_reader);
  run_pair(semaphore_poster, semaphore_waiter);
  run_pair(atomic_setter, atomic_spinner);
  run_pair(malloc_first, malloc_second);
  before_start = 10;
  run_pair(start_reader, start_reader);
  printf("every handoff ordered\n");
  return 0;
}
