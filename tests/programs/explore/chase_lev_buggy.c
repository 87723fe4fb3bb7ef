/* chase_lev_buggy: a Chase–Lev work-stealing deque whose owner takes the last task without
 * racing the thieves for it.
 *
 * The owner pushes and takes at the bottom; thieves steal at the top with a compare-and-swap on
 * `top`. When one task is left, the owner and a thief both want it, and the algorithm makes the
 * owner win or lose that race with the same CAS on `top` (Chase and Lev 2005; Lê et al. 2013).
 *
 * Bug: take() returns the last task without that CAS — lowering `bottom` alone, as if no thief
 * could be halfway through a steal.
 *
 * Schedule that exposes it (1 preemption): main pushes one task and starts the owner and a thief.
 * The thief reads top 0 and bottom 1, reads the task, and is preempted at its CAS. The owner
 * lowers bottom to 0, reads top 0, sees the last task and takes it without a CAS, then exits. The
 * thief's CAS moves top from 0 to 1 and succeeds: the task runs twice. main checks: SIGABRT.
 *
 * Every shared access is an atomic load, store, fence or CAS: no lock, no syscall in the window.
 * Without a preemption each thread runs alone from its start to its exit and the task runs once.
 *
 * Fixed twin: chase_lev_fixed.c (the owner takes the last task by a CAS on top). */
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
  /* The last task (t == b): a thief may be between reading it and its CAS on top. Taken anyway,
   * bottom left at top (the deque looks empty to thieves that look from now on). */
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
