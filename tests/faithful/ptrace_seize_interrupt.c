// PTRACE_SEIZE and what only a seized tracee has: PTRACE_INTERRUPT of a child blocked in a
// read, a nanosleep, a futex wait, or spinning (a PTRACE_EVENT_STOP stop, and the call goes on
// as if nothing happened), an interrupt asked while stopped (it stops again once let go), a
// group-stop shown as PTRACE_EVENT_STOP with its siginfo, PTRACE_LISTEN (out of reach, woken
// by SIGCONT), an interrupt while the process is still job-stopped (SIGSTOP, not SIGTRAP), the
// exit event, and PTRACE_O_EXITKILL when the tracer exits. Every step's outcome is the same
// whichever the child is doing when the interrupt comes, so the output does not race.
// faithful-hold: with `hold`, the tracer waits forever for a tracee listening in its
// group-stop.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int to_child[2], from_child[2];
static atomic_int* shared;  // [0]: the futex word, [1]: the spin flag

static void report(const char* what, long value) {
  char line[64];
  int n = snprintf(line, sizeof line, "child: %s %ld\n", what, value);
  if (write(from_child[1], line, n) != n) _exit(2);
}

// The child's lines, in the tracer's output where they belong.
static void relay(void) {
  char line[64];
  int n = 0;
  while (n < (int)sizeof line - 1 && read(from_child[0], &line[n], 1) == 1 && line[n++] != '\n') {
  }
  line[n] = '\0';
  fputs(line, stdout);
}

static void child(void) {
  char byte = 0;
  report("read", read(to_child[0], &byte, 1));
  struct timespec nap = {0, 50 * 1000 * 1000};
  report("nanosleep", nanosleep(&nap, NULL));
  while (atomic_load(&shared[0]) == 0) syscall(SYS_futex, &shared[0], FUTEX_WAIT, 0, NULL, NULL, 0);
  report("futex woken", atomic_load(&shared[0]));
  while (atomic_load(&shared[1]) == 0) {
  }
  report("spun", atomic_load(&shared[1]));
  raise(SIGSTOP);
  report("after the group-stop", 0);
  raise(SIGSTOP);
  report("after the second group-stop", 0);
  for (;;) pause();
}

static int stop_of(pid_t pid, const char* what) {
  int status = 0;
  if (waitpid(pid, &status, __WALL) != pid) {
    printf("%s: waitpid failed: %s\n", what, strerrorname_np(errno));
    exit(1);
  }
  if (WIFSTOPPED(status)) {
    printf("%s: stopped, signal %s, event %d\n", what, sigabbrev_np(WSTOPSIG(status)), status >> 16);
  } else if (WIFEXITED(status)) {
    printf("%s: exited %d\n", what, WEXITSTATUS(status));
  } else {
    printf("%s: killed by %s\n", what, sigabbrev_np(WTERMSIG(status)));
  }
  fflush(stdout);
  return status;
}

static void siginfo_of(pid_t pid) {
  siginfo_t info;
  memset(&info, 0, sizeof info);
  if (ptrace(PTRACE_GETSIGINFO, pid, 0, &info) != 0) {
    printf("  GETSIGINFO: %s\n", strerrorname_np(errno));
  } else {
    printf("  GETSIGINFO: %s, code %#x\n", sigabbrev_np(info.si_signo), info.si_code);
  }
}

static void request(const char* name, long result) {
  printf("  %s: %s\n", name, result == 0 ? "0" : strerrorname_np(errno));
}

static void interrupt(pid_t pid, const char* what) {
  request("INTERRUPT", ptrace(PTRACE_INTERRUPT, pid, 0, 0));
  stop_of(pid, what);
}

