// A msgrcv and a semop asleep on SysV objects that another process removes: the kernel wakes
// each with EIDRM (a call made after the removal would fail with EINVAL instead). The msgrcv
// waits for a type that is not queued while another is: it sleeps in the kernel.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct message {
  long type;
  char text[8];
};

static const char* errno_name(int error) {
  switch (error) {
    case 0: return "no error";
    case EIDRM: return "EIDRM";
    case EINVAL: return "EINVAL";
    case EINTR: return "EINTR";
    default: return strerror(error);
  }
}

static void pause_briefly(void) {
  const struct timespec brief = {0, 50 * 1000 * 1000};
  nanosleep(&brief, NULL);
}

static int wait_child(pid_t child) {
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  struct message hello = {1, "hello"};
  struct message other = {3, "other"};
  msgsnd(queue, &hello, sizeof hello.text, 0);
  msgsnd(queue, &other, sizeof other.text, 0);
  pid_t child = fork();
  if (child == 0) {
    struct message got;
    ssize_t n = msgrcv(queue, &got, sizeof got.text, 1, 0);
    printf("receiver: first msgrcv returned %zd (%s)\n", n, n > 0 ? got.text : errno_name(errno));
    errno = 0;
    n = msgrcv(queue, &got, sizeof got.text, 2, 0);  // only type 3 is queued
    printf("receiver: second msgrcv returned %zd (%s)\n", n, errno_name(errno));
    _exit(0);
  }
  pause_briefly();
  msgctl(queue, IPC_RMID, NULL);
  printf("receiver exited %d\n", wait_child(child));

  int semaphore = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
  child = fork();
  if (child == 0) {
    struct sembuf take = {0, -1, 0};
    int result = semop(semaphore, &take, 1);
    printf("waiter: semop returned %d (%s)\n", result, errno_name(result == 0 ? 0 : errno));
    _exit(0);
  }
  pause_briefly();
  semctl(semaphore, 0, IPC_RMID);
  printf("waiter exited %d\n", wait_child(child));

  // A queue removed before the call: EINVAL.
  errno = 0;
  struct message got;
  ssize_t n = msgrcv(queue, &got, sizeof got.text, 0, 0);
  printf("msgrcv on the removed queue returned %zd (%s)\n", n, errno_name(errno));
  return 0;
}
