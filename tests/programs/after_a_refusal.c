/* What a program does after chess-trace refuses a call it cannot serialize (io_uring_setup).
 *
 *   after_a_refusal falls-back   tries io_uring, falls back to plain reads when it fails, and
 *                                succeeds: `ok`, whatever refused it (natively io_uring may work)
 *   after_a_refusal gives-up     exits 1 when io_uring is unavailable: under chess-trace that is
 *                                `unsupported` (run and explore exit 125), never a bug
 *   after_a_refusal races        falls back, then two threads update a balance in two critical
 *                                sections each (atomicity_buggy's lost update): a real bug that
 *                                explore must still report, since the refusal was survived */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long balance = 100;

static long read_balance(void) {
  pthread_mutex_lock(&lock);
  long value = balance;
  pthread_mutex_unlock(&lock);
  return value;
}

static void write_balance(long value) {
  pthread_mutex_lock(&lock);
  balance = value;
  pthread_mutex_unlock(&lock);
}

static void* deposit(void* arg) {
  write_balance(read_balance() + 50);
  return arg;
}

static void* withdraw(void* arg) {
  write_balance(read_balance() - 30);
  return arg;
}

/* 1 when io_uring can be set up here, 0 when not (refused, or disabled by the kernel). */
static int io_uring_available(void) {
  char params[120];
  memset(params, 0, sizeof(params));
  long fd = syscall(SYS_io_uring_setup, 4, params);
  if (fd < 0) return 0;
  close((int)fd);
  return 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "falls-back";
  const int available = io_uring_available();
  if (strcmp(mode, "gives-up") == 0 && !available) {
    fprintf(stderr, "io_uring is not available (%s): giving up\n", strerror(errno));
    return 1;
  }
  if (strcmp(mode, "races") == 0) {
    pthread_t depositor, withdrawer;
    pthread_create(&depositor, NULL, deposit, NULL);
    pthread_create(&withdrawer, NULL, withdraw, NULL);
    pthread_join(depositor, NULL);
    pthread_join(withdrawer, NULL);
    assert(balance == 120);
  }
  printf("%s: done without io_uring where it was missing\n", mode);
  return 0;
}
