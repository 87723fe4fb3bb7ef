/* Shared by the preload shim's test programs: a CHECK that names the failing line and goes on
 * (so one run lists every broken case), and a guard that the run really had the shim loaded.
 * ld.so only warns when an LD_PRELOAD entry cannot be loaded, so without the guard a broken
 * path would make every "under the shim" test pass vacuously. */
#ifndef CHESS_TESTS_PRELOAD_TEST_SUPPORT_H
#define CHESS_TESTS_PRELOAD_TEST_SUPPORT_H

#ifndef _GNU_SOURCE
#error "define _GNU_SOURCE before any include: dladdr and Dl_info are GNU extensions"
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failures;

#define CHECK(condition)                                                          \
  do {                                                                            \
    if (!(condition)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #condition); \
      ++test_failures;                                                            \
    }                                                                             \
  } while (0)

/* CHECK(actual == expected) for ints, printing both. */
#define CHECK_EQ(actual, expected)                                                           \
  do {                                                                                       \
    long check_actual_ = (long)(actual), check_expected_ = (long)(expected);                 \
    if (check_actual_ != check_expected_) {                                                  \
      fprintf(stderr, "%s:%d: CHECK_EQ failed: %s is %ld, expected %s (%ld)\n", __FILE__, \
              __LINE__, #actual, check_actual_, #expected, check_expected_);               \
      ++test_failures;                                                                       \
    }                                                                                        \
  } while (0)

/* Which object defines what `symbol` names for the program, or "" when none does. */
static inline const char *test_defining_object(const char *symbol) {
  void *address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info;
  if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL) return "";
  return info.dli_fname;
}

static inline int test_shim_is_interposed(void) {
  return strstr(test_defining_object("pthread_mutex_lock"), "libchess_preload.so") != NULL;
}

/* CHESS_TEST_EXPECT_SHIM=1: the shim must be interposed; =0: it must not be. Unset: no check. */
static inline void test_check_expected_shim(void) {
  const char *expected = getenv("CHESS_TEST_EXPECT_SHIM");
  if (expected == NULL) return;
  int want = strcmp(expected, "1") == 0;
  if (test_shim_is_interposed() != want) {
    fprintf(stderr, "the shim is %s, but CHESS_TEST_EXPECT_SHIM=%s (pthread_mutex_lock is in %s)\n",
            want ? "not interposed" : "interposed", expected, test_defining_object("pthread_mutex_lock"));
    ++test_failures;
  }
}

static inline int test_finish(const char *name) {
  if (test_failures != 0) {
    fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
    return 1;
  }
  return 0;
}

#endif
