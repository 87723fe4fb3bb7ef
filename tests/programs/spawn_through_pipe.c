/* posix_spawn (a vfork underneath) of `wc -c` reading 1 MiB through a pipe — far more than a
 * pipe holds, so writer and reader must take turns — and its answer read back through another. */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

int main(void) {
  int to_child[2], from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) return 2;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
  posix_spawn_file_actions_addclose(&actions, to_child[1]);
  posix_spawn_file_actions_addclose(&actions, from_child[0]);
  char* argv[] = {"wc", "-c", NULL};
  pid_t child;
  if (posix_spawnp(&child, "wc", &actions, NULL, argv, environ) != 0) return 3;
  close(to_child[0]);
  close(from_child[1]);
  char block[4096];
  memset(block, 'x', sizeof(block));
  for (int i = 0; i < 256; ++i) {
    if (write(to_child[1], block, sizeof(block)) != (ssize_t)sizeof(block)) return 4;
  }
  close(to_child[1]);
  char answer[64] = {0};
  ssize_t n = read(from_child[0], answer, sizeof(answer) - 1);
  int status;
  waitpid(child, &status, 0);
  printf("wc counted %s", n > 0 ? answer : "nothing\n");
  return WEXITSTATUS(status);
}
