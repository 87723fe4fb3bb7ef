/* rwlock_cycle_fixed: rwlock_cycle_buggy.c with one lock order (the rwlock, then the mutex). */
#define CONSISTENT_ORDER 1
#include "rwlock_cycle_buggy.c"
