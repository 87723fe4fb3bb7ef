/* Writing to a pipe whose reader has gone: a reader process takes the first message and exits;
 * only then (the parent has reaped it and says "go") the writer process writes again. With
 * SIGPIPE at its default the writer dies by signal 13; with SIGPIPE ignored the write fails with
 * EPIPE; with SIGPIPE blocked it fails with EPIPE and the signal stays pending. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kDefault, kIgnored, kBlocked };
static const char* const kDispositions[] = {"default", "ignored", "blocked"};

static int reader(int in) {
  char message[6] = {0};
  size_t got = 0;
  while (got < 5) {
    const ssize_t n = read(in, message + got, 5 - got);
    if (n <= 0) return 1;
    got += (size_t)n;
  }
  return strcmp(message, "hello") == 0 ? 0 : 1;
}

/* Exit 0: the second write failed with EPIPE as the disposition predicts (and, blocked, left
 * SIGPIPE pending); 1: it did something else; 2: setup failed. Default: never returns. */
static int writer(int out, int go, int disposition) {
  if (disposition == kIgnored && signal(SIGPIPE, SIG_IGN) == SIG_ERR) return 2;
  if (disposition == kBlocked) {
    sigset_t pipe_only;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    if (sigprocmask(SIG_BLOCK, &pipe_only, NULL) != 0) return 2;
  }
  if (write(out, "hello", 5) != 5) return 2;
  char byte;
  if (read(go, &byte, 1) != 1) return 2; /* the reader is gone now */
  const ssize_t n = write(out, "more", 4);
  if (n != -1 || errno != EPIPE) return 1;
  if (disposition == kBlocked) {
    sigset_t pending;
    if (sigpending(&pending) != 0 || !sigismember(&pending, SIGPIPE)) return 1;
  }
  return 0;
}

static int one_case(int disposition) {
  int data[2], go[2];
  if (pipe(data) != 0 || pipe(go) != 0) return 1;
  fflush(stdout);
  const pid_t reader_pid = fork();
  if (reader_pid < 0) return 1;
  if (reader_pid == 0) {
    close(data[1]);
    close(go[0]);
    close(go[1]);
    _exit(reader(data[0]));
  }
  const pid_t writer_pid = fork();
  if (writer_pid < 0) return 1;
  if (writer_pid == 0) {
    close(data[0]);
    close(go[1]);
    _exit(writer(data[1], go[0], disposition));
  }
  close(data[0]);
  close(data[1]);
  close(go[0]);
  int reader_status, writer_status;
  if (waitpid(reader_pid, &reader_status, 0) != reader_pid) return 1;
  if (write(go[1], "g", 1) != 1) return 1;
  close(go[1]);
  if (waitpid(writer_pid, &writer_status, 0) != writer_pid) return 1;
  const int reader_ok = WIFEXITED(reader_status) && WEXITSTATUS(reader_status) == 0;
  printf("SIGPIPE %s: reader exited %d; writer ", kDispositions[disposition],
         WIFEXITED(reader_status) ? WEXITSTATUS(reader_status) : 128 + WTERMSIG(reader_status));
  if (WIFSIGNALED(writer_status)) {
    printf("killed by signal %d\n", WTERMSIG(writer_status));
    return reader_ok && disposition == kDefault && WTERMSIG(writer_status) == SIGPIPE ? 0 : 1;
  }
  const int code = WEXITSTATUS(writer_status);
  const char* how = code == 1 ? "the write did not fail as expected" : "setup failed";
  if (code == 0) how = disposition == kBlocked ? "write failed with EPIPE, SIGPIPE pending" : "write failed with EPIPE";
  printf("exited %d (%s)\n", code, how);
  return reader_ok && disposition != kDefault && code == 0 ? 0 : 1;
}

int main(void) {
  int failures = 0;
  for (int disposition = kDefault; disposition <= kBlocked; ++disposition) failures += one_case(disposition);
  printf("%d failures\n", failures);
  return failures == 0 ? 0 : 1;
}
