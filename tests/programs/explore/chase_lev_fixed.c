/* chase_lev_fixed: a Chase–Lev work-stealing deque (Lê et al. 2013, without growth).
 *
 * When one task is left, the owner and a thief race for it with the same CAS on `top`: exactly
 * one of them moves top past it. Correct under every schedule: the twin of chase_lev_buggy.c.
 */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { kCapacity = 8, kEmpty = -1, kTasks = 1 };

static atomic_long top, bottom;
static _Atomic int buffer[kCapacity];
static atomic_int runs[kTasks];

/* The owner's end. */
static void push(int task) {
  const long b = atomic_load_explicit(&bottom, memory_order_relaxed);
  atomic_store_explicit(&buffer[b % kCapacity], task, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
}

static int take(void) {
  const long b = atomic_load_explicit(&bottom, memory_order_relaxed) - 1;
  atomic_store_explicit(&bottom, b, memory_order_seq_cst);
  const long t = atomic_load_explicit(&top, memory_order_seq_cst);
  if (t > b) { /* empty */
    atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
    return kEmpty;
  }
  const int task = atomic_load_explicit(&buffer[b % kCapacity], memory_order_relaxed);
  if (t == b) {
    /* The last task: won by whoever moves top past it first, the owner or a thief. */
    long expected = t;
    const int won = atomic_compare_exchange_strong_explicit(&top, &expected, t + 1, memory_order_seq_cst,
                                                            memory_order_relaxed);
    atomic_store_explicit(&bottom, b + 1, memory_order_relaxed);
    return won ? task : kEmpty;
  }
  return task;
}

/* A thief's end. */
static int steal(void) {
  long t = atomic_load_explicit(&top, memory_order_acquire);
  atomic_thread_fence(memory_order_seq_cst);
  const long b = atomic_load_explicit(&bottom, memory_order_acquire);
  if (t >= b) return kEmpty;
  const int task = atomic_load_explicit(&buffer[t % kCapacity], memory_order_relaxed);
  if (!atomic_compare_exchange_strong_explicit(&top, &t, t + 1, memory_order_seq_cst, memory_order_relaxed)) {
    return kEmpty; /* lost the race */
  }
  return task;
}

static void run(int task) {
  if (task != kEmpty) atomic_fetch_add(&runs[task], 1);
}

static void* owner(void* arg) {
  run(take());
  return arg;
}

static void* thief(void* arg) {
  run(steal());
  return arg;
}

int main(void) {
  for (int task = 0; task < kTasks; ++task) push(task);
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, owner, NULL);
  pthread_create(&threads[1], NULL, thief, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  for (int task = 0; task < kTasks; ++task) assert(atomic_load(&runs[task]) == 1 && "a task ran twice or never");
  printf("every task ran once\n");
  return 0;
}
