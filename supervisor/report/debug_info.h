// What one ELF file's symbols and debug information say about addresses in it, read with
// elfutils' libdw: the function and the source line of a code address, the variable a data
// address lies in. The debug information may be in the file itself or in a separate debug file
// found the standard ways (by build id under /usr/lib/debug/.build-id, or by .gnu_debuglink
// next to the file, in its .debug directory or under /usr/lib/debug). Nothing here touches a
// tracee: addresses are the file's own virtual addresses (supervisor/report/symbolizer.h relocates).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "supervisor/report/backtrace.h"

// libdwfl's handles (elfutils/libdwfl.h), kept out of this header.
struct Dwfl;
struct Dwfl_Module;

namespace chess::supervisor {

// Where an instruction is in the source, for the frame of the function that holds it.
struct SourceLocation {
  std::string file;  // as the debug information names it: absolute when it knows the build directory
  int line = 0;
  std::vector<InlinedFunction> inlined;  // as StackFrame::inlined
};

// A C++ symbol's readable name; any other name as it is.
std::string Demangle(const std::string& name);

struct SymbolHit {
  std::string name;
  uint64_t offset = 0;  // from the symbol's start
};

class ModuleDebugInfo {
 public:
  // Reads the ELF file open at `fd` (not kept: the caller closes it). `path` is where the file is
  // as the supervisor can open it, to look for a .gnu_debuglink file beside it. Empty when the
  // file is not an ELF file libdw accepts.
  static std::unique_ptr<ModuleDebugInfo> Open(int fd, const std::string& path);
  ~ModuleDebugInfo();
  ModuleDebugInfo(const ModuleDebugInfo&) = delete;
  ModuleDebugInfo& operator=(const ModuleDebugInfo&) = delete;

  // A loadable segment (PT_LOAD) as the file lays it out.
  struct Segment {
    uint64_t vaddr = 0;
    uint64_t memsz = 0;  // past filesz: .bss, which the loader maps anonymously
    uint64_t offset = 0;
  };
  const std::vector<Segment>& Segments() const { return segments_; }
  // The virtual address a mapping of the file at page-aligned `file_offset` starts at (the
  // segment the mapping was made for, page-aligned), or nothing when no segment starts there.
  std::optional<uint64_t> MappedAddressOf(uint64_t file_offset) const;
  // Whether `vaddr` is inside one of the loaded segments (their .bss included).
  bool Covers(uint64_t vaddr) const;

  bool HasLines() const { return has_lines_; }
  // The source line of the instruction at `vaddr` in the function that holds it — where code
  // was inlined there, the line that calls the inlined function (what GDB shows for the frame
  // itself) — and the inlined functions with their lines. Nothing without line information.
  std::optional<SourceLocation> LocationAt(uint64_t vaddr) const;
  // The function (STT_FUNC, STT_GNU_IFUNC) whose extent holds `vaddr`, from the fullest symbol
  // table libdw found (the debug file's .symtab names what a stripped .dynsym does not).
  std::optional<SymbolHit> FunctionAt(uint64_t vaddr) const;
  // The variable (STT_OBJECT) whose extent holds `vaddr`: a lock at byte 40 of `acct` is acct+40.
  std::optional<SymbolHit> ObjectAt(uint64_t vaddr) const;

 private:
  struct Symbol {
    uint64_t start = 0;
    uint64_t size = 0;
    std::string name;
  };
  ModuleDebugInfo() = default;
  static std::optional<SymbolHit> Lookup(const std::vector<Symbol>& symbols, uint64_t vaddr);

  ::Dwfl* dwfl_ = nullptr;
  ::Dwfl_Module* module_ = nullptr;
  uint64_t bias_ = 0;  // libdw's addresses minus the file's
  bool has_lines_ = false;
  std::vector<Segment> segments_;
  std::vector<Symbol> functions_;  // sorted by start
  std::vector<Symbol> objects_;
};

// The identity of a file on disk: a rebuilt program at the same path is another file.
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t mtime_nanos = 0;
  auto operator<=>(const FileIdentity&) const = default;
};

// Debug information read once per file for the life of chess-trace: a search builds hundreds of
// reports over the same program and libraries. Bounded: past kCapacity files the oldest is
// dropped (a report that still holds it keeps it alive). A file that is not ELF is remembered
// as such, so it is not read again.
class DebugInfoCache {
 public:
  static constexpr size_t kCapacity = 64;
  static DebugInfoCache& Instance();

  // The file open at `fd` (identified by fstat), read on first use; null when it is not ELF.
  std::shared_ptr<const ModuleDebugInfo> Get(int fd, const std::string& path);
  size_t Size() const { return entries_.size(); }

 private:
  struct Entry {
    std::shared_ptr<const ModuleDebugInfo> info;
    uint64_t added = 0;
  };
  std::map<FileIdentity, Entry> entries_;
  uint64_t added_ = 0;
};

}  // namespace chess::supervisor
