/* use_after_free_buggy: a worker uses a session after main has destroyed it.
 *
 * Bug: the worker copies the session pointer under registry_lock and then drops the lock
 * before using the session (to keep the critical section short). Holding a pointer is not
 * holding the object: once the lock is free, main may close the session — mark it dead, free
 * it and clear the pointer — and the worker then reads freed memory. The session's magic field
 * catches it: the worker asserts that it still reads SESSION_ALIVE (SIGABRT).
 *
 * Schedule that exposes it (1 preemption): main creates the worker and blocks in sem_wait; the
 * worker posts `worker_started` (main becomes runnable), copies the pointer, releases
 * registry_lock and is preempted at pthread_mutex_lock(&stats_lock); main closes the session
 * and blocks in pthread_join; the worker resumes and its assertion fails.
 *
 * Without a preemption the worker, once main is waiting for it, runs to its exit (it never
 * blocks: both locks are free), so main closes the session only after the last use. A
 * preemption before the worker copies the pointer is harmless: it then finds NULL and stops.
 *
 * Fixed twin: use_after_free_fixed.c (the session is used with registry_lock held). */
#include <assert.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#define SESSION_ALIVE 0x5e551011u
#define SESSION_DEAD 0xdeadbeefu

struct session {
  /* volatile: a store into an object that is freed right after is otherwise dead, and the
   * compiler would drop the poisoning store in close_session. */
  volatile unsigned magic;
  int id;
  long bytes_sent;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct session* current_session; /* guarded by registry_lock */
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static long requests_served; /* guarded by stats_lock */
static sem_t worker_started;

static void* serve_one_request(void* arg) {
  sem_post(&worker_started);

  pthread_mutex_lock(&registry_lock);
  struct session* session = current_session;
  pthread_mutex_unlock(&registry_lock);
  if (session == NULL) return arg; /* already closed: nothing to serve */

  pthread_mutex_lock(&stats_lock);
  ++requests_served;
  pthread_mutex_unlock(&stats_lock);

  /* Nothing keeps the session alive here any more. */
  assert(session->magic == SESSION_ALIVE);
  session->bytes_sent += 100;
  return arg;
}

static void close_session(void) {
  pthread_mutex_lock(&registry_lock);
  struct session* session = current_session;
  current_session = NULL;
  session->magic = SESSION_DEAD; /* what a destructor leaves behind */
  free(session);
  pthread_mutex_unlock(&registry_lock);
}

int main(void) {
  struct session* session = malloc(sizeof *session);
  if (session == NULL) return 1;
  *session = (struct session){SESSION_ALIVE, 7, 0};
  current_session = session;
  sem_init(&worker_started, 0, 0);

  pthread_t worker;
  pthread_create(&worker, NULL, serve_one_request, NULL);
  /* The client disconnects once the worker is up: close the session. */
  sem_wait(&worker_started);
  close_session();
  pthread_join(worker, NULL);
  printf("requests served %ld\n", requests_served);
  return 0;
}
