/* flock_cycle_fixed: flock_cycle_buggy.c with one lock order (A, then B, in both processes). */
#define CONSISTENT_ORDER 1
#include "flock_cycle_buggy.c"
