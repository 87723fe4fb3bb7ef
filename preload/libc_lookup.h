/* Looking a function up in the C library without the dynamic linker's help; see libc_lookup.c. */
#ifndef CHESS_PRELOAD_LIBC_LOOKUP_H
#define CHESS_PRELOAD_LIBC_LOOKUP_H

#pragma GCC visibility push(hidden)

/* The address of libc.so.6's definition of `name`: of version `version` when it is not NULL,
 * else of its default version. NULL when libc has none (or is not loaded as libc.so.6). */
void *chess_libc_lookup(const char *name, const char *version);

#pragma GCC visibility pop

#endif
