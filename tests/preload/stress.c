/* Multithreaded workloads whose results do not depend on the schedule: a counter under each kind
 * of lock, readers that must never see a writer's half-done update, a bounded producer-consumer
 * queue on a condition variable and on semaphores, barrier phases. It prints the results; the
 * test runs it natively and under the (inert) shim and requires the same output. */
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <threads.h>

#include "test_support.h"

enum { kThreads = 4, kIterations = 100000 };

static pthread_mutex_t counter_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t counter_spin;
static mtx_t counter_mtx;
static long mutex_counter, spin_counter, mtx_counter, trylock_counter;

static void *count(void *arg) {
  (void)arg;
  for (int i = 0; i < kIterations; ++i) {
    pthread_mutex_lock(&counter_mutex);
    ++mutex_counter;
    pthread_mutex_unlock(&counter_mutex);
    pthread_spin_lock(&counter_spin);
    ++spin_counter;
    pthread_spin_unlock(&counter_spin);
    mtx_lock(&counter_mtx);
    ++mtx_counter;
    mtx_unlock(&counter_mtx);
    while (pthread_mutex_trylock(&counter_mutex) != 0) {
    }
    ++trylock_counter;
    pthread_mutex_unlock(&counter_mutex);
  }
  return NULL;
}

/* Readers and writers: a writer moves one unit from `left` to `right`; the sum is invariant. */
enum { kReaders = 3, kWriters = 2, kWrites = 20000, kTotal = 1000000 };
static pthread_rwlock_t pair_lock = PTHREAD_RWLOCK_INITIALIZER;
static long left = kTotal, right;
static atomic_long torn_reads, reads;
static atomic_int writers_left = kWriters;

static void *write_pair(void *arg) {
  (void)arg;
  for (int i = 0; i < kWrites; ++i) {
    pthread_rwlock_wrlock(&pair_lock);
    --left;
    ++right;
    pthread_rwlock_unlock(&pair_lock);
  }
  atomic_fetch_sub(&writers_left, 1);
  return NULL;
}

static void *read_pair(void *arg) {
  (void)arg;
  while (atomic_load(&writers_left) > 0) {
    if (pthread_rwlock_tryrdlock(&pair_lock) != 0) pthread_rwlock_rdlock(&pair_lock);
    if (left + right != kTotal) atomic_fetch_add(&torn_reads, 1);
    pthread_rwlock_unlock(&pair_lock);
    atomic_fetch_add(&reads, 1);
  }
  return NULL;
}

/* A bounded queue on a mutex and two condition variables. */
enum { kProducers = 2, kConsumers = 2, kItemsPerProducer = 50000, kCapacity = 8 };
static pthread_mutex_t queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;
static long queue[kCapacity];
static int queue_head, queue_size, producers_left = kProducers;
static long consumed_sum, consumed_count;

static void *produce(void *arg) {
  long base = (long)arg * kItemsPerProducer;
  for (long i = 1; i <= kItemsPerProducer; ++i) {
    pthread_mutex_lock(&queue_mutex);
    while (queue_size == kCapacity) pthread_cond_wait(&not_full, &queue_mutex);
    queue[(queue_head + queue_size++) % kCapacity] = base + i;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&queue_mutex);
  }
  pthread_mutex_lock(&queue_mutex);
  --producers_left;
  pthread_cond_broadcast(&not_empty);
  pthread_mutex_unlock(&queue_mutex);
  return NULL;
}

static void *consume(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&queue_mutex);
    while (queue_size == 0 && producers_left > 0) pthread_cond_wait(&not_empty, &queue_mutex);
    if (queue_size == 0) {
      pthread_mutex_unlock(&queue_mutex);
      return NULL;
    }
    long item = queue[queue_head];
    queue_head = (queue_head + 1) % kCapacity;
    --queue_size;
    consumed_sum += item;
    ++consumed_count;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&queue_mutex);
  }
}

/* The same queue on semaphores (one producer, one consumer, so no lock is needed). */
enum { kSemItems = 100000 };
static sem_t free_slots, full_slots;
static long ring[kCapacity];
static long sem_sum;

static void *sem_produce(void *arg) {
  (void)arg;
  for (long i = 1; i <= kSemItems; ++i) {
    while (sem_wait(&free_slots) != 0) {
    }
    ring[i % kCapacity] = i;
    sem_post(&full_slots);
  }
  return NULL;
}

