/* cwd_output_buggy: a check-then-act on a counter, in a program that writes its result to a new
 * file in its working directory.
 *
 * The program never overwrites an earlier run's output: once its first worker is started it
 * takes the first free name of tally.0.out, tally.1.out, … with open(O_CREAT | O_EXCL), starts
 * the second worker, and at the end writes its tally there. So what it does depends on what
 * earlier runs left in its working directory: a run that finds tally.0.out there makes one open
 * more than the first run did. (Starting a worker first lets explore's fork server copy the
 * process at its first thread creation: every later execution then starts from that copy, and
 * must still find its own fresh working directory.)
 *
 * Bug (1 preemption): one ticket, two workers. Each checks under the lock that a ticket is
 * left, releases the lock, and takes the ticket in a second critical section. A preemption
 * between the two lets both see the ticket and both take it: -1 left, SIGABRT.
 *
 * A search whose executions share the working directory cannot replay its schedules: every
 * execution after the first finds the files the earlier ones left and opens once more than the
 * execution it replays, so its branches diverge and are pruned. With --isolate …,cwd each
 * execution sees the directory as it was when the search began, and the bug is found.
 *
 * Fixed twin: cwd_output_fixed.c (the check and the take in one critical section). */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int tickets_left = 1; /* guarded by lock */
static int taken = 0;        /* guarded by lock */

static int ticket_available(void) {
  pthread_mutex_lock(&lock);
  const int available = tickets_left > 0;
  pthread_mutex_unlock(&lock);
  return available;
}

static void take_ticket(void) {
  pthread_mutex_lock(&lock);
  --tickets_left;
  ++taken;
  pthread_mutex_unlock(&lock);
}

static void* worker(void* arg) {
  /* The window: the lock is free between the check and the take. */
  if (ticket_available()) take_ticket();
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

int main(void) {
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
  assert(tickets_left >= 0);
  dprintf(out, "taken %d, left %d\n", taken, tickets_left);
  close(out);
  printf("%s: taken %d, left %d\n", name, taken, tickets_left);
  return 0;
}
