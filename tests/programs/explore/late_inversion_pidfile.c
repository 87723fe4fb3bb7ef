/* late_inversion_pidfile: late_inversion_buggy.c with main's thread holding a pidfile's flock all
 * along (taken before main, by a constructor). The flock is the process's, yet the workers' cycle
 * must still be predicted and confirmed: a lock only main's thread took does not stand between
 * the workers. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>

__attribute__((constructor)) static void hold_pidfile(void) {
  const int pidfile = open("/tmp/late_inversion.pid", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (pidfile < 0 || flock(pidfile, LOCK_EX) != 0) exit(2);
}

#include "late_inversion_buggy.c"
