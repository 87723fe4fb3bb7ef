// A program that finds the vDSO itself (getauxval(AT_SYSINFO_EHDR)), walks its ELF dynamic
// symbols as a loader would and calls its functions: they answer what the syscalls answer
// (under chess-trace, the virtual clock), within a second for the clocks.
#define _GNU_SOURCE
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static const char* vdso;
static const Elf64_Sym* symbols;
static const char* names;
static uint32_t symbol_count;

// The dynamic section gives the symbol and string tables and, through DT_HASH, their size. The
// vDSO is linked at 0: its addresses are offsets from its start.
static int find_tables(void) {
  const Elf64_Ehdr* header = (const Elf64_Ehdr*)vdso;
  if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64) return 0;
  for (int i = 0; i < header->e_phnum; ++i) {
    const Elf64_Phdr* segment = (const Elf64_Phdr*)(vdso + header->e_phoff + (size_t)i * header->e_phentsize);
    if (segment->p_type != PT_DYNAMIC) continue;
    for (const Elf64_Dyn* entry = (const Elf64_Dyn*)(vdso + segment->p_offset); entry->d_tag != DT_NULL; ++entry) {
      if (entry->d_tag == DT_SYMTAB) symbols = (const Elf64_Sym*)(vdso + entry->d_un.d_ptr);
      if (entry->d_tag == DT_STRTAB) names = vdso + entry->d_un.d_ptr;
      if (entry->d_tag == DT_HASH) symbol_count = ((const uint32_t*)(vdso + entry->d_un.d_ptr))[1];
    }
  }
  return symbols != NULL && names != NULL && symbol_count > 0;
}

static void* find_function(const char* name) {
  for (uint32_t i = 0; i < symbol_count; ++i) {
    if (ELF64_ST_TYPE(symbols[i].st_info) == STT_FUNC && symbols[i].st_shndx != SHN_UNDEF &&
        strcmp(names + symbols[i].st_name, name) == 0) {
      return (void*)(vdso + symbols[i].st_value);
    }
  }
  return NULL;
}

static const char* agree(long a, long b) { return labs(a - b) <= 1 ? "agrees with" : "DISAGREES with"; }

int main(void) {
  vdso = (const char*)getauxval(AT_SYSINFO_EHDR);
  printf("vDSO announced: %s\n", vdso != NULL ? "yes" : "no");
  if (vdso == NULL || !find_tables()) {
    printf("vDSO tables: not found\n");
    return 1;
  }
  printf("vDSO tables: found\n");

  int (*vdso_clock_gettime)(clockid_t, struct timespec*) = find_function("__vdso_clock_gettime");
  int (*vdso_gettimeofday)(struct timeval*, void*) = find_function("__vdso_gettimeofday");
  time_t (*vdso_time)(time_t*) = find_function("__vdso_time");
  int (*vdso_clock_getres)(clockid_t, struct timespec*) = find_function("__vdso_clock_getres");
  int (*vdso_getcpu)(unsigned*, unsigned*, void*) = find_function("__vdso_getcpu");
  if (!vdso_clock_gettime || !vdso_gettimeofday || !vdso_time || !vdso_clock_getres || !vdso_getcpu) {
    printf("a vDSO function is missing\n");
    return 1;
  }

  const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_MONOTONIC_COARSE};
  const char* clock_names[] = {"CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_BOOTTIME", "CLOCK_MONOTONIC_COARSE"};
  for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; ++i) {
    struct timespec from_vdso, from_syscall;
    const int rc = vdso_clock_gettime(clocks[i], &from_vdso);
    syscall(SYS_clock_gettime, clocks[i], &from_syscall);
    printf("__vdso_clock_gettime(%s): %d, %s the syscall\n", clock_names[i], rc,
           agree((long)from_vdso.tv_sec, (long)from_syscall.tv_sec));
  }
  struct timeval tv;
  const int tv_rc = vdso_gettimeofday(&tv, NULL);
  struct timespec now;
  syscall(SYS_clock_gettime, CLOCK_REALTIME, &now);
  printf("__vdso_gettimeofday: %d, %s clock_gettime\n", tv_rc, agree((long)tv.tv_sec, (long)now.tv_sec));
  time_t stored = 0;
  const time_t seconds = vdso_time(&stored);
  printf("__vdso_time: %s clock_gettime, stored %s\n", agree((long)seconds, (long)now.tv_sec),
         stored == seconds ? "the same" : "SOMETHING ELSE");
  struct timespec resolution_vdso, resolution_syscall;
  vdso_clock_getres(CLOCK_MONOTONIC, &resolution_vdso);
  syscall(SYS_clock_getres, CLOCK_MONOTONIC, &resolution_syscall);
  printf("__vdso_clock_getres: %s the syscall\n",
         resolution_vdso.tv_nsec == resolution_syscall.tv_nsec ? "the same as" : "DIFFERENT from");
  unsigned cpu = ~0u, node = ~0u;
  const int cpu_rc = vdso_getcpu(&cpu, &node, NULL);
  printf("__vdso_getcpu: %d, a cpu %s\n", cpu_rc, cpu < (unsigned)sysconf(_SC_NPROCESSORS_CONF) ? "in range" : "OUT OF RANGE");
  struct timespec libc_now;
  clock_gettime(CLOCK_REALTIME, &libc_now);
  printf("the C library's clock_gettime: %s the syscall\n", agree((long)libc_now.tv_sec, (long)now.tv_sec));
  return 0;
}
