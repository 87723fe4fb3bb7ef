/* late_inversion_pidfile: late_inversion_buggy.c with main holding a pidfile's flock all along
 * (HOLD_PIDFILE). The flock is the process's, yet the workers' cycle must still be predicted and
 * confirmed: a lock only main took does not stand between the workers. */
#define HOLD_PIDFILE 1
#include "late_inversion_buggy.c"
