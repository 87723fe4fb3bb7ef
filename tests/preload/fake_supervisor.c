/* A miniature supervisor for testing the shim's active path without chess-trace.
 *
 *   fake_supervisor --preload SHIM [--refuse] [--expect FILE | --print] PROGRAM [ARGS...]
 *
 * It runs PROGRAM with the shim preloaded under a seccomp filter that hands the hypercall
 * numbers (and nothing else) to this process as user notifications. As chess-trace does, it
 * tells the shim it is there through the auxiliary vector (seccomp/hypercall_abi.h): it traces
 * PROGRAM just long enough to add the control word at its exec, then lets it go. With --refuse
 * the word carries another ABI version, which the shim must not speak. With --trap the word
 * tells the shim to announce by trap (int3 and its marker), as under a seccomp filter of the
 * program's own: it then keeps tracing every task of PROGRAM and answers the traps instead, and
 * the transcript must be the same. It answers every hypercall with 0. At each sync op it reads the calling thread's registered struct
 * chess_thread_state out of the program's memory. The result is a transcript, one line per
 * hypercall, grouped by thread (the order within a thread is the program's; the interleaving
 * of threads is not deterministic, so it is not shown). Addresses are printed as the names
 * PROGRAM gives them on its standard output in lines "@ NAME ADDRESS".
 *
 * It fails when PROGRAM does not exit 0, when a thread announces an op before registering its
 * state, or when an op, a flag or a held entry is not one the ABI defines; with --expect, also
 * when the transcript differs from FILE. --print prints the transcript (it is printed anyway
 * when it differs). Exits 77 (a skip for CTest) when the kernel does not offer seccomp user
 * notification. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seccomp/hypercall_abi.h"

enum { kSkip = 77, kMaxThreads = 64, kMaxNames = 256, kMaxLine = 1024 };

/* ---- names the program gives its objects ---- */

static struct {
  uint64_t address;
  char name[64];
} names[kMaxNames];
static int name_count;

static void read_names(const char *output) {
  const char *line = output;
  while (*line != '\0') {
    const char *end = strchr(line, '\n');
    size_t length = end ? (size_t)(end - line) : strlen(line);
    char name[64];
    unsigned long long address;
    if (length > 2 && line[0] == '@' && line[1] == ' ' && name_count < kMaxNames &&
        sscanf(line, "@ %63s %llx", name, &address) == 2) {
      names[name_count].address = address;
      snprintf(names[name_count].name, sizeof names[name_count].name, "%s", name);
      ++name_count;
    } else {
      fwrite(line, 1, length, stderr); /* the program's own output, for the log */
      fputc('\n', stderr);
    }
    if (end == NULL) break;
    line = end + 1;
  }
}

static const char *name_of(uint64_t address) {
  static char text[4][32];
  static int next;
  for (int i = 0; i < name_count; ++i)
    if (names[i].address == address) return names[i].name;
  char *buffer = text[next++ % 4];
  snprintf(buffer, sizeof text[0], "?%llx", (unsigned long long)address);
  return buffer;
}

/* ---- what happened, per thread ---- */

enum event_kind { kThreadState, kSyncOp, kOther };
struct event {
  enum event_kind kind;
  uint64_t args[2];
  int registered;                   /* sync op: the thread had registered before */
  int state_read;                   /* sync op: its state could be read */
  struct chess_thread_state state;  /* sync op: the state at the time; thread state: as read */
};
struct thread {
  pid_t tid;
  uint64_t state_address; /* 0 until it registers */
  struct event *events;
  size_t count, capacity;
};
static struct thread threads[kMaxThreads];
static int thread_count;

static struct thread *thread_for(pid_t tid) {
  for (int i = 0; i < thread_count; ++i)
    if (threads[i].tid == tid) return &threads[i];
  if (thread_count == kMaxThreads) {
    fprintf(stderr, "fake_supervisor: more than %d threads\n", kMaxThreads);
    exit(1);
  }
  threads[thread_count].tid = tid;
  return &threads[thread_count++];
}

