/* A program that never creates a thread, as most programs a shell script runs: with the shim
 * preloaded it must run as without it, and the shim must not have started a thread of its own
 * or left anything in errno. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <time.h>

#include "test_support.h"

static int once_runs;
static void run_once(void) { ++once_runs; }

static int thread_count(void) {
  DIR *tasks = opendir("/proc/self/task");
  if (tasks == NULL) return -1;
  int count = 0;
  for (struct dirent *entry; (entry = readdir(tasks)) != NULL;)
    if (entry->d_name[0] != '.') ++count;
  closedir(tasks);
  return count;
}

int main(void) {
  CHECK_EQ(errno, 0);
  test_check_expected_shim();
  CHECK_EQ(thread_count(), 1);
  static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  static const struct timespec past = {0, 0};
  CHECK_EQ(pthread_mutex_lock(&mutex), 0);
  CHECK_EQ(pthread_mutex_trylock(&mutex), EBUSY);
  CHECK_EQ(pthread_cond_timedwait(&cond, &mutex, &past), ETIMEDOUT);
  CHECK_EQ(pthread_mutex_unlock(&mutex), 0);
  CHECK_EQ(pthread_once(&once, run_once), 0);
  CHECK_EQ(pthread_once(&once, run_once), 0);
  CHECK_EQ(once_runs, 1);
  sem_t sem;
  sem_init(&sem, 0, 1);
  CHECK_EQ(sem_wait(&sem), 0);
  errno = 0;
  CHECK_EQ(sem_trywait(&sem), -1);
  CHECK_EQ(errno, EAGAIN);
  CHECK_EQ(thread_count(), 1);
  if (test_finish("no_threads") != 0) return 1;
  puts("no_threads: one thread throughout, every check passed");
  return 0;
}
