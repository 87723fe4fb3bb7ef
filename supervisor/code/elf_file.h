// One ELF file's code as read from disk: its executable segments, its function starts and ranges
// (symbol tables and .eh_frame FDEs), and its identity for caching. No decoding and no process here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace chess::code {

// Addresses are in the file's own numbering (p_vaddr); a mapping adds its load bias.
struct ExecutableSegment {
  uint64_t address = 0;
  uint64_t size = 0;         // bytes present in the file (p_filesz)
  uint64_t file_offset = 0;
};

// [start, end) of one function's code, from a sized symbol or an FDE.
struct FunctionRange {
  uint64_t start = 0;
  uint64_t end = 0;
  bool operator==(const FunctionRange&) const = default;
};

// The load bias of a mapping of one of `segments` (see ElfFile::LoadBias).
std::optional<uint64_t> LoadBiasOf(const std::vector<ExecutableSegment>& segments, uint64_t mapping_start,
                                   uint64_t mapping_file_offset);

class ElfFile {
 public:
  // The file at `path`, or nothing when it cannot be read or is not a 64-bit x86-64 ELF file.
  static std::optional<ElfFile> Read(const std::string& path);
  // The same from bytes already in memory (tests, and files read another way).
  static std::optional<ElfFile> FromBytes(std::string bytes);

  const std::vector<ExecutableSegment>& executable_segments() const { return segments_; }
  // Sorted by start, duplicates removed; each lies inside an executable segment.
  const std::vector<FunctionRange>& functions() const { return functions_; }
  // The NT_GNU_BUILD_ID note's bytes in hex, empty when the file has none.
  const std::string& build_id() const { return build_id_; }
  // The file's bytes at [address, address + size) when an executable segment holds them all.
  std::optional<std::string_view> CodeAt(uint64_t address, uint64_t size) const;
  // The load bias of a mapping of one executable segment: what a process adds to this file's
  // addresses, from the mapping's start and file offset as /proc/PID/maps shows them (the
  // segment's offset rounded down to its page). Nothing when no executable segment maps there.
  std::optional<uint64_t> LoadBias(uint64_t mapping_start, uint64_t mapping_file_offset) const;
  // The whole file.
  std::string_view bytes() const { return bytes_; }

 private:
  std::string bytes_;
  std::vector<ExecutableSegment> segments_;
  std::vector<FunctionRange> functions_;
  std::string build_id_;
};

// Sized STT_FUNC symbols of .symtab and .dynsym, unsorted (instruction_scan names sites with them).
struct FunctionSymbol {
  uint64_t start = 0;
  uint64_t size = 0;
  std::string name;
};
std::vector<FunctionSymbol> FunctionSymbols(std::string_view elf_bytes);

// The [initial location, + range) of every FDE in an .eh_frame section whose bytes are `section`
// and whose first byte has address `section_address`; stops at the first malformed record.
std::vector<FunctionRange> EhFrameRanges(std::string_view section, uint64_t section_address);

}  // namespace chess::code