static struct event *add_event(struct thread *thread) {
  if (thread->count == thread->capacity) {
    thread->capacity = thread->capacity ? 2 * thread->capacity : 64;
    thread->events = realloc(thread->events, thread->capacity * sizeof *thread->events);
    if (thread->events == NULL) abort();
  }
  struct event *event = &thread->events[thread->count++];
  memset(event, 0, sizeof *event);
  return event;
}

static int read_state(pid_t tid, uint64_t address, struct chess_thread_state *state) {
  struct iovec local = {state, sizeof *state};
  struct iovec remote = {(void *)(uintptr_t)address, sizeof *state};
  return process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)sizeof *state;
}

/* ---- the transcript ---- */

static const char *op_name(uint32_t op) {
  switch (op & CHESS_OP_KIND_MASK) {
    case CHESS_OP_MUTEX_LOCK: return "mutex_lock";
    case CHESS_OP_MUTEX_TRYLOCK: return "mutex_trylock";
    case CHESS_OP_MUTEX_TIMEDLOCK: return "mutex_timedlock";
    case CHESS_OP_MUTEX_UNLOCK: return "mutex_unlock";
    case CHESS_OP_RWLOCK_RDLOCK: return "rwlock_rdlock";
    case CHESS_OP_RWLOCK_WRLOCK: return "rwlock_wrlock";
    case CHESS_OP_RWLOCK_UNLOCK: return "rwlock_unlock";
    case CHESS_OP_COND_WAIT: return "cond_wait";
    case CHESS_OP_COND_SIGNAL: return "cond_signal";
    case CHESS_OP_COND_BROADCAST: return "cond_broadcast";
    case CHESS_OP_BARRIER_WAIT: return "barrier_wait";
    case CHESS_OP_SEM_WAIT: return "sem_wait";
    case CHESS_OP_SEM_POST: return "sem_post";
    case CHESS_OP_SPIN_LOCK: return "spin_lock";
    case CHESS_OP_SPIN_UNLOCK: return "spin_unlock";
    case CHESS_OP_ONCE: return "once";
    default: return "UNKNOWN-OP";
  }
}

static const char *held_op_name(uint32_t op) {
  switch (op) {
    case CHESS_OP_MUTEX_LOCK: return "mutex";
    case CHESS_OP_RWLOCK_RDLOCK: return "read";
    case CHESS_OP_RWLOCK_WRLOCK: return "write";
    case CHESS_OP_SPIN_LOCK: return "spin";
    case 0: return "unknown";
    default: return "BAD-HELD-OP";
  }
}

