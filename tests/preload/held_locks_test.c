/* The held-lock bookkeeping of preload/held_locks.c, driven directly: natively the shim is inert
 * and never touches it, and under chess-trace only its effects on reports are visible. The
 * supervisor's view is the `visible` part alone, so the checks look at what it would read. */
#include <stddef.h>
#include <string.h>

#include "preload/held_locks.h"
#include "test_support.h"

_Static_assert(sizeof(struct chess_held_lock) == 24, "ABI: a held lock is 24 bytes");
_Static_assert(offsetof(struct chess_thread_state, held) == 8, "ABI: held[] follows two u32");

/* The listed objects as the supervisor would read them: "a b c", "-" for an unknown entry. */
static const char *listed(const struct chess_held_locks *locks) {
  static char text[512];
  text[0] = '\0';
  uint32_t count = locks->visible.held_count;
  for (uint32_t i = 0; i < count && i < CHESS_MAX_HELD; ++i) {
    char item[32];
    uint64_t object = locks->visible.held[i].object;
    if (object == 0)
      snprintf(item, sizeof item, "%s-", i ? " " : "");
    else
      snprintf(item, sizeof item, "%s%llu", i ? " " : "", (unsigned long long)object);
    strcat(text, item);
  }
  return text;
}

#define CHECK_LISTED(locks, expected)                                                        \
  do {                                                                                       \
    const char *actual_ = listed(locks);                                                     \
    if (strcmp(actual_, expected) != 0) {                                                    \
      fprintf(stderr, "%s:%d: listed \"%s\", expected \"%s\"\n", __FILE__, __LINE__, actual_, \
              expected);                                                                     \
      ++test_failures;                                                                       \
    }                                                                                        \
  } while (0)

static void add_remove_in_any_order(void) {
  struct chess_held_locks locks;
  memset(&locks, 0, sizeof locks);
  chess_held_add(&locks, 1, CHESS_OP_MUTEX_LOCK, 0x1000 + 1);
  chess_held_add(&locks, 2, CHESS_OP_RWLOCK_RDLOCK, 0x1000 + 2);
  chess_held_add(&locks, 3, CHESS_OP_SPIN_LOCK, 0x1000 + 3);
  CHECK_EQ(locks.visible.held_count, 3);
  CHECK_LISTED(&locks, "1 2 3");
  CHECK_EQ(locks.visible.held[1].op, CHESS_OP_RWLOCK_RDLOCK);
  struct chess_held_removal removal = chess_held_remove(&locks, 2);
  CHECK_EQ(removal.op, CHESS_OP_RWLOCK_RDLOCK);
  CHECK_EQ(removal.unlisted, 0);
  CHECK_LISTED(&locks, "1 3");
  CHECK_EQ(locks.visible.held[1].op, CHESS_OP_SPIN_LOCK);
  CHECK_EQ(locks.visible.held[1].site, 0x1003); /* where it was taken moves with it */
  CHECK_EQ(locks.visible.held[2].object, 0); /* the vacated slot is cleared */
  CHECK_EQ(locks.visible.held[2].site, 0);
  /* An unlock of something not held changes nothing. */
  removal = chess_held_remove(&locks, 99);
  CHECK_EQ(removal.op, 0);
  CHECK_EQ(removal.unlisted, 0);
  CHECK_EQ(locks.visible.held_count, 2);
  /* A failed unlock puts the entry back. */
  removal = chess_held_remove(&locks, 1);
  CHECK_LISTED(&locks, "3");
  chess_held_undo_remove(&locks, 1, removal);
  CHECK_LISTED(&locks, "3 1");
  CHECK_EQ(locks.visible.held[1].op, CHESS_OP_MUTEX_LOCK);
  CHECK_EQ(locks.visible.held[1].site, 0x1001); /* … and where it was taken */
  chess_held_undo_remove(&locks, 5, chess_held_remove(&locks, 5)); /* nothing to undo */
  CHECK_LISTED(&locks, "3 1");
}