static void seized_child(int hold) {
  shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (pipe(to_child) != 0 || pipe(from_child) != 0) exit(1);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) child();
  request("SEIZE", ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));

  // Blocked in a read of an empty pipe (or on its way there).
  interrupt(pid, "interrupted in read");
  siginfo_of(pid);
  request("INTERRUPT while stopped", ptrace(PTRACE_INTERRUPT, pid, 0, 0));
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  stop_of(pid, "stopped again");
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  if (write(to_child[1], "x", 1) != 1) exit(1);
  relay();

  // In a nanosleep.
  interrupt(pid, "interrupted in nanosleep");
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  relay();

  // In a futex wait.
  interrupt(pid, "interrupted in a futex wait");
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  atomic_store(&shared[0], 1);
  syscall(SYS_futex, &shared[0], FUTEX_WAKE, 1, NULL, NULL, 0);
  relay();

  // Spinning.
  interrupt(pid, "interrupted spinning");
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  atomic_store(&shared[1], 1);
  relay();

  // Its SIGSTOP: the signal-delivery-stop, then the group-stop it makes.
  stop_of(pid, "raised SIGSTOP");
  siginfo_of(pid);
  request("CONT with SIGSTOP", ptrace(PTRACE_CONT, pid, 0, SIGSTOP));
  stop_of(pid, "group-stop");
  siginfo_of(pid);
  request("LISTEN", ptrace(PTRACE_LISTEN, pid, 0, 0));
  struct user_regs_struct regs;
  request("GETREGS while listening", ptrace(PTRACE_GETREGS, pid, 0, &regs));
  int status = 0;
  printf("  waitpid WNOHANG while listening: %d\n", waitpid(pid, &status, WNOHANG | __WALL));
  if (hold) {
    printf("holding\n");
    fflush(stdout);
    stop_of(pid, "never");
  }
  kill(pid, SIGCONT);
  stop_of(pid, "SIGCONT while listening");
  siginfo_of(pid);
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  stop_of(pid, "SIGCONT delivered");
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  relay();

  // Let go from its group-stop, the process still job-stopped: an interrupt shows SIGSTOP.
  stop_of(pid, "raised SIGSTOP again");
  request("CONT with SIGSTOP", ptrace(PTRACE_CONT, pid, 0, SIGSTOP));
  stop_of(pid, "group-stop");
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  relay();
  interrupt(pid, "interrupted while job-stopped");
  // (Without the exit event: a SIGKILL'd tracee's exit stop is not emulated, limitations.md.)
  request("SETOPTIONS", ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL));
  request("KILL", ptrace(PTRACE_KILL, pid, 0, 0));
  stop_of(pid, "killed");
}

// The exit event, and a SEIZE with EXITKILL whose tracer exits.
static void exit_event_and_exit_kill(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    usleep(10 * 1000);
    _exit(3);
  }
  request("SEIZE", ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXIT));
  stop_of(pid, "exiting");
  unsigned long message = 0;
  ptrace(PTRACE_GETEVENTMSG, pid, 0, &message);
  printf("  GETEVENTMSG: %#lx\n", message);
  request("CONT", ptrace(PTRACE_CONT, pid, 0, 0));
  stop_of(pid, "exit");

  int gone[2];
  if (pipe(gone) != 0) exit(1);
  fflush(stdout);
  pid_t tracer = fork();
  if (tracer == 0) {
    pid_t victim = fork();
    if (victim == 0) {
      close(gone[0]);
      for (;;) pause();
    }
    close(gone[1]);
    request("SEIZE with EXITKILL", ptrace(PTRACE_SEIZE, victim, 0, PTRACE_O_EXITKILL));
    interrupt(victim, "tracer's tracee");
    request("CONT", ptrace(PTRACE_CONT, victim, 0, 0));
    printf("tracer: exits\n");
    fflush(stdout);
    _exit(0);
  }
  close(gone[1]);
  waitpid(tracer, NULL, 0);
  char byte;
  printf("tracee gone when its tracer exited: %s\n", read(gone[0], &byte, 1) == 0 ? "yes" : "no");
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);
  seized_child(argc > 1 && strcmp(argv[1], "hold") == 0);
  exit_event_and_exit_kill();
  return 0;
}