static void append(char *line, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void append(char *line, const char *format, ...) {
  size_t used = strlen(line);
  va_list args;
  va_start(args, format);
  vsnprintf(line + used, kMaxLine - used, format, args);
  va_end(args);
}

static void describe(const struct event *event, char *line) {
  line[0] = '\0';
  switch (event->kind) {
    case kThreadState:
      append(line, "thread state registered: abi_version %u, %u held", event->state.abi_version,
             event->state.held_count);
      return;
    case kOther:
      append(line, "UNEXPECTED hypercall %llu", (unsigned long long)event->args[0]);
      return;
    case kSyncOp:
      break;
  }
  uint32_t op = (uint32_t)event->args[0];
  append(line, "%s%s%s %s", op_name(op), (op & CHESS_OP_FLAG_TRY) ? "+try" : "",
         (op & CHESS_OP_FLAG_TIMED) ? "+timed" : "", name_of(event->args[1]));
  if (op & ~(uint32_t)(CHESS_OP_KIND_MASK | CHESS_OP_FLAG_TRY | CHESS_OP_FLAG_TIMED)) append(line, " BAD-FLAGS");
  if (!event->registered) {
    append(line, " BEFORE-THREAD-STATE");
    return;
  }
  if (!event->state_read) {
    append(line, " UNREADABLE-STATE");
    return;
  }
  const struct chess_thread_state *state = &event->state;
  if (state->abi_version != CHESS_HC_VERSION) append(line, " BAD-ABI-VERSION %u", state->abi_version);
  /* Where the operation and each held lock were called from: addresses, so only their presence
   * is in the transcript. */
  if (state->announcing_site == 0) append(line, " NO-SITE");
  append(line, " | held %u:", state->held_count);
  for (uint32_t i = 0; i < state->held_count && i < CHESS_MAX_HELD; ++i) {
    append(line, " %s(%s)", state->held[i].object ? name_of(state->held[i].object) : "-",
           held_op_name(state->held[i].op));
    if (state->held[i].object && state->held[i].site == 0) append(line, "NO-SITE");
  }
}

static char *transcript(void) {
  size_t capacity = 1 << 16, used = 0;
  char *text = malloc(capacity);
  char line[kMaxLine];
  text[0] = '\0';
  for (int t = 0; t < thread_count; ++t) {
    for (size_t e = 0; e < threads[t].count; ++e) {
      describe(&threads[t].events[e], line);
      size_t needed = used + strlen(line) + 16;
      if (needed > capacity) {
        capacity = 2 * needed;
        text = realloc(text, capacity);
      }
      used += (size_t)sprintf(text + used, "T%d %s\n", t, line);
    }
  }
  return text;
}

/* ---- running the program ---- */

static int install_filter(void) {
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 4),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, CHESS_HYPERCALL_BASE, 0, 2),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, CHESS_HYPERCALL_BASE + CHESS_HYPERCALL_COUNT, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof code / sizeof code[0], code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
}

static void send_fd(int socket, int fd) {
  char byte = fd >= 0 ? 'y' : 'n';
  struct iovec data = {&byte, 1};
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1};
  if (fd >= 0) {
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &fd, sizeof fd);
  }
  if (sendmsg(socket, &message, 0) != 1) _exit(126);
}

static int receive_fd(int socket) {
  char byte = 0;
  struct iovec data = {&byte, 1};
  union {
    char buffer[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control.buffer,
                           .msg_controllen = sizeof control.buffer};
  if (recvmsg(socket, &message, 0) != 1 || byte != 'y') return -1;
  struct cmsghdr *header = CMSG_FIRSTHDR(&message);
  if (header == NULL || header->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(header), sizeof fd);
  return fd;
}

/* Records hypercall `number` of thread `tid` and returns its answer. */
static long record_hypercall(pid_t tid, long number, uint64_t first, uint64_t second) {
  struct thread *thread = thread_for(tid);
  struct event *event = add_event(thread);
  switch (number) {
    case CHESS_HC_THREAD_STATE:
      event->kind = kThreadState;
      thread->state_address = first;
      if (!read_state(tid, thread->state_address, &event->state)) event->state.abi_version = 0xdead;
      return 0;
    case CHESS_HC_SYNC_OP:
      event->kind = kSyncOp;
      event->args[0] = first;
      event->args[1] = second;
      event->registered = thread->state_address != 0;
      if (event->registered) event->state_read = read_state(tid, thread->state_address, &event->state);
      return 0;
    default:
      event->kind = kOther;
      event->args[0] = (uint64_t)number;
      return -ENOSYS;
  }
}

/* A hypercall made as a system call, handed over by the filter. */
static void answer(int listener, struct seccomp_notif *request, struct seccomp_notif_resp *response) {
  pid_t tid = (pid_t)request->pid;
  long result = record_hypercall(tid, request->data.nr - CHESS_HYPERCALL_BASE, request->data.args[0],
                                 request->data.args[1]);
  response->id = request->id;
  response->val = 0;
  response->error = result < 0 ? (int)result : 0;
  response->flags = 0;
  /* ENOENT: the thread was interrupted by a signal and will make the call again. */
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, response) != 0 && errno == ENOENT) --thread_for(tid)->count;
}

