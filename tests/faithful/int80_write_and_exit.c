// A 64-bit program that makes syscalls through the i386 ABI (`int $0x80`): a write from a buffer
// below 4 GiB, getpid, a thread that ends with the i386 exit (joined by the main thread: only
// that thread ends), and a child that ends with the i386 exit_group and its status.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kI386Exit = 1, kI386Write = 4, kI386Getpid = 20, kI386ExitGroup = 252 };

static int32_t int80(uint32_t nr, uint32_t a, uint32_t b, uint32_t c) {
  int32_t result;
  __asm__ volatile("int $0x80" : "=a"(result) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  return result;
}

static void* exits_through_int80(void* unused) {
  (void)unused;
  const int32_t result = int80(kI386Exit, 0, 0, 0);
  printf("the i386 exit returned %d\n", result);  // natively never
  return NULL;
}

int main(void) {
  char* low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (low == MAP_FAILED) return 2;
  const char text[] = "written through int $0x80\n";
  memcpy(low, text, sizeof text - 1);
  fflush(stdout);
  const int32_t written = int80(kI386Write, STDOUT_FILENO, (uint32_t)(uintptr_t)low, sizeof text - 1);
  printf("i386 write returned %d\n", written);
  printf("i386 getpid %s getpid()\n", int80(kI386Getpid, 0, 0, 0) == getpid() ? "equals" : "DIFFERS from");
  fflush(stdout);

  pthread_t thread;
  pthread_create(&thread, NULL, exits_through_int80, NULL);
  pthread_join(thread, NULL);
  printf("a thread ended with the i386 exit and was joined; the process goes on\n");
  fflush(stdout);

  const pid_t child = fork();
  if (child == 0) _exit(int80(kI386ExitGroup, 7, 0, 0) == 0 ? 3 : 4);  // natively it does not return
  int status = 0;
  waitpid(child, &status, 0);
  printf("a child ended with the i386 exit_group: %s %d\n", WIFEXITED(status) ? "exit status" : "signal",
         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
  return 0;
}
