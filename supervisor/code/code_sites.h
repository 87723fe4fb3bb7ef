// The instructions of a file's code that a scheduling point may be planted before: atomic
// read-modify-writes, fences and memory accesses, found by decoding each function from its start
// (supervisor/code/elf_file.h) so that a site always begins an instruction. Pure analysis of files:
// no process, no ptrace.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "supervisor/code/elf_file.h"

namespace chess::code {

enum class SiteKind : uint8_t {
  kAtomic,  // lock-prefixed read-modify-write, or xchg with memory (implicitly locked)
  kFence,   // mfence, lfence, sfence
  kAccess,  // any other instruction that reads or writes shared memory
};

// The 64-bit registers an address is computed from, in Zydis-free names (kOther: a vector index
// of a gather or scatter, or a register no address of ours uses).
enum class AddressRegister : uint8_t {
  kNone, kRax, kRcx, kRdx, kRbx, kRsp, kRbp, kRsi, kRdi, kR8, kR9, kR10, kR11, kR12, kR13, kR14, kR15,
  kRip, kFs, kGs, kOther,
};

enum class AccessMode : uint8_t { kRead, kWrite, kReadWrite };

// One memory operand: address = segment base + base + index * scale + displacement.
struct MemoryAccess {
  AccessMode mode = AccessMode::kRead;
  uint16_t size = 0;  // bytes per access (per element for string instructions and gathers)
  AddressRegister base = AddressRegister::kNone;
  AddressRegister index = AddressRegister::kNone;
  uint8_t scale = 0;
  int64_t displacement = 0;
  AddressRegister segment = AddressRegister::kNone;  // kFs or kGs when a segment base adds
  // A rip-relative operand resolved: the absolute address in the file's numbering (add the load
  // bias at run time); base is then kNone and displacement 0.
  bool absolute = false;
  uint64_t address = 0;
  bool repeated = false;       // a rep-prefixed string instruction: rcx elements, direction by DF
  bool vector_index = false;   // a gather or scatter: one access per vector lane
};

struct CodeSite {
  uint64_t address = 0;  // in the file's own numbering (p_vaddr); add the load bias at run time
  uint8_t length = 0;
  SiteKind kind = SiteKind::kAccess;
  // The memory operands the instruction uses (none for a fence); an instruction with two (movs,
  // cmpxchg with memory is one) lists each.
  std::vector<MemoryAccess> accesses;
  // The offset in the instruction of its 32-bit rip-relative displacement, when it has one: a
  // copy run elsewhere must move it (supervisor/breakpoints.h).
  std::optional<uint8_t> rip_displacement_at;
};

// What decoding one file found.
class DecodedFile {
 public:
  DecodedFile(std::vector<FunctionRange> functions, std::vector<CodeSite> sites, std::vector<FunctionRange> undecoded,
              uint64_t instructions, std::vector<ExecutableSegment> segments = {});

  // Sorted by address, each once.
  const std::vector<CodeSite>& sites() const { return sites_; }
  // The sites in [begin, end), by binary search: "which sites lie in this function".
  std::span<const CodeSite> SitesIn(uint64_t begin, uint64_t end) const;
  // The site starting exactly at `address`, if any.
  const CodeSite* SiteAt(uint64_t address) const;
  // The function ranges decoded, sorted by start (overlaps are aliases or nested cold parts).
  const std::vector<FunctionRange>& functions() const { return functions_; }
  // Executable bytes no function start covers (stripped code with no FDE, PLT stubs), and the
  // tails of functions where decoding failed: never guessed, so no site lies there.
  const std::vector<FunctionRange>& undecoded() const { return undecoded_; }
  uint64_t instructions() const { return instructions_; }
  // As ElfFile::LoadBias: what a process adds to this file's addresses, from one executable
  // mapping's start and file offset.
  std::optional<uint64_t> LoadBias(uint64_t mapping_start, uint64_t mapping_file_offset) const {
    return LoadBiasOf(segments_, mapping_start, mapping_file_offset);
  }

 private:
  std::vector<FunctionRange> functions_;
  std::vector<CodeSite> sites_;
  std::vector<FunctionRange> undecoded_;
  uint64_t instructions_;
  std::vector<ExecutableSegment> segments_;
};

// A decoded file as one process maps it: a site's run-time address is its address + load_bias
// (ElfFile::LoadBias). What the breakpoints are planted from.
struct MappedCode {
  std::shared_ptr<const DecodedFile> file;
  uint64_t load_bias = 0;
  // The sites whose run-time addresses lie in [begin, end).
  std::span<const CodeSite> SitesIn(uint64_t begin, uint64_t end) const {
    if (end <= load_bias) return {};
    return file->SitesIn(begin < load_bias ? 0 : begin - load_bias, end - load_bias);
  }
};

// Decodes every function of `file` with Zydis (64-bit mode).
DecodedFile Decode(const ElfFile& file);

// Files decoded once per search: keyed by build id when the file has one, else by its device,
// inode, size and modification time (a file rewritten in place is decoded anew).
class CodeCache {
 public:
  // The decoding of the file at `path`, or null when it is not an x86-64 ELF file.
  std::shared_ptr<const DecodedFile> Of(const std::string& path);
  size_t decoded_files() const { return decodings_; }

 private:
  std::map<std::string, std::shared_ptr<const DecodedFile>> by_key_;
  size_t decodings_ = 0;
};

}  // namespace chess::code
