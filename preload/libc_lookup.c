/* Reading libc's dynamic symbol table directly, for the calls that reach a wrapper while dlsym
 * is still resolving the real functions (real_functions.c explains when that happens). It uses
 * nothing that could call back into the shim: dl_iterate_phdr takes only the dynamic linker's
 * internal lock, and the rest is reading memory that libc's loading already mapped. It
 * allocates nothing. It is the fallback of a fallback, so it favours plainness over speed: the
 * GNU hash chain, or a linear scan when libc has only the old SysV hash table. */
#include "preload/libc_lookup.h"

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

struct lookup {
  const char *name;
  const char *version;
  void *address;
};

struct symbol_table {
  ElfW(Addr) base;
  const ElfW(Sym) *symbols;
  const char *strings;
  const uint32_t *gnu_hash;
  const uint32_t *sysv_hash;
  const ElfW(Versym) *versions;
  const ElfW(Verdef) *version_definitions;
};

static int same_string(const char *a, const char *b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

static int is_libc(const char *path) {
  const char *base = path;
  for (const char *p = path; *p != '\0'; ++p)
    if (*p == '/') base = p + 1;
  return same_string(base, "libc.so.6");
}

/* ld.so relocates some dynamic entries in place and leaves others as offsets from the base. */
static const void *dynamic_address(ElfW(Addr) base, ElfW(Addr) value) {
  return (const void *)(value < base ? base + value : value);
}

static const char *version_name(const struct symbol_table *table, unsigned index) {
  const ElfW(Verdef) *definition = table->version_definitions;
  while (definition != NULL) {
    if (definition->vd_ndx == index) {
      const ElfW(Verdaux) *aux = (const void *)((const char *)definition + definition->vd_aux);
      return table->strings + aux->vda_name;
    }
    if (definition->vd_next == 0) break;
    definition = (const void *)((const char *)definition + definition->vd_next);
  }
  return NULL;
}

static int matches(const struct symbol_table *table, uint32_t index, const struct lookup *query) {
  const ElfW(Sym) *symbol = &table->symbols[index];
  if (symbol->st_shndx == SHN_UNDEF || symbol->st_value == 0) return 0;
  if (ELF64_ST_TYPE(symbol->st_info) != STT_FUNC) return 0; /* an IFUNC would need its resolver */
  if (!same_string(table->strings + symbol->st_name, query->name)) return 0;
  if (table->versions == NULL) return 1;
  ElfW(Versym) version = table->versions[index];
  if (query->version == NULL) return (version & 0x8000) == 0; /* the default, not a hidden one */
  const char *name = version_name(table, version & 0x7fff);
  return name != NULL && same_string(name, query->version);
}

static uint32_t gnu_hash(const char *name) {
  uint32_t hash = 5381;
  for (const unsigned char *p = (const unsigned char *)name; *p != '\0'; ++p) hash = hash * 33 + *p;
  return hash;
}

static void *find(const struct symbol_table *table, const struct lookup *query) {
  if (table->symbols == NULL || table->strings == NULL) return NULL;
  if (table->gnu_hash != NULL) {
    const uint32_t *header = table->gnu_hash;
    uint32_t bucket_count = header[0], first_symbol = header[1], bloom_words = header[2];
    const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(header + 4) + bloom_words);
    const uint32_t *chain = buckets + bucket_count;
    uint32_t hash = gnu_hash(query->name);
    uint32_t index = buckets[hash % bucket_count];
    if (index < first_symbol) return NULL;
    for (;; ++index) {
      uint32_t entry = chain[index - first_symbol];
      if ((entry | 1) == (hash | 1) && matches(table, index, query))
        return (void *)(table->base + table->symbols[index].st_value);
      if (entry & 1) return NULL;
    }
  }
  if (table->sysv_hash != NULL) {
    uint32_t symbol_count = table->sysv_hash[1];
    for (uint32_t index = 0; index < symbol_count; ++index)
      if (matches(table, index, query)) return (void *)(table->base + table->symbols[index].st_value);
  }
  return NULL;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct lookup *query = data;
  if (info->dlpi_name == NULL || !is_libc(info->dlpi_name)) return 0;
  const ElfW(Dyn) *dynamic = NULL;
  for (int i = 0; i < info->dlpi_phnum; ++i)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dynamic = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (dynamic == NULL) return 1;
  struct symbol_table table = {.base = info->dlpi_addr};
  for (; dynamic->d_tag != DT_NULL; ++dynamic) {
    const void *address = dynamic_address(info->dlpi_addr, dynamic->d_un.d_ptr);
    switch (dynamic->d_tag) {
      case DT_SYMTAB: table.symbols = address; break;
      case DT_STRTAB: table.strings = address; break;
      case DT_GNU_HASH: table.gnu_hash = address; break;
      case DT_HASH: table.sysv_hash = address; break;
      case DT_VERSYM: table.versions = address; break;
      case DT_VERDEF: table.version_definitions = address; break;
      default: break;
    }
  }
  query->address = find(&table, query);
  return 1;
}

void *chess_libc_lookup(const char *name, const char *version) {
  struct lookup query = {name, version, NULL};
  dl_iterate_phdr(visit, &query);
  return query.address;
}
