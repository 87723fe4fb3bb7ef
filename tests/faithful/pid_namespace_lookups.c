// Pids named across a pid namespace the program made: each process names the others by the
// numbers of its own namespace, and a number can name one process outside and another inside.
// The parent makes the namespace; its first child is the namespace's init, which the parent
// names by its pid outside. The init forks until it has a child whose pid inside is that same
// number (its twin; natively the host's pids are too large and it keeps its last child). Then:
// the parent pins the init to one CPU (sched_setaffinity) and reads it back, reads the init's
// CPU clock (clock_getcpuclockid) after the init computed for 2 ms, and stops and continues the
// init (SIGSTOP, SIGCONT: wait4 sees the continue at once); the init reads its own CPU set and
// its child's, and its child's CPU clock, and signals its child, all by its pids inside. Each
// must reach the process the caller named, not the twin: only yes/no answers are printed.
// Without the privilege to make a pid namespace the same runs among plain processes.
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kMaxForks = 64 };
static const long long kComputedNanos = 2000000;  // the init's computing, in CPU time

static volatile sig_atomic_t got_usr1;

static void on_usr1(int signal) {
  (void)signal;
  got_usr1 = 1;
}

static long long Nanos(clockid_t clock) {
  struct timespec ts;
  if (clock_gettime(clock, &ts) != 0) return -1;
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int CpuCount(pid_t pid) {
  cpu_set_t set;
  if (sched_getaffinity(pid, sizeof set, &set) != 0) return -1;
  return CPU_COUNT(&set);
}

static void Put(int fd, char byte) {
  if (write(fd, &byte, 1) != 1) _exit(3);
}

static char Get(int fd) {
  char byte = 0;
  if (read(fd, &byte, 1) != 1) _exit(3);
  return byte;
}

static const char* YesNo(int yes) { return yes ? "yes" : "no"; }

// The init's child kept alive: it reports each SIGUSR1 it takes.
static void Child(int decide, int report) {
  if (Get(decide) != 'k') _exit(0);
  for (;;) {
    while (!got_usr1) pause();
    got_usr1 = 0;
    Put(report, 'u');
  }
}

// The namespace's init: `to_init` brings its pid outside and then the parent's steps,
// `to_parent` says it is ready for each.
static int Init(int to_init, int to_parent, int parent_cpus) {
  pid_t outside;
  if (read(to_init, &outside, sizeof outside) != sizeof outside) return 3;
  int decide[2], report[2];
  if (pipe(decide) != 0 || pipe(report) != 0) return 3;
  pid_t child = 0;
  for (int i = 0; i < kMaxForks && child == 0; ++i) {
    const pid_t forked = fork();
    if (forked < 0) return 3;
    if (forked == 0) Child(decide[0], report[1]);
    if (forked == outside || i == kMaxForks - 1) {
      child = forked;
      Put(decide[1], 'k');
    } else {
      Put(decide[1], 'x');
      waitpid(forked, NULL, 0);
    }
  }
  // Computing, for the parent's read of its CPU clock.
  const long long start = Nanos(CLOCK_THREAD_CPUTIME_ID);
  while (Nanos(CLOCK_THREAD_CPUTIME_ID) - start < kComputedNanos) {
  }
  Put(to_parent, 'r');
  if (Get(to_init) != 'p') return 3;  // the parent pinned it, read its clock, stopped it
  printf("init: pinned to one CPU by its parent: %s\n", YesNo(CpuCount(0) == 1));
  printf("init: its child's CPU set is untouched: %s\n", YesNo(CpuCount(child) == parent_cpus));
  clockid_t clock;
  printf("init: its child's CPU clock reads less than 2 ms: %s\n",
         YesNo(clock_getcpuclockid(child, &clock) == 0 && Nanos(clock) >= 0 && Nanos(clock) < kComputedNanos));
  fflush(stdout);
  printf("init: its child takes the SIGUSR1 it sends: %s\n", YesNo(kill(child, SIGUSR1) == 0 && Get(report[0]) == 'u'));
  fflush(stdout);
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  Put(to_parent, 'd');
  return 0;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  const int parent_cpus = CpuCount(0);
  if (parent_cpus < 1) return 2;
  const int namespaced = unshare(CLONE_NEWPID) == 0;
  (void)namespaced;
  int to_init[2], to_parent[2];
  if (pipe(to_init) != 0 || pipe(to_parent) != 0) return 2;
  fflush(stdout);
  const pid_t init = fork();
  if (init < 0) return 2;
  if (init == 0) _exit(Init(to_init[0], to_parent[1], parent_cpus));
  if (write(to_init[1], &init, sizeof init) != sizeof init) return 2;
  if (Get(to_parent[0]) != 'r') return 2;

  // The init, named by its pid outside.
  cpu_set_t own, one;
  if (sched_getaffinity(0, sizeof own, &own) != 0) return 2;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &own)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  printf("parent: pins the init to one CPU: %s\n", YesNo(sched_setaffinity(init, sizeof one, &one) == 0));
  printf("parent: reads the init's CPU set back as one CPU: %s\n", YesNo(CpuCount(init) == 1));
  clockid_t clock;
  printf("parent: the init's CPU clock reads at least 2 ms: %s\n",
         YesNo(clock_getcpuclockid(init, &clock) == 0 && Nanos(clock) >= kComputedNanos));
  int status = 0;
  printf("parent: stops the init: %s\n",
         YesNo(kill(init, SIGSTOP) == 0 && waitpid(init, &status, WUNTRACED) == init && WIFSTOPPED(status)));
  printf("parent: continues it, and sees it continued at once: %s\n",
         YesNo(kill(init, SIGCONT) == 0 && waitpid(init, &status, WCONTINUED | WNOHANG) == init && WIFCONTINUED(status)));
  fflush(stdout);
  Put(to_init[1], 'p');
  if (Get(to_parent[0]) != 'd') return 2;
  if (waitpid(init, &status, 0) != init) return 2;
  printf("parent: the init exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
