/* A parent waits for a child that deadlocks on its own mutex: a deadlock across two processes. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void child_locks_twice(void) {
  pthread_mutex_lock(&lock);
  pthread_mutex_lock(&lock);
}

__attribute__((noinline)) static void parent_waits_for_child(pid_t child) {
  int status;
  waitpid(child, &status, 0);
}

int main(void) {
  pid_t child = fork();
  if (child == 0) {
    child_locks_twice();
    _exit(0);
  }
  parent_waits_for_child(child);
  puts("not reached");
  return 0;
}
