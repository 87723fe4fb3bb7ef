/* treiber_aba_buggy: the ABA problem of a lock-free (Treiber) stack.
 *
 * Bug: pop reads the head, then the head's successor, then swings the head from the one to the
 * other with a compare-and-swap. The CAS compares the head's value only: if, between the read
 * and the CAS, other pops and pushes took the head node away and put the same node back, the CAS
 * succeeds on a successor that is stale — a node that another thread popped and still holds.
 *
 * Schedule that exposes it (1 preemption): the stack holds A → B → C. The thief reads head A and
 * its successor B, and is preempted at its CAS. The juggler pops A, pops B (it keeps B) and
 * pushes A back: the stack is A → C. The thief resumes; its CAS finds head == A and sets head to
 * B, a node the juggler holds: the stack is B → C, with B both on the stack and out of it. main
 * checks that no node on the stack is held by a thread: SIGABRT.
 *
 * Every step of either thread is an atomic load, an atomic compare-and-swap or a plain memory
 * access: no lock, no syscall, no pthread call in the window. Without a preemption the thread
 * that starts first runs to its exit and nothing goes wrong.
 *
 * Fixed twin: treiber_aba_fixed.c (the head carries a version that every successful CAS
 * changes, so a head that went away and came back no longer compares equal). */
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
static _Atomic uint64_t head; /* the index of the top node, kNone when empty */

static uint32_t pop(int thread) {
  uint64_t top = atomic_load(&head);
  for (;;) {
    if ((uint32_t)top == kNone) return kNone;
    const uint64_t next = pool[(uint32_t)top].next;
    /* The window: `next` was read from a node that may be popped and pushed back before the CAS. */
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
  } while (!atomic_compare_exchange_weak(&head, &top, index));
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
    assert(pool[i].held_by == 0 && "a node held by a thread is on the stack (ABA)");
    assert(++on_stack <= kNodes);
  }
  printf("nodes left on the stack: %d\n", on_stack);
  return 0;
}
