/* Prints everything a program can read that differs between two native runs: every clock,
 * gettimeofday, time, rdtsc and rdtscp, random bytes (getrandom, /dev/urandom, AT_RANDOM, the
 * stack canary), rand() seeded from time(), the addresses of the stack, the heap, an mmap'd
 * block, main and a libc function, the CPU, and the order in which four racing threads take a
 * mutex. Under `chess-trace run` the output repeats byte for byte with the same --seed.
 *
 * Line prefixes tell the integration check what each line may depend on:
 *   "random: "  the seed (getrandom, /dev/urandom, AT_RANDOM, canary) — change with --seed;
 *   "ids: "     pid, tid, hostname — fixed only with namespaces (--isolate);
 *   "realtime: " the wall-clock epoch (CLOCK_REALTIME and friends, gettimeofday, time, rand
 *               seeded from time) — shift with --epoch;
 *   anything else: must be the same in every run, whatever the seed or the epoch.
 * Optional argument: the amount of computation between two appends of a racing thread.
 * Realtime values are printed as whole nanoseconds (or microseconds, seconds) since 1970, so
 * the check can compute the shift.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

static void print_hex(const char* label, const unsigned char* bytes, size_t size) {
  printf("random: %s ", label);
  for (size_t i = 0; i < size; ++i) printf("%02x", bytes[i]);
  printf("\n");
}

static int64_t read_clock(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) {
    fprintf(stderr, "clock_gettime(%d): %s\n", (int)id, strerror(errno));
    exit(2);
  }
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void print_clocks(void) {
  static const struct {
    clockid_t id;
    const char* name;
    int realtime;
  } clocks[] = {
      {CLOCK_REALTIME, "CLOCK_REALTIME", 1},
      {CLOCK_MONOTONIC, "CLOCK_MONOTONIC", 0},
      {CLOCK_PROCESS_CPUTIME_ID, "CLOCK_PROCESS_CPUTIME_ID", 0},
      {CLOCK_THREAD_CPUTIME_ID, "CLOCK_THREAD_CPUTIME_ID", 0},
      {CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW", 0},
      {CLOCK_REALTIME_COARSE, "CLOCK_REALTIME_COARSE", 1},
      {CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE", 0},
      {CLOCK_BOOTTIME, "CLOCK_BOOTTIME", 0},
      {CLOCK_TAI, "CLOCK_TAI", 1},
  };
  for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); ++i) {
    const int64_t ns = read_clock(clocks[i].id);
    printf("%sclock %s %lld\n", clocks[i].realtime ? "realtime: " : "", clocks[i].name, (long long)ns);
  }
  struct timeval tv;
  gettimeofday(&tv, NULL);
  printf("realtime: gettimeofday_us %lld\n", (long long)tv.tv_sec * 1000000 + tv.tv_usec);
  printf("realtime: time_s %lld\n", (long long)time(NULL));
  const unsigned long long tsc = __rdtsc();
  unsigned int aux = 0xdeadbeef;
  const unsigned long long tscp = __rdtscp(&aux);
  printf("rdtsc %llu\n", tsc);
  printf("rdtscp %llu aux %u\n", tscp, aux);
}

static void print_randomness(void) {
  unsigned char bytes[16];
  if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes)) {
    perror("getrandom");
    exit(2);
  }
  print_hex("getrandom", bytes, sizeof(bytes));
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || read(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes)) {
    perror("/dev/urandom");
    exit(2);
  }
  close(fd);
  print_hex("urandom", bytes, sizeof(bytes));
  print_hex("at_random", (const unsigned char*)getauxval(AT_RANDOM), 16);
  uint64_t canary;
  __asm__ volatile("mov %%fs:0x28, %0" : "=r"(canary));
  print_hex("canary", (const unsigned char*)&canary, sizeof(canary));
  srand((unsigned)time(NULL));
  /* rand() depends on time() only: it follows --epoch, never --seed. */
  printf("realtime: rand %d %d\n", rand(), rand());
}

int main(int argc, char** argv);

static void print_addresses(void) {
  int on_stack = 0;
  void* small = malloc(64);
  void* large = malloc(1 << 20); /* above the mmap threshold: its own mapping */
  printf("address stack %p\n", (void*)&on_stack);
  printf("address malloc %p\n", small);
  printf("address malloc_1MiB %p\n", large);
  printf("address main %p\n", (void*)(uintptr_t)&main);
  printf("address libc_printf %p\n", (void*)(uintptr_t)&printf);
  free(small);
  free(large);
}

static void print_ids(void) {
  char host[256] = "";
  gethostname(host, sizeof(host));
  printf("ids: pid %d\n", (int)getpid());
  printf("ids: tid %d\n", (int)gettid());
  printf("ids: hostname %s\n", host);
  printf("cpu %d\n", sched_getcpu());
  fflush(stdout);
  const pid_t child = fork();
  if (child == 0) _exit(0);
  int status = -1;
  waitpid(child, &status, 0);
  printf("ids: child pid %d, exit status %d\n", (int)child, status);
}

/* Four threads append to a shared log under a mutex, several times each, computing a little in
 * between (well under a time slice, so only the schedule decides the order). */
enum { kThreads = 4, kAppends = 6 };
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char race_log[kThreads * kAppends + 1];
static int log_length;
static pid_t racer_tids[kThreads];
static volatile uint64_t sink;
static long work = 20000; /* LCG steps per unit of computation; argv[1] overrides */

static void* racer(void* arg) {
  const int id = (int)(intptr_t)arg;
  racer_tids[id] = gettid();
  for (int i = 0; i < kAppends; ++i) {
    uint64_t x = (uint64_t)id * 7919 + (uint64_t)i;
    for (long k = 0; k < work * (id + 1); ++k) x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink = x;
    pthread_mutex_lock(&log_lock);
    race_log[log_length++] = (char)('A' + id);
    pthread_mutex_unlock(&log_lock);
    if ((i + id) % 3 == 0) sched_yield();
  }
  return NULL;
}

static void print_race(void) {
  pthread_t threads[kThreads];
  for (int i = 0; i < kThreads; ++i) pthread_create(&threads[i], NULL, racer, (void*)(intptr_t)i);
  for (int i = 0; i < kThreads; ++i) pthread_join(threads[i], NULL);
  race_log[log_length] = '\0';
  printf("race order %s\n", race_log);
  printf("ids: racer tids");
  for (int i = 0; i < kThreads; ++i) printf(" %d", (int)racer_tids[i]);
  printf("\n");
}

int main(int argc, char** argv) {
  /* A larger amount of work (e.g. 10000000, well over a 10 ms time slice) shows what a backstop
   * interrupt, which comes after a slice of *wall* time, does to the order. */
  if (argc > 1) work = atol(argv[1]);
  print_clocks();
  print_randomness();
  print_addresses();
  print_ids();
  print_race();
  /* The clocks again at the end: the virtual time the run took is part of the output too. */
  print_clocks();
  return 0;
}
