/* use_after_free_fixed: the correct twin of use_after_free_buggy.c.
 *
 * The worker keeps registry_lock held for as long as it uses the session. main frees the
 * session only with registry_lock held and clears the pointer in the same critical section, so
 * the worker either sees a live session for its whole use or sees NULL: under every schedule.
 * (A reference count would also do; the lock is the smallest change.) */
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
/* guarded by stats_lock, which is taken inside registry_lock, never around it */
static long requests_served;
static sem_t worker_started;

static void* serve_one_request(void* arg) {
  sem_post(&worker_started);

  pthread_mutex_lock(&registry_lock);
  struct session* session = current_session;
  if (session != NULL) {
    pthread_mutex_lock(&stats_lock);
    ++requests_served;
    pthread_mutex_unlock(&stats_lock);

    assert(session->magic == SESSION_ALIVE);
    session->bytes_sent += 100;
  }
  pthread_mutex_unlock(&registry_lock);
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