static void recursive_and_mixed_entries(void) {
  struct chess_held_locks locks;
  memset(&locks, 0, sizeof locks);
  /* A recursive mutex taken twice, a read lock on another object in between. */
  chess_held_add(&locks, 7, CHESS_OP_MUTEX_LOCK, 0x1000 + 7);
  chess_held_add(&locks, 8, CHESS_OP_RWLOCK_RDLOCK, 0x1000 + 8);
  chess_held_add(&locks, 7, CHESS_OP_MUTEX_LOCK, 0x1000 + 7);
  CHECK_LISTED(&locks, "7 8 7");
  chess_held_remove(&locks, 7); /* the last entry goes */
  CHECK_LISTED(&locks, "7 8");
  chess_held_remove(&locks, 7);
  CHECK_LISTED(&locks, "8");
  /* Two read locks of one rwlock by one thread, then a release of each. */
  chess_held_add(&locks, 8, CHESS_OP_RWLOCK_RDLOCK, 0x1000 + 8);
  CHECK_LISTED(&locks, "8 8");
  CHECK_EQ(chess_held_remove(&locks, 8).op, CHESS_OP_RWLOCK_RDLOCK);
  CHECK_EQ(chess_held_remove(&locks, 8).op, CHESS_OP_RWLOCK_RDLOCK);
  CHECK_EQ(locks.visible.held_count, 0);
  CHECK_LISTED(&locks, "");
}

static void more_than_the_supervisor_sees(void) {
  struct chess_held_locks locks;
  memset(&locks, 0, sizeof locks);
  enum { kTaken = CHESS_MAX_HELD + CHESS_PRIVATE_HELD + 6 }; /* 6 beyond everything the shim lists */
  for (uint64_t object = 1; object <= kTaken; ++object) chess_held_add(&locks, object, CHESS_OP_MUTEX_LOCK, 0x1000 + object);
  CHECK_EQ(locks.visible.held_count, kTaken);
  CHECK_LISTED(&locks, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16");
  /* Releasing a listed lock brings the next one into view from the private part. */
  chess_held_remove(&locks, 1);
  CHECK_EQ(locks.visible.held_count, kTaken - 1);
  CHECK_LISTED(&locks, "2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17");
  /* Releasing one of the six never listed only counts it off; undo counts it back. */
  struct chess_held_removal removal = chess_held_remove(&locks, kTaken);
  CHECK_EQ(removal.op, 0);
  CHECK_EQ(removal.unlisted, 1);
  CHECK_EQ(locks.visible.held_count, kTaken - 2);
  chess_held_undo_remove(&locks, kTaken, removal);
  CHECK_EQ(locks.visible.held_count, kTaken - 1);
  /* Release everything listed but 2..4: the six unknown ones then show as unknown entries. */
  for (uint64_t object = 5; object <= CHESS_MAX_HELD + CHESS_PRIVATE_HELD; ++object)
    chess_held_remove(&locks, object);
  CHECK_EQ(locks.visible.held_count, 3 + 6);
  CHECK_LISTED(&locks, "2 3 4 - - - - - -");
  /* A new lock is listed after the known ones; the unknown ones stay counted. */
  chess_held_add(&locks, 500, CHESS_OP_SPIN_LOCK, 0x1000 + 500);
  CHECK_LISTED(&locks, "2 3 4 500 - - - - - -");
  for (int i = 0; i < 6; ++i) CHECK_EQ(chess_held_remove(&locks, 1000 + i).unlisted, 1);
  CHECK_LISTED(&locks, "2 3 4 500");
  CHECK_EQ(chess_held_remove(&locks, 1000).unlisted, 0); /* none unknown left */
  CHECK_EQ(locks.visible.held_count, 4);
}

int main(void) {
  add_remove_in_any_order();
  recursive_and_mixed_entries();
  more_than_the_supervisor_sees();
  if (test_finish("held_locks") != 0) return 1;
  puts("held_locks: every check passed");
  return 0;
}
