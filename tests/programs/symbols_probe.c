/* symbols_probe: the symbolizer's fixture (tests/unit/symbolizer_test.cc). It prints where its
 * variables are — in .data, in .bss, in a .bss that runs a megabyte past the file's last page,
 * on the heap — then waits in pause() for the test to read its stack and name those addresses.
 * Built with -g, and copied without its debug information, without any symbols, and with its
 * debug information in a separate file it names by .gnu_debuglink (tests/programs/CMakeLists.txt).
 * The LINE: comments mark the lines the test expects the frames at. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

pthread_mutex_t balance_lock = PTHREAD_MUTEX_INITIALIZER;

struct account {
  char owner[40];
  pthread_mutex_t lock; /* at byte 40: savings+40 */
  long balance;
};
struct account savings;

static struct {
  char history[1 << 20];
  pthread_cond_t ready; /* far_state+1048576, in anonymous memory past the file's mapping */
} far_state;

/* Always inlined: its code is wait_here's, and its line is reported as inlined there. */
static inline __attribute__((always_inline)) void sleep_until_signalled(void) {
  pause(); /* LINE: inlined pause */
}

/* noipa: a frame of its own under its own name; noreturn: each call is its caller's last
 * instruction, so a return address lies past the caller and only pc - 1 finds the right line. */
__attribute__((noipa, noreturn)) static void wait_here(void) {
  for (;;) {
    sleep_until_signalled(); /* LINE: pause */
  }
}

__attribute__((noipa, noreturn)) void probe_worker(void) {
  wait_here(); /* LINE: wait_here */
}

int main(void) {
  pthread_mutex_t* heap_lock = malloc(sizeof *heap_lock);
  pthread_mutex_init(heap_lock, NULL);
  printf("%p %p %p %p\n", (void*)&balance_lock, (void*)&savings.lock, (void*)&far_state.ready, (void*)heap_lock);
  fflush(stdout);
  probe_worker();
}
