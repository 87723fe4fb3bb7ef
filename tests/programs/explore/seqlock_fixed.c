/* seqlock_fixed: a sequence-lock reader that retries while a write is under way.
 *
 * The reader accepts a pair only when it read the same even sequence before and after it: an
 * odd sequence means the writer is between its increments, a changed one that it wrote
 * meanwhile. Correct under every schedule: the twin of seqlock_buggy.c. (Its data accesses still
 * race with the writer's, by design: a race detector reports them, and no schedule fails.)
 */
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
    if (before != after || before % 2 != 0) sched_yield(); /* a writer is at work: let it finish */
  } while (before != after || before % 2 != 0);
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
