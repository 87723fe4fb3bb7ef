/* join_ordered_inversion: a lock-order cycle that no schedule can close — prediction's false
 * alarm, which confirmation must not turn into a bug.
 *
 * The first worker takes A, then B; main joins it; only then does the second worker start and
 * take B, then A. The lock order relation of any execution has the cycle A→B, B→A (iGoodlock
 * does not look at thread creation and join), but the two acquisitions can never overlap. The
 * directed executions try and fail, and explore lists the prediction as a warning, not as a
 * bug; every schedule ends well. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static long total;

static void* forward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock_a);
  pthread_mutex_lock(&lock_b);
  ++total;
  pthread_mutex_unlock(&lock_b);
  pthread_mutex_unlock(&lock_a);
  return NULL;
}

static void* backward(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock_b);
  pthread_mutex_lock(&lock_a);
  ++total;
  pthread_mutex_unlock(&lock_a);
  pthread_mutex_unlock(&lock_b);
  return NULL;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, forward, NULL);
  pthread_join(thread, NULL);
  pthread_create(&thread, NULL, backward, NULL);
  pthread_join(thread, NULL);
  printf("total %ld\n", total);
  return 0;
}
