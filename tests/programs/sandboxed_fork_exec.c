/* sandboxed_fork_exec: a correct program that sandboxes itself before its first thread, then
 * forks a child that executes the same program again, still under the filter (seccomp filters
 * are inherited by threads and forks, and kept across exec).
 *
 * The filter allows a list of calls and kills the process for any other; it is installed with
 * prctl(PR_SET_SECCOMP), on the calling thread alone, before any thread exists. Each image runs
 * two threads that count under a mutex and report through a condition variable; the parent
 * waits for its child. What it prints does not depend on the schedule.
 *
 * Under chess-trace the preload shim of the exec'd image must announce by trap from its first
 * sync operation: the filter came with the image. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sandbox_filter.h"

enum { kRounds = 50 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t finished = PTHREAD_COND_INITIALIZER;
static int counter, done; /* guarded by lock */

static void* count_up(void* arg) {
  for (int i = 0; i < kRounds; ++i) {
    pthread_mutex_lock(&lock);
    ++counter;
    pthread_mutex_unlock(&lock);
  }
  pthread_mutex_lock(&lock);
  ++done;
  pthread_cond_signal(&finished);
  pthread_mutex_unlock(&lock);
  return arg;
}

static int run_workers(const char* who) {
  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, count_up, NULL);
  pthread_mutex_lock(&lock);
  while (done < 2) pthread_cond_wait(&finished, &lock);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  printf("%s counted %d\n", who, counter);
  fflush(stdout);
  return counter == 2 * kRounds ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) return run_workers("the exec'd child");
  install_sandbox(SANDBOX_PRCTL);
  if (run_workers("the parent") != 0) return 1;
  pid_t child = fork();
  if (child == 0) {
    char* args[] = {argv[0], "child", NULL};
    execv("/proc/self/exe", args);
    _exit(127);
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("the child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  return status == 0 ? 0 : 1;
}
