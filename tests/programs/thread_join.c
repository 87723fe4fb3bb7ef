/* pthread_join: every thread's return value comes back to the joiner, joined in reverse
 * creation order, and a thread that joins another one it created itself. */
#include <pthread.h>
#include <stdio.h>

enum { kThreads = 6 };

static void* square(void* arg) {
  const long n = (long)arg;
  return (void*)(n * n);
}

static void* create_and_join_a_grandchild(void* arg) {
  pthread_t grandchild;
  pthread_create(&grandchild, NULL, square, arg);
  void* result;
  pthread_join(grandchild, &result);
  return (void*)((long)result + 1);
}

int main(void) {
  pthread_t threads[kThreads];
  for (long i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, square, (void*)i);
  long sum = 0;
  for (int i = kThreads - 1; i >= 0; --i) {
    void* result;
    pthread_join(threads[i], &result);
    sum += (long)result;
  }
  pthread_t nested;
  pthread_create(&nested, NULL, create_and_join_a_grandchild, (void*)7L);
  void* nested_result;
  pthread_join(nested, &nested_result);
  printf("sum of squares %ld, nested join returned %ld\n", sum, (long)nested_result);
  return sum == 55 && (long)nested_result == 50 ? 0 : 1;
}
