/* Signals reaching threads that wait: a child parked in a condition-variable wait is killed by
 * its parent; SIGALRM interrupts sleep() through a handler; SIGCHLD interrupts a nanosleep. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile sig_atomic_t handled;

static void count_signal(int signal) {
  (void)signal;
  ++handled;
}

int main(void) {
  pid_t child = fork();
  if (child == 0) {
    pthread_mutex_lock(&lock);
    for (;;) pthread_cond_wait(&never, &lock);
  }
  usleep(20000);
  kill(child, SIGTERM);
  int status;
  waitpid(child, &status, 0);
  printf("child killed by signal %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);

  signal(SIGALRM, count_signal);
  alarm(1);
  const unsigned left = sleep(5);
  printf("sleep interrupted with %s left, handled %d\n", left >= 3 ? "most" : "little", handled);

  signal(SIGCHLD, count_signal);
  if (fork() == 0) _exit(0);
  struct timespec nap = {5, 0};
  const int rc = nanosleep(&nap, &nap);
  printf("nanosleep interrupted by SIGCHLD: %s\n", rc == -1 ? "yes" : "no");
  return 0;
}
