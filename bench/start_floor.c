// The floor of a search's executions per second under ptrace, for the two ways of starting an
// execution (design §4): by execve, as chess-trace does today, or forked from a template
// process stopped at its first clone3 (after the dynamic loader, before any thread exists).
//
// A minimal tracer: a seccomp filter that traps only clone, clone3 and futex (what any
// thread-serializing tool must see), every stop simply continued, no scheduling. Whatever
// chess-trace spends beyond this is its own; what this spends is the cost of the start.
//
//   start_floor exec N CPU PROGRAM [ARGS...]   seize, exec, run to the end; N times
//   start_floor fork N CPU PROGRAM [ARGS...]   one template, then N children forked from it
//
// CPU: pin the tracer and the program to this CPU (as chess-trace does), or -1. Each execution
// must exit 0. Prints "rate R" (executions per second).
//
// How an execution is forked from the template, stopped at the seccomp stop of its first
// clone3: that syscall is turned into clone(CLONE_PARENT | SIGCHLD) (the child's parent is the
// tracer, as the template's is), the template is taken to the syscall's exit and rewound to the
// clone3 again, and the child, stopped where the fork returned, is rewound to the same clone3:
// resumed, it makes the call the template was about to make.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const long kOptions = PTRACE_O_TRACEFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                             PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL;

static void die(const char* what) {
  fprintf(stderr, "start_floor: %s: %s\n", what, strerror(errno));
  exit(1);
}

static int is_event(int status, int event) { return (status >> 8) == (SIGTRAP | (event << 8)); }

// Starts PROGRAM seized, with the filter; it waits on a pipe until it is traced.
static pid_t launch(char** argv) {
  int go[2];
  if (pipe(go) != 0) die("pipe");
  const pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    char byte;
    close(go[1]);
    if (read(go[0], &byte, 1) != 1) _exit(126);
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
    };
    struct sock_fprog program = {sizeof(filter) / sizeof(filter[0]), filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
      _exit(126);
    }
    execv(argv[0], argv);
    _exit(127);
  }
  close(go[0]);
  if (ptrace(PTRACE_SEIZE, pid, 0, kOptions) != 0) die("PTRACE_SEIZE");
  if (write(go[1], "g", 1) != 1) die("write");
  close(go[1]);
  return pid;
}

// Continues every stop of every tracee until `root` is gone; its exit status.
static int run_to_end(pid_t root) {
  for (;;) {
    int status;
    const pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) die("waitpid");
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      if (tid == root) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      continue;
    }
    const int signal = WSTOPSIG(status);
    const int event = status >> 16;
    // Event stops (clone, exec, seccomp, a new thread's first stop) pass nothing on.
    const int deliver = (event != 0 || signal == SIGTRAP || signal == SIGSTOP) ? 0 : signal;
    ptrace(PTRACE_CONT, tid, 0, deliver);
  }
}

// Runs `template` to the seccomp stop of its first clone3 (or clone) and returns its registers.
static struct user_regs_struct stop_at_first_clone(pid_t template) {
  for (;;) {
    int status;
    if (waitpid(template, &status, __WALL) != template) die("waitpid (template)");
    if (WIFEXITED(status) || WIFSIGNALED(status)) {
      fprintf(stderr, "start_floor: the program ended before it created a thread\n");
      exit(1);
    }
    if (is_event(status, PTRACE_EVENT_SECCOMP)) {
      struct user_regs_struct regs;
      if (ptrace(PTRACE_GETREGS, template, 0, &regs) != 0) die("PTRACE_GETREGS");
      if (regs.orig_rax == SYS_clone3 || regs.orig_rax == SYS_clone) return regs;
    }
    ptrace(PTRACE_CONT, template, 0, 0);
  }
}

// Forks the template (at its clone3's seccomp stop, `at`) and leaves both where the template
// was: about to make that clone3. Returns the child's pid.
static pid_t fork_template(pid_t template, const struct user_regs_struct* at) {
  struct user_regs_struct regs = *at;
  regs.orig_rax = SYS_clone;
  regs.rdi = CLONE_PARENT | SIGCHLD;
  regs.rsi = regs.rdx = regs.r10 = regs.r8 = 0;
  if (ptrace(PTRACE_SETREGS, template, 0, &regs) != 0 || ptrace(PTRACE_SYSCALL, template, 0, 0) != 0) die("inject");
  pid_t child = 0;
  int child_stopped = 0;
  for (;;) {
    int status;
    const pid_t tid = waitpid(-1, &status, __WALL);
    if (tid < 0) die("waitpid (fork)");
    if (tid != template) {  // the child's first stop, which may come before the fork event
      child = tid;
      child_stopped = 1;
      continue;
    }
    if (is_event(status, PTRACE_EVENT_FORK)) {
      unsigned long message;
      ptrace(PTRACE_GETEVENTMSG, template, 0, &message);
      child = (pid_t)message;
      ptrace(PTRACE_SYSCALL, template, 0, 0);
      continue;
    }
    if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP) break;  // the syscall's exit
    fprintf(stderr, "start_floor: unexpected stop of the template (%#x)\n", status);
    exit(1);
  }
  struct user_regs_struct rewound = *at;
  rewound.rip -= 2;  // back onto the syscall instruction
  rewound.rax = at->orig_rax;
  if (ptrace(PTRACE_SETREGS, template, 0, &rewound) != 0) die("rewind template");
  if (!child_stopped) {
    int status;
    if (waitpid(child, &status, __WALL) != child) die("waitpid (child)");
  }
  if (ptrace(PTRACE_SETREGS, child, 0, &rewound) != 0) die("rewind child");
  return child;
}

int main(int argc, char** argv) {
  if (argc < 5 || (strcmp(argv[1], "exec") != 0 && strcmp(argv[1], "fork") != 0)) {
    fprintf(stderr, "usage: start_floor exec|fork N CPU PROGRAM [ARGS...]\n");
    return 2;
  }
  const int forking = strcmp(argv[1], "fork") == 0;
  const long n = atol(argv[2]);
  const int cpu = atoi(argv[3]);
  char** program = argv + 4;
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) die("sched_setaffinity");
  }
  pid_t template = 0;
  struct user_regs_struct at;
  if (forking) {
    template = launch(program);
    at = stop_at_first_clone(template);
  }
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long i = 0; i < n; ++i) {
    pid_t root;
    if (forking) {
      root = fork_template(template, &at);
      ptrace(PTRACE_CONT, root, 0, 0);
    } else {
      root = launch(program);
    }
    const int status = run_to_end(root);
    if (status != 0) {
      fprintf(stderr, "start_floor: execution %ld ended with status %d\n", i + 1, status);
      return 1;
    }
    if (forking) {  // the template, rewound, goes back to its seccomp stop
      ptrace(PTRACE_CONT, template, 0, 0);
      int s;
      if (waitpid(template, &s, __WALL) != template || !is_event(s, PTRACE_EVENT_SECCOMP)) die("template");
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  if (forking) kill(template, SIGKILL);
  const double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
  printf("rate %.1f\n", (double)n / seconds);
  return 0;
}