static void *sem_consume(void *arg) {
  (void)arg;
  for (long i = 1; i <= kSemItems; ++i) {
    if (sem_trywait(&full_slots) != 0)
      while (sem_wait(&full_slots) != 0) {
      }
    sem_sum += ring[i % kCapacity];
    sem_post(&free_slots);
  }
  return NULL;
}

/* Barrier phases: every thread adds its share in each phase; between phases, the serial
 * thread checks the phase's total. */
enum { kPhases = 200 };
static pthread_barrier_t phase_barrier;
static atomic_long phase_total;
static atomic_int bad_phases, serial_threads;

static void *phases(void *arg) {
  long share = (long)arg + 1;
  for (int phase = 0; phase < kPhases; ++phase) {
    atomic_fetch_add(&phase_total, share);
    int result = pthread_barrier_wait(&phase_barrier);
    if (result == PTHREAD_BARRIER_SERIAL_THREAD) {
      atomic_fetch_add(&serial_threads, 1);
      if (atomic_load(&phase_total) != (long)(phase + 1) * (kThreads * (kThreads + 1) / 2))
        atomic_fetch_add(&bad_phases, 1);
    }
    if (pthread_barrier_wait(&phase_barrier) == PTHREAD_BARRIER_SERIAL_THREAD)
      atomic_fetch_add(&serial_threads, 1);
  }
  return NULL;
}

static void run(void *(*body)(void *), int n) {
  pthread_t threads[8];
  for (long i = 0; i < n; ++i) pthread_create(&threads[i], NULL, body, (void *)i);
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
}

int main(void) {
  test_check_expected_shim();
  pthread_spin_init(&counter_spin, PTHREAD_PROCESS_PRIVATE);
  mtx_init(&counter_mtx, mtx_plain);
  run(count, kThreads);
  printf("counters: mutex %ld, spin %ld, mtx %ld, trylock %ld\n", mutex_counter, spin_counter,
         mtx_counter, trylock_counter);
  CHECK_EQ(mutex_counter, kThreads * kIterations);
  CHECK_EQ(spin_counter, kThreads * kIterations);
  CHECK_EQ(mtx_counter, kThreads * kIterations);
  CHECK_EQ(trylock_counter, kThreads * kIterations);

  pthread_t threads[kReaders + kWriters];
  for (int i = 0; i < kReaders; ++i) pthread_create(&threads[i], NULL, read_pair, NULL);
  for (int i = 0; i < kWriters; ++i) pthread_create(&threads[kReaders + i], NULL, write_pair, NULL);
  for (int i = 0; i < kReaders + kWriters; ++i) pthread_join(threads[i], NULL);
  printf("rwlock: left %ld, right %ld, torn reads %ld\n", left, right, atomic_load(&torn_reads));
  CHECK_EQ(right, kWriters * kWrites);
  CHECK_EQ(atomic_load(&torn_reads), 0);

  for (long i = 0; i < kProducers; ++i) pthread_create(&threads[i], NULL, produce, (void *)i);
  for (int i = 0; i < kConsumers; ++i) pthread_create(&threads[kProducers + i], NULL, consume, NULL);
  for (int i = 0; i < kProducers + kConsumers; ++i) pthread_join(threads[i], NULL);
  long n = (long)kProducers * kItemsPerProducer;
  printf("condvar queue: %ld items, sum %ld\n", consumed_count, consumed_sum);
  CHECK_EQ(consumed_count, n);
  CHECK_EQ(consumed_sum, n * (n + 1) / 2);

  sem_init(&free_slots, 0, kCapacity);
  sem_init(&full_slots, 0, 0);
  pthread_create(&threads[0], NULL, sem_produce, NULL);
  pthread_create(&threads[1], NULL, sem_consume, NULL);
  pthread_join(threads[0], NULL);
  pthread_join(threads[1], NULL);
  printf("semaphore queue: sum %ld\n", sem_sum);
  CHECK_EQ(sem_sum, (long)kSemItems * (kSemItems + 1) / 2);

  pthread_barrier_init(&phase_barrier, NULL, kThreads);
  run(phases, kThreads);
  printf("barrier: %d phases, %d serial threads in %d waits, %d bad phases\n", kPhases,
         atomic_load(&serial_threads), 2 * kPhases, atomic_load(&bad_phases));
  CHECK_EQ(atomic_load(&serial_threads), 2 * kPhases);
  CHECK_EQ(atomic_load(&bad_phases), 0);
  return test_finish("stress");
}