/* ---- the control word ---- */

static int remote(pid_t pid, uint64_t address, void *buffer, size_t size, int write) {
  struct iovec local = {buffer, size};
  struct iovec there = {(void *)(uintptr_t)address, size};
  ssize_t done = write ? process_vm_writev(pid, &local, 1, &there, 1, 0) : process_vm_readv(pid, &local, 1, &there, 1, 0);
  return done == (ssize_t)size;
}

/* A SIGTRAP of a traced thread that is the shim's hypercall trap (seccomp/hypercall_abi.h):
 * recorded, answered in rax, and the thread moved past the marker. 0 for any other SIGTRAP. */
static int answer_trap(pid_t tid) {
  struct user_regs_struct regs;
  uint64_t signature = 0;
  if (ptrace(PTRACE_GETREGS, tid, NULL, &regs) != 0 || !remote(tid, regs.rip - 1, &signature, 8, 0) ||
      signature != CHESS_TRAP_SIGNATURE)
    return 0;
  regs.rax = (uint64_t)record_hypercall(tid, (long)regs.rax - CHESS_HYPERCALL_BASE, regs.rdi, regs.rsi);
  regs.rip += CHESS_TRAP_MARKER_LENGTH;
  return ptrace(PTRACE_SETREGS, tid, NULL, &regs) == 0;
}

/* With --trap: every task of the program is traced (threads, forks), and stops only for the
 * shim's traps, which are answered; the other stops are let go as they came. Returns 1 once
 * `child` itself is gone (its status in `*status`). */
static int serve_traps(pid_t child, int *status) {
  static pid_t known[4096];
  static int known_count;
  int child_gone = 0, stop;
  pid_t tid;
  while ((tid = waitpid(-1, &stop, __WALL | WNOHANG)) > 0) {
    if (WIFEXITED(stop) || WIFSIGNALED(stop)) {
      if (tid == child) {
        *status = stop;
        child_gone = 1;
      }
      continue;
    }
    int signal = WSTOPSIG(stop), seen = 0;
    for (int i = 0; i < known_count && !seen; ++i) seen = known[i] == tid;
    if (!seen && known_count < 4096) known[known_count++] = tid;
    if ((stop >> 16) != 0 || (signal == SIGTRAP && answer_trap(tid)) || (!seen && signal == SIGSTOP))
      signal = 0; /* an event, a trap answered, a new task's first stop */
    ptrace(PTRACE_CONT, tid, NULL, (void *)(long)signal);
  }
  return child_gone;
}

/* At the exec stop of `child` (its rsp on argc): adds the two entries of the control word
 * before AT_NULL, moving argc, argv, envp and the vector down, as chess-trace does. */
static int add_control_word(pid_t child, uint64_t word) {
  struct user_regs_struct regs;
  if (ptrace(PTRACE_GETREGS, child, NULL, &regs) != 0) return 0;
  uint64_t argc = 0, pointer = 1, address = regs.rsp;
  if (!remote(child, address, &argc, 8, 0)) return 0;
  address += 8 + (argc + 1) * 8;
  while (pointer != 0) { /* the environment */
    if (!remote(child, address, &pointer, 8, 0)) return 0;
    address += 8;
  }
  Elf64_auxv_t entry = {1, {0}};
  for (; entry.a_type != AT_NULL; address += sizeof entry) {
    if (!remote(child, address, &entry, sizeof entry, 0)) return 0;
  }
  const uint64_t end = address - sizeof entry, added = 2 * sizeof entry, size = end - regs.rsp;
  char *block = malloc(size);
  int ok = block != NULL && remote(child, regs.rsp, block, size, 0) && remote(child, regs.rsp - added, block, size, 1);
  free(block);
  const uint64_t control = end - added + sizeof entry + 8;
  uint64_t entries[4] = {CHESS_AT_CONTROL_ADDRESS, control, CHESS_AT_CONTROL, word};
  ok = ok && remote(child, end - added, entries, sizeof entries, 1);
  regs.rsp -= added;
  return ok && ptrace(PTRACE_SETREGS, child, NULL, &regs) == 0;
}

