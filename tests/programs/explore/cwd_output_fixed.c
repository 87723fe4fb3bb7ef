/* cwd_output_fixed: the correct twin of cwd_output_buggy.c.
 *
 * The same output file in the working directory (the first free tally.N.out), and the same
 * two workers, but each checks for the ticket and takes it in one critical section: one worker
 * takes it, the other finds none, and every schedule ends with 0 left.
 *
 * With the argument `touch`, it first sets its working directory's times (utimensat on "."),
 * before any thread: a change a copy of the process made later would not carry, so under
 * --isolate …,cwd explore's fork server must not make its template there. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int tickets_left = 1; /* guarded by lock */
static int taken = 0;        /* guarded by lock */

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  if (tickets_left > 0) {
    --tickets_left;
    ++taken;
  }
  pthread_mutex_unlock(&lock);
  return arg;
}

/* The first name of tally.N.out that no earlier run took. */
static int create_output(char* name, size_t size) {
  for (int n = 0; n < 1000; ++n) {
    snprintf(name, size, "tally.%d.out", n);
    const int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "touch") == 0 && utimensat(AT_FDCWD, ".", NULL, 0) != 0) {
    perror("utimensat .");
    return 2;
  }
  pthread_t first, second;
  pthread_create(&first, NULL, worker, NULL);
  char name[64];
  const int out = create_output(name, sizeof(name));
  if (out < 0) {
    perror("tally.N.out");
    return 2;
  }
  pthread_create(&second, NULL, worker, NULL);
  pthread_join(first, NULL);
  pthread_join(second, NULL);
  assert(tickets_left == 0 && taken == 1);
  dprintf(out, "taken %d, left %d\n", taken, tickets_left);
  close(out);
  printf("%s: taken %d, left %d\n", name, taken, tickets_left);
  return 0;
}
