/* One thread locks and unlocks an uncontended mutex N times: under chess-trace with the preload
 * shim (--sync-points auto) every call is an announcement, a scheduling point. With the argument
 * `filtered` it first installs a seccomp filter of its own that allows everything, which makes
 * the shim announce by trap (int3) instead of by system call. Prints "us_per_announcement N",
 * timed with CLOCK_MONOTONIC (run it with --real-time). */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const long pairs = argc > 1 ? atol(argv[1]) : 100000;
  if (argc > 2 && strcmp(argv[2], "filtered") == 0) {
    struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog program = {1, allow};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
      perror("seccomp");
      return 1;
    }
  }
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (long i = 0; i < pairs; ++i) {
    pthread_mutex_lock(&lock);
    pthread_mutex_unlock(&lock);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  const double us = (double)(end.tv_sec - start.tv_sec) * 1e6 + (double)(end.tv_nsec - start.tv_nsec) / 1e3;
  printf("us_per_announcement %.3f\n", us / (2.0 * (double)pairs));
  return 0;
}
