/* Three children, each forking a grandchild that execs /bin/echo; every exit status is
 * collected in a fixed order. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  pid_t children[3];
  for (int i = 0; i < 3; ++i) {
    fflush(stdout);
    children[i] = fork();
    if (children[i] == 0) {
      pid_t grandchild = fork();
      if (grandchild == 0) {
        char label[32];
        snprintf(label, sizeof(label), "grandchild %d", i);
        execl("/bin/echo", "echo", label, (char*)NULL);
        _exit(127);
      }
      int status;
      waitpid(grandchild, &status, 0);
      _exit(10 + i + WEXITSTATUS(status));
    }
    int status;
    waitpid(children[i], &status, 0); /* one at a time: the output order is fixed */
    printf("child %d exited %d\n", i, WEXITSTATUS(status));
  }
  int status;
  printf("no child left: %s\n", wait(&status) == -1 ? "yes" : "no");
  return 0;
}
