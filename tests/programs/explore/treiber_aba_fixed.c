/* treiber_aba_fixed: a lock-free (Treiber) stack whose head carries a version.
 *
 * The head is a node index in the low 32 bits and a version in the high 32 bits; every
 * successful CAS, pop or push, writes a new version. A head that was popped and pushed back
 * between a pop's read and its CAS compares unequal, the CAS fails and the pop reads again.
 * Correct under every schedule: the twin of treiber_aba_buggy.c.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

enum { kNodes = 3, kNone = 0xffffffffu };

/* Nodes live in a pool and are named by index: a freed node is reused, as allocators do. */
struct node {
  uint32_t next;
  int held_by; /* 0: on the stack; otherwise the thread that popped it and keeps it */
};
static struct node pool[kNodes];
static _Atomic uint64_t head; /* version << 32 | the index of the top node (kNone: empty) */

static uint64_t versioned(uint64_t old_head, uint32_t index) {
  return ((old_head >> 32) + 1) << 32 | index;
}

static uint32_t pop(int thread) {
  uint64_t top = atomic_load(&head);
  for (;;) {
    if ((uint32_t)top == kNone) return kNone;
    const uint64_t next = versioned(top, pool[(uint32_t)top].next);
    if (atomic_compare_exchange_weak(&head, &top, next)) break;
  }
  pool[(uint32_t)top].held_by = thread;
  return (uint32_t)top;
}

static void push(uint32_t index) {
  uint64_t top = atomic_load(&head);
  do {
    pool[index].next = (uint32_t)top;
    pool[index].held_by = 0;
  } while (!atomic_compare_exchange_weak(&head, &top, versioned(top, index)));
}

static void* thief(void* arg) {
  pop(1);
  return arg;
}

static void* juggler(void* arg) {
  const uint32_t a = pop(2);
  const uint32_t b = pop(2);
  (void)b; /* kept: the juggler holds it to the end */
  if (a != kNone) push(a);
  return arg;
}

int main(void) {
  for (uint32_t i = 0; i < kNodes; ++i) pool[i].next = i + 1 < kNodes ? i + 1 : kNone;
  atomic_store(&head, 0);
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, thief, NULL);
  pthread_create(&threads[1], NULL, juggler, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  int on_stack = 0;
  for (uint32_t i = (uint32_t)atomic_load(&head); i != kNone; i = pool[i].next) {
    assert(pool[i].held_by == 0 && "a node held by a thread is on the stack");
    assert(++on_stack <= kNodes);
  }
  printf("nodes left on the stack: %d\n", on_stack);
  return 0;
}
