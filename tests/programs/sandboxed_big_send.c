/* sandboxed_big_send: a correct program whose seccomp filter kills it for a non-blocking send
 * (MSG_DONTWAIT), as a sandbox may restrict a call's flags. One thread sends 1 MiB through a
 * Unix stream socket in one blocking sendto while another receives it.
 *
 * Under chess-trace a send larger than the room in the socket is carried out in pieces that
 * must not block, and the natural way is to add MSG_DONTWAIT to each piece — a call this filter
 * would kill the program for. chess-trace must see that and make the pieces non-blocking
 * another way (the descriptor's O_NONBLOCK, which no filter sees). It prints what the receiver
 * got, which does not depend on the schedule. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { kBytes = 1 << 20 };

static int ends[2];

static void* receive(void* arg) {
  static char buffer[65536];
  long total = 0, sum = 0;
  while (total < kBytes) {
    ssize_t n = recv(ends[1], buffer, sizeof buffer, 0);
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) sum += (unsigned char)buffer[i];
    total += n;
  }
  printf("received %ld bytes, sum %ld\n", total, sum);
  return arg;
}

int main(void) {
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) return 1;
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sendto, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_recvfrom, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[3])),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MSG_DONTWAIT, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = {sizeof code / sizeof code[0], code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) {
    return 2;
  }
  char* data = malloc(kBytes);
  for (int i = 0; i < kBytes; ++i) data[i] = (char)(i * 7);
  pthread_t receiver;
  pthread_create(&receiver, NULL, receive, NULL);
  ssize_t sent = sendto(ends[0], data, kBytes, 0, NULL, 0);
  pthread_join(receiver, NULL);
  printf("sent %zd bytes in one call\n", sent);
  return sent == kBytes ? 0 : 1;
}
