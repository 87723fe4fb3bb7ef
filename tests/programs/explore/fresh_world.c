// Every execution of a search must start from the same world, although the executions share
// one set of namespaces. Each execution of this program checks what it finds, then leaves
// behind what would show in the next one if the world were not renewed:
//   - its pid is 2 and the hostname is chess-trace (then it changes the hostname);
//   - /tmp holds no file of an earlier execution (then it creates one);
//   - its first SysV semaphore set gets id 0 and key 0x43480001 is free (then it keeps both);
//   - a background process, still paused when the root exits, must be gone.
// Two threads take a lock in turn, so that the search has several schedules to run. Any
// check that fails aborts with a message: the search reports it as a bug.
// With `after-thread`, it first creates and joins a thread: explore's fork server then forks
// every execution but the first from a template made at that thread's creation, and what the
// program checks is what the forked process finds (the background process is then pid 4).
// Usage: fresh_world [after-thread] (under explore with --isolate pid,uts,ipc,mnt,tmp, as root).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int counter;

static void check(int ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "fresh_world: %s\n", what);
  abort();
}

static void* work(void* arg) {
  pthread_mutex_lock(&lock);
  ++counter;
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(int argc, char** argv) {
  const int after_thread = argc > 1 && strcmp(argv[1], "after-thread") == 0;
  if (after_thread) {
    pthread_t first;
    pthread_create(&first, NULL, work, NULL);
    pthread_join(first, NULL);
  }
  check(getpid() == 2, "the program is not pid 2");
  char host[64] = {0};
  check(gethostname(host, sizeof(host) - 1) == 0 && strcmp(host, "chess-trace") == 0,
        "the hostname is not chess-trace (an earlier execution's?)");
  const int marker = open("/tmp/fresh_world.marker", O_WRONLY | O_CREAT | O_EXCL, 0600);
  check(marker >= 0, "/tmp holds an earlier execution's file");
  close(marker);
  const int first = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
  check(first == 0, "the first semaphore set is not id 0 (an earlier execution's IPC namespace?)");
  check(semget(0x43480001, 1, IPC_CREAT | IPC_EXCL | 0600) >= 0, "key 0x43480001 is taken by an earlier execution");
  const char changed[] = "changed";
  (void)sethostname(changed, sizeof(changed) - 1);

  const pid_t background = fork();
  if (background == 0) {
    for (;;) pause();
  }
  check(background == (after_thread ? 4 : 3), "the background process is not the next pid (one of an earlier execution is left?)");

  pthread_t threads[2];
  for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, work, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  check(counter == 2 + after_thread, "lost an update");
  return 0;  // the background process is still paused: the search must kill it
}
