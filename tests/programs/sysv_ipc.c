/* SysV IPC between processes:
 * - a semaphore as a mutex: four forked processes each add 1 to a counter in shared memory 300
 *   times inside semop(-1) ... semop(+1), with a sched_yield inside the critical section;
 * - a message queue whose msg_qbytes is lowered with IPC_SET to four 16-byte messages, so two
 *   producer processes (400 messages each, typed by producer) block in msgsnd while the parent
 *   consumes with msgrcv; each producer's messages must arrive in order, then a stop message;
 * - a semtimedop(-1) on a semaphore nobody posts times out with EAGAIN.
 * The IPC objects are removed with IPC_RMID on every path out of the parent. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kLockers = 4, kIncrements = 300, kProducers = 2, kMessages = 400, kPayload = 16 };
enum { kMutex = 0, kNeverPosted = 1 };

union semun {
  int val;
  struct semid_ds* buf;
  unsigned short* array;
};

struct message {
  long mtype; /* 1 + producer, or kStopType */
  char text[kPayload];
};
enum { kStopType = 100 };

static int semaphores = -1, queue = -1;

static void remove_ipc_objects(void) {
  if (semaphores >= 0) semctl(semaphores, 0, IPC_RMID);
  if (queue >= 0) msgctl(queue, IPC_RMID, NULL);
  semaphores = queue = -1;
}

static int sem_add(int index, short delta) {
  struct sembuf op = {.sem_num = (unsigned short)index, .sem_op = delta, .sem_flg = 0};
  int result;
  while ((result = semop(semaphores, &op, 1)) != 0 && errno == EINTR) {
  }
  return result;
}

static int locker(volatile long* counter) {
  for (int i = 0; i < kIncrements; ++i) {
    if (sem_add(kMutex, -1) != 0) return 10;
    const long value = *counter;
    sched_yield(); /* another process would get in here if the semaphore did not exclude */
    *counter = value + 1;
    if (sem_add(kMutex, 1) != 0) return 11;
  }
  return 0;
}

static int producer(int id) {
  for (int i = 0; i < kMessages; ++i) {
    struct message m = {.mtype = 1 + id};
    snprintf(m.text, sizeof(m.text), "%d:%06d", id, i);
    if (msgsnd(queue, &m, sizeof(m.text), 0) != 0) return 20;
  }
  return 0;
}

static int wait_for_all(const pid_t* children, int count) {
  int failed = 0;
  for (int i = 0; i < count; ++i) {
    int status;
    if (waitpid(children[i], &status, 0) != children[i]) return -1;
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  return failed;
}

static int run(void) {
  semaphores = semget(IPC_PRIVATE, 2, IPC_CREAT | 0600);
  queue = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
  if (semaphores < 0 || queue < 0) return 2;
  unsigned short initial[2] = {[kMutex] = 1, [kNeverPosted] = 0};
  if (semctl(semaphores, 0, SETALL, (union semun){.array = initial}) != 0) return 2;
  struct msqid_ds attributes;
  if (msgctl(queue, IPC_STAT, &attributes) != 0) return 2;
  attributes.msg_qbytes = 4 * kPayload; /* four messages fill it: the producers must block */
  if (msgctl(queue, IPC_SET, &attributes) != 0) return 2;

  /* The semaphore as a mutex. */
  volatile long* counter = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (counter == MAP_FAILED) return 2;
  *counter = 0;
  fflush(stdout);
  pid_t lockers[kLockers];
  for (int i = 0; i < kLockers; ++i) {
    lockers[i] = fork();
    if (lockers[i] < 0) return 2;
    if (lockers[i] == 0) _exit(locker(counter));
  }
  const int failed_lockers = wait_for_all(lockers, kLockers);
  printf("semaphore mutex: counter %ld (expected %d), %d processes failed\n", *counter,
         kLockers * kIncrements, failed_lockers);
  int ok = *counter == kLockers * kIncrements && failed_lockers == 0;

  /* Producers and a consumer over a queue that holds four messages. */
  pid_t producers[kProducers];
  for (int i = 0; i < kProducers; ++i) {
    producers[i] = fork();
    if (producers[i] < 0) return 2;
    if (producers[i] == 0) _exit(producer(i));
  }
  int received[kProducers] = {0}, out_of_order = 0;
  for (int i = 0; i < kProducers * kMessages; ++i) {
    struct message m;
    const ssize_t n = msgrcv(queue, &m, sizeof(m.text), 0, 0);
    if (n != sizeof(m.text)) {
      if (n < 0 && errno == EINTR) {
        --i;
        continue;
      }
      return 3;
    }
    const int id = (int)m.mtype - 1;
    if (id < 0 || id >= kProducers) return 3;
    char expected[kPayload];
    snprintf(expected, sizeof(expected), "%d:%06d", id, received[id]);
    out_of_order += strcmp(expected, m.text) != 0;
    ++received[id];
  }
  const int failed_producers = wait_for_all(producers, kProducers);
  /* A stop message, then a receive of only that type: what is left in the queue is just it. */
  struct message stop = {.mtype = kStopType, .text = "stop"};
  if (msgsnd(queue, &stop, sizeof(stop.text), 0) != 0) return 3;
  struct message m;
  const int stop_seen = msgrcv(queue, &m, sizeof(m.text), kStopType, IPC_NOWAIT) == sizeof(m.text) &&
                        strcmp(m.text, "stop") == 0;
  printf("message queue (msg_qbytes %d): received %d + %d messages, %d out of order, stop %s, "
         "%d producers failed\n",
         4 * kPayload, received[0], received[1], out_of_order, stop_seen ? "seen" : "missing", failed_producers);
  ok = ok && received[0] == kMessages && received[1] == kMessages && out_of_order == 0 && stop_seen &&
       failed_producers == 0;

  /* semtimedop on a semaphore nobody posts: EAGAIN after the timeout. */
  struct sembuf op = {.sem_num = kNeverPosted, .sem_op = -1, .sem_flg = 0};
  const struct timespec timeout = {.tv_sec = 0, .tv_nsec = 50 * 1000 * 1000};
  const int result = semtimedop(semaphores, &op, 1, &timeout);
  const int timed_out = result == -1 && errno == EAGAIN;
  printf("semtimedop on an unposted semaphore: %s\n", timed_out ? "timed out (EAGAIN)" : "did not time out");
  return ok && timed_out ? 0 : 1;
}

int main(void) {
  const int result = run();
  remove_ipc_objects();
  return result;
}
