/* A producer process and a consumer process over a POSIX message queue that holds two messages
 * (mq_maxmsg 2), so the producer blocks in mq_send and the consumer in mq_receive: 1000
 * numbered messages must arrive complete and in order, then an end message. Afterwards an
 * mq_timedreceive on the empty queue times out with ETIMEDOUT. The queue is unlinked on every
 * path out of the parent. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kMessages = 1000, kMessageSize = 32 };

static char name[64];

static int producer(mqd_t queue) {
  char message[kMessageSize];
  for (int i = 0; i < kMessages; ++i) {
    const int length = snprintf(message, sizeof(message), "message %06d", i);
    if (mq_send(queue, message, (size_t)length + 1, 0) != 0) return 10;
  }
  return mq_send(queue, "end", 4, 0) == 0 ? 0 : 11;
}

static int consumer(mqd_t queue) {
  char message[kMessageSize], expected[kMessageSize];
  long checksum = 0;
  int received = 0, out_of_order = 0;
  for (;;) {
    const ssize_t n = mq_receive(queue, message, sizeof(message), NULL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return 20;
    }
    if (strcmp(message, "end") == 0) break;
    snprintf(expected, sizeof(expected), "message %06d", received);
    out_of_order += strcmp(message, expected) != 0;
    checksum += strtol(message + 8, NULL, 10);
    ++received;
  }
  printf("consumer: %d messages, %d out of order, checksum %ld (expected %d), end seen\n", received,
         out_of_order, checksum, kMessages * (kMessages - 1) / 2);
  fflush(stdout);
  return received == kMessages && out_of_order == 0 && checksum == kMessages * (kMessages - 1) / 2 ? 0 : 21;
}

static int child_ok(pid_t pid) {
  int status;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int run(void) {
  struct mq_attr attributes = {.mq_flags = 0, .mq_maxmsg = 2, .mq_msgsize = kMessageSize, .mq_curmsgs = 0};
  const mqd_t queue = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attributes);
  if (queue == (mqd_t)-1) return 2;
  fflush(stdout);
  const pid_t consumer_pid = fork();
  if (consumer_pid < 0) return 2;
  if (consumer_pid == 0) _exit(consumer(queue));
  const pid_t producer_pid = fork();
  if (producer_pid < 0) return 2;
  if (producer_pid == 0) _exit(producer(queue));
  const int producer_succeeded = child_ok(producer_pid);
  if (!producer_succeeded) kill(consumer_pid, SIGKILL); /* it would wait for the end forever */
  const int consumer_succeeded = child_ok(consumer_pid);
  printf("producer %s, consumer %s\n", producer_succeeded ? "succeeded" : "failed",
         consumer_succeeded ? "succeeded" : "failed");

  struct timespec deadline;
  if (clock_gettime(CLOCK_REALTIME, &deadline) != 0) return 2;
  deadline.tv_nsec += 50 * 1000 * 1000;
  if (deadline.tv_nsec >= 1000 * 1000 * 1000) {
    deadline.tv_nsec -= 1000 * 1000 * 1000;
    ++deadline.tv_sec;
  }
  char message[kMessageSize];
  const ssize_t n = mq_timedreceive(queue, message, sizeof(message), NULL, &deadline);
  const int timed_out = n == -1 && errno == ETIMEDOUT;
  printf("mq_timedreceive on the empty queue: %s\n", timed_out ? "timed out (ETIMEDOUT)" : "did not time out");
  mq_close(queue);
  return producer_succeeded && consumer_succeeded && timed_out ? 0 : 1;
}

int main(void) {
  snprintf(name, sizeof(name), "/chess-trace-posix-mq-%ld", (long)getpid());
  const int result = run();
  mq_unlink(name);
  return result;
}
