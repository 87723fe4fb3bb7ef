/* seqlock_buggy: a sequence-lock reader that can accept a torn pair.
 *
 * The writer makes the sequence odd, writes both halves of a pair, and makes it even again; a
 * reader reads the sequence, the pair, and the sequence again, and must retry unless both reads
 * gave the same even number (Lameter's seqlock; the data accesses race with the writer by design,
 * and the sequence is what makes a read that overlapped a write detectable).
 *
 * Bug: the reader only compares its two reads of the sequence. A read made entirely while the
 * writer is between its two increments sees the same odd number twice and is accepted.
 *
 * Schedule that exposes it (1 preemption): the writer makes the sequence odd and writes the
 * first half, and is preempted before the second. The reader reads sequence 1, the new first
 * half, the old second half, and sequence 1 again, accepts the pair and finds its halves
 * unequal: SIGABRT.
 *
 * The window is between two plain stores of the writer: only a race point there (the reader's
 * loads race with those stores) lets the search switch threads in it. Without a preemption the
 * writer and the reader each run whole.
 *
 * Fixed twin: seqlock_fixed.c (the reader also retries while the sequence is odd). */
#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static atomic_uint sequence;
/* The pair: written only by the writer, inside the odd sequence. */
static volatile long first_half, second_half;

static void* writer(void* arg) {
  atomic_fetch_add(&sequence, 1); /* odd: a write is under way */
  first_half = 1;
  /* The window: a reader here sees a new first half and an old second half. */
  second_half = 1;
  atomic_fetch_add(&sequence, 1); /* even: the pair is whole */
  return arg;
}

static void* reader(void* arg) {
  long first, second;
  unsigned before, after;
  do {
    before = atomic_load(&sequence);
    first = first_half;
    second = second_half;
    after = atomic_load(&sequence);
    if (before != after) sched_yield(); /* a writer is at work: let it finish */
  } while (before != after);
  assert(first == second && "a torn pair was read");
  return arg;
}

int main(void) {
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, writer, NULL);
  pthread_create(&threads[1], NULL, reader, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  printf("pair (%ld, %ld)\n", first_half, second_half);
  return 0;
}
