/* Wrappers called from a library constructor that runs before the shim's own constructor
 * (constructor_locks.c), then from main. */
#include "test_support.h"

int constructor_locks_checks(void);
int constructor_locks_failures(void);

int main(void) {
  test_check_expected_shim();
  CHECK(constructor_locks_checks() > 0);
  CHECK_EQ(constructor_locks_failures(), 0);
  if (test_finish("constructor") != 0) return 1;
  printf("constructor: %d checks in a constructor run before the shim's, all passed\n",
         constructor_locks_checks());
  return 0;
}
