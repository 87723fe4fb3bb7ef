/* Finding the real functions behind the wrappers (see real_functions.h).
 *
 * The real functions come from dlsym(RTLD_NEXT, ...), so another interposer preloaded after the
 * shim stays in the chain. The hard case is the first call: dlsym may itself call back into a
 * wrapper before it returns: dlsym can allocate (older glibc calloc'ed its per-thread error
 * state there; a failed lookup still mallocs one), and a preloaded allocator (jemalloc,
 * tcmalloc) takes a pthread mutex inside malloc. That call lands in a wrapper whose pointer is not set yet. A
 * wrapper must not call dlsym again then (it would recurse for ever) and must not wait for the
 * thread that is resolving (it may be that very thread, or hold a lock that thread needs). So a
 * call that arrives while a resolution is in flight goes straight to the C library's own
 * definition, found by reading libc's symbol table (libc_lookup.c) without the dynamic linker.
 * Those calls skip any interposer after the shim, which is harmless: they happen once, at
 * start-up, inside the dynamic linker. */
#include "preload/real_functions.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "preload/hypercall.h"
#include "preload/libc_lookup.h"

enum chess_real_id {
#define CHESS_REAL_ID(ret, name, params, args, version) CHESS_REAL_ID_##name,
  CHESS_FOR_EACH_REAL_FUNCTION(CHESS_REAL_ID)
#undef CHESS_REAL_ID
  CHESS_REAL_COUNT
};

struct real_symbol {
  const char *name;
  const char *version;
};

static const struct real_symbol real_symbols[CHESS_REAL_COUNT] = {
#define CHESS_REAL_SYMBOL(ret, name, params, args, version) {#name, version},
    CHESS_FOR_EACH_REAL_FUNCTION(CHESS_REAL_SYMBOL)
#undef CHESS_REAL_SYMBOL
};

/* What dlsym found, by id; written once by the resolving thread before `resolution_done`. */
static void *resolved[CHESS_REAL_COUNT];
static int resolution_done;
/* The identity (below) of the thread inside resolve_all(), 0 when none is. */
static long resolver_tid;

/* Which thread this is, without a system call (a sandboxed program's seccomp filter may refuse
 * gettid): the address of a thread-local variable is the thread's own. */
static _Thread_local char thread_marker;
static long chess_thread_identity(void) { return (long)(uintptr_t)&thread_marker; }

static void *function_for_first_call(enum chess_real_id id);

/* The first-call trampolines: the initial value of every chess_real_<name>. */
#define CHESS_FIRST_CALL_TRAMPOLINE(ret, name, params, args, version)                        \
  static ret chess_first_call_##name params {                                                \
    ret(*real) params = (ret(*) params)function_for_first_call(CHESS_REAL_ID_##name);      \
    return real args;                                                                        \
  }
CHESS_FOR_EACH_REAL_FUNCTION(CHESS_FIRST_CALL_TRAMPOLINE)
#undef CHESS_FIRST_CALL_TRAMPOLINE

#define CHESS_DEFINE_REAL(ret, name, params, args, version) \
  ret(*chess_real_##name) params = chess_first_call_##name;
CHESS_FOR_EACH_REAL_FUNCTION(CHESS_DEFINE_REAL)
#undef CHESS_DEFINE_REAL

static void publish_resolved(void) {
#define CHESS_PUBLISH(ret, name, params, args, version)                       \
  if (resolved[CHESS_REAL_ID_##name] != NULL)                                 \
    __atomic_store_n(&chess_real_##name, (ret(*) params)resolved[CHESS_REAL_ID_##name], \
                     __ATOMIC_RELEASE);
  CHESS_FOR_EACH_REAL_FUNCTION(CHESS_PUBLISH)
#undef CHESS_PUBLISH
}

static int same_object(const void *a, const void *b) {
  Dl_info a_info, b_info;
  return dladdr(a, &a_info) != 0 && dladdr(b, &b_info) != 0 && a_info.dli_fbase == b_info.dli_fbase;
}

/* The definition after the shim. For a function with several versions, dlvsym names the right
 * one in the C library, but it also skips any interposer in between (an unversioned definition
 * never matches a dlvsym lookup), which would drop that interposer from the chain; dlsym finds
 * the interposer but leaves the choice of version to the dynamic linker. So: the interposer if
 * there is one, else the C library's definition of the wanted version. (Both calls return here,
 * not in a tail position: RTLD_NEXT is relative to the object dlsym returns to.) */
static void *next_definition(const struct real_symbol *symbol) {
  void *newest = dlsym(RTLD_NEXT, symbol->name);
  if (symbol->version == NULL) return newest;
  void *exact = dlvsym(RTLD_NEXT, symbol->name, symbol->version);
  if (exact == NULL) return newest;
  if (newest == NULL || same_object(newest, exact)) return exact;
  return newest;
}

static void resolve_all(void) {
  for (int id = 0; id < CHESS_REAL_COUNT; ++id) resolved[id] = next_definition(&real_symbols[id]);
  publish_resolved();
}

/* Returns 1 when this thread did the resolution or it was done already, 0 when the thread must
 * not wait for it (it is inside it, or another thread is). */
static int try_resolve(void) {
  if (__atomic_load_n(&resolution_done, __ATOMIC_ACQUIRE)) return 1;
  long self = chess_thread_identity();
  long expected = 0;
  if (!__atomic_compare_exchange_n(&resolver_tid, &expected, self, 0, __ATOMIC_ACQ_REL,
                                   __ATOMIC_ACQUIRE))
    return 0;
  resolve_all();
  __atomic_store_n(&resolution_done, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&resolver_tid, 0, __ATOMIC_RELEASE);
  return 1;
}

void chess_resolve_real_functions(void) { (void)try_resolve(); }

static void die_without(const char *name) {
  static const char prefix[] = "chess-trace preload: the C library has no ";
  long length = 0;
  while (name[length] != '\0') ++length;
  chess_raw_syscall3(SYS_write, 2, (long)prefix, sizeof prefix - 1);
  chess_raw_syscall3(SYS_write, 2, (long)name, length);
  chess_raw_syscall3(SYS_write, 2, (long)"\n", 1);
  abort();
}

static void *function_for_first_call(enum chess_real_id id) {
  const struct real_symbol *symbol = &real_symbols[id];
  for (;;) {
    if (try_resolve()) {
      if (resolved[id] != NULL) return resolved[id];
      /* dlsym found nothing after the shim; a program can only have called this through a
       * lookup of the shim's own symbol. libc is the last word. */
      void *address = chess_libc_lookup(symbol->name, symbol->version);
      if (address == NULL) die_without(symbol->name);
      return address;
    }
    void *address = chess_libc_lookup(symbol->name, symbol->version);
    if (address != NULL) return address;
    /* No libc definition to fall back on (not glibc?): all that is left is to wait, which is
     * safe only when another thread is the one resolving. */
    if (__atomic_load_n(&resolver_tid, __ATOMIC_ACQUIRE) == chess_thread_identity())
      die_without(symbol->name);
    chess_raw_syscall0(SYS_sched_yield);
  }
}
