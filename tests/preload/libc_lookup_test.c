/* preload/libc_lookup.c, which the shim uses for calls made while dlsym is still running, must
 * find exactly what the dynamic linker finds in libc.so.6: the default version of each wrapped
 * function, and a named version where one is asked for (the condition variables have two).
 *
 *   libc_lookup_test EXPECTED_EXPORTS_FILE */
#include "preload/libc_lookup.h"
#include "test_support.h"

static void check_same(void *libc, const char *name, const char *version) {
  void *expected = version ? dlvsym(libc, name, version) : dlsym(libc, name);
  void *actual = chess_libc_lookup(name, version);
  if (expected == NULL || actual != expected) {
    fprintf(stderr, "%s@%s: found %p, the dynamic linker says %p\n", name, version ? version : "(default)",
            actual, expected);
    ++test_failures;
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s EXPECTED_EXPORTS_FILE\n", argv[0]);
    return 2;
  }
  void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  if (libc == NULL) {
    fprintf(stderr, "libc.so.6 is not loaded: %s\n", dlerror());
    return 1;
  }
  FILE *list = fopen(argv[1], "r");
  if (list == NULL) {
    perror(argv[1]);
    return 2;
  }
  char name[128];
  int names = 0;
  while (fscanf(list, "%127s", name) == 1) {
    ++names;
    check_same(libc, name, NULL);
  }
  fclose(list);
  CHECK(names > 30);
  /* The two condition-variable versions are different functions, and each is found. */
  check_same(libc, "pthread_cond_wait", "GLIBC_2.3.2");
  check_same(libc, "pthread_cond_wait", "GLIBC_2.2.5");
  check_same(libc, "pthread_cond_timedwait", "GLIBC_2.3.2");
  check_same(libc, "pthread_cond_signal", "GLIBC_2.3.2");
  check_same(libc, "pthread_cond_broadcast", "GLIBC_2.3.2");
  CHECK(chess_libc_lookup("pthread_cond_wait", "GLIBC_2.2.5") !=
        chess_libc_lookup("pthread_cond_wait", "GLIBC_2.3.2"));
  CHECK(chess_libc_lookup("pthread_cond_wait", NULL) == chess_libc_lookup("pthread_cond_wait", "GLIBC_2.3.2"));
  /* Other names, and what is not there. */
  check_same(libc, "malloc", NULL);
  check_same(libc, "sem_init", NULL);
  CHECK(chess_libc_lookup("chess_no_such_function", NULL) == NULL);
  CHECK(chess_libc_lookup("pthread_cond_wait", "GLIBC_9.99") == NULL);
  CHECK(chess_libc_lookup("errno", NULL) == NULL); /* TLS, not a function */
  if (test_finish("libc_lookup") != 0) return 1;
  printf("libc_lookup: %d wrapped functions and both condition-variable versions found as ld.so "
         "finds them\n", names);
  return 0;
}
