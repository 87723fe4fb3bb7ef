// A lone thread that only computes still gets its timers: alarm(1) ends a spin loop, a periodic
// ITIMER_REAL counts its expirations, and a POSIX timer (timer_create, SIGEV_SIGNAL) fires while
// the thread spins. Under virtual time the clock moves a slice per slice of CPU the thread uses,
// so each fires after the same number of slices every run; natively after the same time.
// faithful-hold
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms = 0;
static volatile sig_atomic_t ticks = 0;
static volatile sig_atomic_t posix_fired = 0;

static void on_alarm(int signal_number) {
  (void)signal_number;
  alarms = alarms + 1;
  ticks = ticks + 1;
}

static void on_posix_timer(int signal_number) {
  (void)signal_number;
  posix_fired = 1;
}

int main(int argc, char** argv) {
  struct sigaction action = {.sa_handler = on_alarm};
  sigaction(SIGALRM, &action, NULL);

  alarm(1);
  while (alarms == 0) {
  }
  printf("alarm(1) ended the spin loop\n");

  ticks = 0;
  struct itimerval period = {.it_interval = {0, 20 * 1000}, .it_value = {0, 20 * 1000}};
  setitimer(ITIMER_REAL, &period, NULL);
  while (ticks < 5) {
  }
  struct itimerval off = {0};
  setitimer(ITIMER_REAL, &off, NULL);
  printf("the periodic itimer expired %d times\n", ticks >= 5 ? 5 : (int)ticks);

  struct sigaction posix_action = {.sa_handler = on_posix_timer};
  sigaction(SIGUSR1, &posix_action, NULL);
  struct sigevent event = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1};
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) {
    perror("timer_create");
    return 2;
  }
  struct itimerspec once = {.it_value = {0, 50 * 1000 * 1000}};
  timer_settime(timer, 0, &once, NULL);
  while (!posix_fired) {
  }
  timer_delete(timer);
  printf("the POSIX timer fired while the thread computed\n");

  if (argc > 1 && strcmp(argv[1], "hold") == 0) {
    // Held computing, with a timer pending far away: SIGTERM must still end the run.
    printf("holding\n");
    fflush(stdout);
    alarm(1000);
    for (;;) {
    }
  }
  return 0;
}
