/* The main thread spins on a plain flag that only another thread sets, with no syscall in the
 * loop: under serialization it completes only because the spinner is interrupted. */
#include <pthread.h>
#include <stdio.h>

static volatile int flag;
static volatile long spins;

static void* set_flag(void* arg) {
  flag = 1;
  return arg;
}

int main(void) {
  pthread_t thread;
  pthread_create(&thread, NULL, set_flag, NULL);
  while (!flag) ++spins;
  pthread_join(thread, NULL);
  puts("flag seen");
  return 0;
}
