/* SIGKILL between processes: the parent forks three children that would never end on their
 * own — one blocked reading a pipe nobody writes, one asleep for an hour, one spinning — kills
 * the first two by pid and the third through its process group, and reaps each with waitpid.
 * Every child must be reported killed by SIGKILL, whatever the schedule; a child that was
 * already reaped or never died would show in the output. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long spins;

static pid_t spawn(int kind, int never_written) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  switch (kind) {
    case 0: {
      char byte;
      (void)read(never_written, &byte, 1);
      break;
    }
    case 1: {
      const struct timespec hour = {3600, 0};
      nanosleep(&hour, NULL);
      break;
    }
    default:
      setpgid(0, 0);
      for (;;) ++spins;
  }
  _exit(0);
}

static void reap(const char* what, pid_t pid) {
  int status = 0;
  const pid_t got = waitpid(pid, &status, 0);
  if (got != pid) {
    printf("%s: waitpid failed\n", what);
  } else if (WIFSIGNALED(status)) {
    printf("%s: killed by signal %d\n", what, WTERMSIG(status));
  } else {
    printf("%s: exited with %d\n", what, WEXITSTATUS(status));
  }
}

int main(void) {
  int ends[2];
  if (pipe(ends) != 0) return 2;
  fflush(stdout);
  const pid_t reader = spawn(0, ends[0]);
  const pid_t sleeper = spawn(1, ends[0]);
  const pid_t spinner = spawn(2, ends[0]);
  setpgid(spinner, spinner); /* either of the two calls makes the group; both are harmless */
  if (kill(reader, SIGKILL) != 0 || kill(sleeper, SIGKILL) != 0 || kill(-spinner, SIGKILL) != 0) {
    perror("kill");
    return 1;
  }
  reap("reader", reader);
  reap("sleeper", sleeper);
  reap("spinner", spinner);
  /* Nobody is left to wait for. */
  printf("more children: %s\n", waitpid(-1, NULL, WNOHANG) < 0 ? "none" : "some");
  return 0;
}
