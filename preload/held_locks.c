/* Held-lock bookkeeping (see held_locks.h). The list is one logical array, visible.held
 * followed by more[], so releasing a listed lock moves the next one into the part the
 * supervisor sees. Order is acquisition order, which reports can show as is. */
#include "preload/held_locks.h"

#define CHESS_KNOWN_CAPACITY (CHESS_MAX_HELD + CHESS_PRIVATE_HELD)

static struct chess_held_lock *entry(struct chess_held_locks *locks, uint32_t index) {
  return index < CHESS_MAX_HELD ? &locks->visible.held[index]
                                : &locks->more[index - CHESS_MAX_HELD];
}

void chess_held_add(struct chess_held_locks *locks, uintptr_t object, uint32_t op, uint64_t site) {
  if (locks->known < CHESS_KNOWN_CAPACITY) {
    struct chess_held_lock *slot = entry(locks, locks->known);
    slot->object = object;
    slot->op = op;
    slot->reserved = 0;
    slot->site = site;
    ++locks->known;
  }
  ++locks->visible.held_count;
}

struct chess_held_removal chess_held_remove(struct chess_held_locks *locks, uintptr_t object) {
  struct chess_held_removal removal = {0, 0, 0};
  uint32_t index = locks->known;
  while (index > 0 && entry(locks, index - 1)->object != object) --index;
  if (index == 0) {
    if (locks->visible.held_count > locks->known) {
      --locks->visible.held_count;
      removal.unlisted = 1;
    }
    return removal;
  }
  --index;
  removal.op = entry(locks, index)->op;
  removal.site = entry(locks, index)->site;
  for (uint32_t next = index + 1; next < locks->known; ++next) *entry(locks, next - 1) = *entry(locks, next);
  --locks->known;
  struct chess_held_lock *vacated = entry(locks, locks->known);
  vacated->object = 0;
  vacated->op = 0;
  vacated->reserved = 0;
  vacated->site = 0;
  --locks->visible.held_count;
  return removal;
}

void chess_held_undo_remove(struct chess_held_locks *locks, uintptr_t object,
                            struct chess_held_removal removal) {
  if (removal.op != 0)
    chess_held_add(locks, object, removal.op, removal.site);
  else if (removal.unlisted)
    ++locks->visible.held_count;
}