static char *slurp(const char *path) {
  FILE *file = fopen(path, "r");
  if (file == NULL) return NULL;
  size_t capacity = 1 << 16, used = 0;
  char *text = malloc(capacity);
  size_t n;
  while ((n = fread(text + used, 1, capacity - used - 1, file)) > 0) {
    used += n;
    if (capacity - used < 2) text = realloc(text, capacity *= 2);
  }
  text[used] = '\0';
  fclose(file);
  return text;
}

int main(int argc, char **argv) {
  const char *preload = NULL, *expect = NULL;
  int refuse = 0, print = 0, trap = 0, arg = 1;
  for (; arg < argc && argv[arg][0] == '-'; ++arg) {
    if (strcmp(argv[arg], "--preload") == 0 && arg + 1 < argc)
      preload = argv[++arg];
    else if (strcmp(argv[arg], "--expect") == 0 && arg + 1 < argc)
      expect = argv[++arg];
    else if (strcmp(argv[arg], "--refuse") == 0)
      refuse = 1;
    else if (strcmp(argv[arg], "--print") == 0)
      print = 1;
    else if (strcmp(argv[arg], "--trap") == 0)
      trap = 1;
    else
      break;
  }
  if (preload == NULL || arg >= argc) {
    fprintf(stderr, "usage: %s --preload SHIM [--refuse] [--trap] [--expect FILE | --print] PROGRAM [ARGS...]\n",
            argv[0]);
    return 2;
  }
  alarm(60);

  int sockets[2], output[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0 || pipe2(output, O_CLOEXEC) != 0) {
    perror("fake_supervisor");
    return 1;
  }
  pid_t child = fork();
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int listener = install_filter();
    send_fd(sockets[1], listener);
    if (listener < 0) _exit(kSkip);
    close(listener);
    dup2(output[1], STDOUT_FILENO);
    setenv("LD_PRELOAD", preload, 1);
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0) _exit(126); /* stopped at the exec */
    execvp(argv[arg], argv + arg);
    perror(argv[arg]);
    _exit(127);
  }
  close(sockets[1]);
  close(output[1]);
  int listener = receive_fd(sockets[0]);
  if (listener < 0) {
    waitpid(child, NULL, 0);
    fprintf(stderr, "fake_supervisor: no seccomp user notification here (%s); skipping\n", strerror(errno));
    return kSkip;
  }
  /* The exec's SIGTRAP: the new image, before its first instruction. */
  int stop = 0;
  if (waitpid(child, &stop, 0) != child || !WIFSTOPPED(stop) || WSTOPSIG(stop) != SIGTRAP) {
    fprintf(stderr, "fake_supervisor: %s did not stop at its exec (status 0x%x)\n", argv[arg], stop);
    return 1;
  }
  const uint64_t word = (refuse ? CHESS_HC_VERSION + 1 : CHESS_HC_VERSION) | (trap ? CHESS_CONTROL_TRAP : 0);
  if (!add_control_word(child, word)) {
    fprintf(stderr, "fake_supervisor: could not add the control word to %s's auxiliary vector\n", argv[arg]);
    return 1;
  }
  if (trap) {
    const long options = PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |
                         PTRACE_O_EXITKILL;
    if (ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)options) != 0 || ptrace(PTRACE_CONT, child, NULL, NULL) != 0) {
      perror("fake_supervisor: ptrace");
      return 1;
    }
  } else {
    ptrace(PTRACE_DETACH, child, NULL, NULL);
  }
  int status = 0, child_gone = 0;
  /* Traced tasks stop without a descriptor saying so, but each stop sends this process a
   * SIGCHLD: blocked here (not in the program, forked already) and read from a signalfd. */
  int stops = -1;
  if (trap) {
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    stops = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
  }

  struct seccomp_notif_sizes sizes;
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    perror("SECCOMP_GET_NOTIF_SIZES");
    return 1;
  }
  struct seccomp_notif *request =
      malloc(sizes.seccomp_notif > sizeof *request ? sizes.seccomp_notif : sizeof *request);
  struct seccomp_notif_resp *response =
      malloc(sizes.seccomp_notif_resp > sizeof *response ? sizes.seccomp_notif_resp : sizeof *response);
  size_t output_capacity = 1 << 16, output_used = 0;
  char *program_output = malloc(output_capacity);

  /* Until every task under the filter is gone and the program's output is closed. */
  int listening = 1, reading = 1;
  while (listening || reading || (trap && !child_gone)) {
    struct pollfd fds[3] = {{listening ? listener : -1, POLLIN, 0}, {reading ? output[0] : -1, POLLIN, 0},
                            {stops, POLLIN, 0}};
    if (trap) {
      struct signalfd_siginfo info;
      while (read(stops, &info, sizeof info) > 0) continue;
      if (serve_traps(child, &status)) child_gone = 1;
    }
    if (poll(fds, 3, trap ? 100 : -1) < 0) {
      if (errno == EINTR) continue;
      perror("poll");
      return 1;
    }
    if (fds[0].revents & POLLIN) {
      memset(request, 0, sizes.seccomp_notif);
      if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, request) == 0) answer(listener, request, response);
    } else if (fds[0].revents & (POLLHUP | POLLERR)) {
      listening = 0;
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      if (output_capacity - output_used < 4096) program_output = realloc(program_output, output_capacity *= 2);
      ssize_t n = read(output[0], program_output + output_used, output_capacity - output_used - 1);
      if (n <= 0)
        reading = 0;
      else
        output_used += (size_t)n;
    }
  }
  program_output[output_used] = '\0';
  if (!child_gone) waitpid(child, &status, 0);
  read_names(program_output);
  char *text = transcript();
  if (print) fputs(text, stdout);

  int failed = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "fake_supervisor: %s did not exit 0 (status 0x%x)\n", argv[arg], status);
    failed = 1;
  }
  static const char *const markers[] = {"BEFORE-THREAD-STATE", "UNREADABLE-STATE", "BAD-", "UNEXPECTED",
                                        "UNKNOWN-OP"};
  for (size_t i = 0; i < sizeof markers / sizeof markers[0]; ++i) {
    const char *found = strstr(text, markers[i]);
    if (found != NULL) {
      const char *start = found;
      while (start > text && start[-1] != '\n') --start;
      const char *end = strchr(found, '\n');
      fprintf(stderr, "fake_supervisor: %.*s\n", (int)(end ? end - start : (long)strlen(start)), start);
      failed = 1;
    }
  }
  size_t events = 0;
  for (int t = 0; t < thread_count; ++t) events += threads[t].count;
  if (expect != NULL) {
    char *expected = slurp(expect);
    if (expected == NULL) {
      perror(expect);
      return 1;
    }
    if (strcmp(expected, text) != 0) {
      const char *a = expected, *b = text;
      int line = 1;
      while (*a && *a == *b) {
        if (*a == '\n') ++line;
        ++a, ++b;
      }
      fprintf(stderr, "fake_supervisor: the transcript differs from %s at line %d; it is:\n", expect, line);
      if (!print) fputs(text, stdout);
      failed = 1;
    }
  }
  if (!failed)
    printf("fake_supervisor: %zu hypercalls from %d threads%s\n", events, thread_count,
           expect ? ", transcript as expected" : "");
  return failed;
}
