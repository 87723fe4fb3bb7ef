#include "supervisor/report/debug_info.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace chess::supervisor {
namespace {

constexpr uint64_t kPageMask = ~uint64_t{4095};

// The CRC-32 a .gnu_debuglink section carries of its debug file (zlib's: reflected 0xEDB88320).
uint32_t Crc32OfFile(int fd) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  char buffer[65536];
  off_t at = 0;
  for (;;) {
    const ssize_t got = pread(fd, buffer, sizeof(buffer), at);
    if (got <= 0) break;
    for (ssize_t i = 0; i < got; ++i) crc = table[(crc ^ static_cast<unsigned char>(buffer[i])) & 0xff] ^ (crc >> 8);
    at += got;
  }
  return crc ^ 0xFFFFFFFFu;
}

// Whether the file at `fd` is the debug file of `module`: the same build id when the module has
// one, the CRC the debug link names otherwise.
bool IsDebugFileOf(Dwfl_Module* module, int fd, GElf_Word crc) {
  const unsigned char* bits = nullptr;
  GElf_Addr vaddr = 0;
  const int length = dwfl_module_build_id(module, &bits, &vaddr);
  if (length <= 0) return crc != 0 && Crc32OfFile(fd) == crc;
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  if (elf == nullptr) return false;
  const void* candidate = nullptr;
  const ssize_t candidate_length = dwelf_elf_gnu_build_id(elf, &candidate);
  const bool same = candidate_length == length && std::memcmp(candidate, bits, static_cast<size_t>(length)) == 0;
  elf_end(elf);
  return same;
}

// libdwfl's find_debuginfo callback. dwfl_standard_find_debuginfo would do the same local
// searches, but when they fail it asks the debuginfod servers of $DEBUGINFOD_URLS (which Debian
// sets in every login shell) and may wait on the network for up to 90 s: a report must never
// wait on the network. So: the build id under /usr/lib/debug/.build-id (libdwfl's own lookup,
// which stays local), then the .gnu_debuglink name where GDB looks for it.
int FindDebugInfo(Dwfl_Module* module, void** userdata, const char* module_name, Dwarf_Addr base,
                  const char* file_name, const char* debuglink, GElf_Word crc, char** debug_file_name) {
  const int by_build_id = dwfl_build_id_find_debuginfo(module, userdata, module_name, base, file_name, debuglink,
                                                       crc, debug_file_name);
  if (by_build_id >= 0 || file_name == nullptr || debuglink == nullptr || debuglink[0] == '\0') return by_build_id;
  std::string dir = file_name;
  dir.erase(dir.rfind('/') == std::string::npos ? 0 : dir.rfind('/'));
  const std::string link = debuglink;
  for (const std::string& candidate : {dir + "/" + link, dir + "/.debug/" + link, "/usr/lib/debug" + dir + "/" + link}) {
    if (candidate == file_name) continue;  // a link to itself
    const int fd = open(candidate.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat info{};
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && IsDebugFileOf(module, fd, crc)) {
      *debug_file_name = strdup(candidate.c_str());
      return fd;  // libdwfl owns it now
    }
    close(fd);
  }
  errno = 0;  // "not found", as opposed to a failure
  return -1;
}

// The main file comes with its descriptor, so libdwfl never has to find it; were it asked, it
// must not go looking (dwfl_build_id_find_elf may ask debuginfod too).
int FindNoElf(Dwfl_Module*, void**, const char*, Dwarf_Addr, char**, Elf**) { return -1; }

const Dwfl_Callbacks kCallbacks = {
    .find_elf = FindNoElf,
    .find_debuginfo = FindDebugInfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = nullptr,  // the default: ":.debug:/usr/lib/debug"
};

int Rank(unsigned char info) {
  switch (GELF_ST_BIND(info)) {
    case STB_GLOBAL: return 2;
    case STB_WEAK: return 1;
    default: return 0;
  }
}

}  // namespace

std::string Demangle(const std::string& name) {
  // __cxa_demangle also decodes type encodings, which would turn a C function named "i" into
  // "int": only names with the C++ function prefix are mangled.
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : name;
}

std::unique_ptr<ModuleDebugInfo> ModuleDebugInfo::Open(int fd, const std::string& path) {
  static const bool elf_ready = elf_version(EV_CURRENT) != EV_NONE;
  if (!elf_ready || fd < 0) return nullptr;
  struct stat info{};
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return nullptr;
  const int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (own < 0) return nullptr;
  std::unique_ptr<ModuleDebugInfo> module(new ModuleDebugInfo());
  module->dwfl_ = dwfl_begin(&kCallbacks);
  if (module->dwfl_ == nullptr) {
    close(own);
    return nullptr;
  }
  dwfl_report_begin(module->dwfl_);
  const std::string name = path.substr(path.rfind('/') + 1);
  // Base 0 relative to the segments' own addresses: libdw's addresses are the file's (bias 0
  // for executables and shared objects alike). libdwfl owns `own` once the module exists.
  module->module_ = dwfl_report_elf(module->dwfl_, name.c_str(), path.c_str(), own, 0, true);
  if (module->module_ == nullptr) {
    close(own);
    return nullptr;
  }
  if (dwfl_report_end(module->dwfl_, nullptr, nullptr) != 0) return nullptr;

  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module->module_, &bias);
  if (elf == nullptr) return nullptr;
  module->bias_ = bias;
  size_t headers = 0;
  if (elf_getphdrnum(elf, &headers) != 0) return nullptr;
  for (size_t i = 0; i < headers; ++i) {
    GElf_Phdr header;
    if (gelf_getphdr(elf, static_cast<int>(i), &header) == nullptr || header.p_type != PT_LOAD) continue;
    module->segments_.push_back({header.p_vaddr, header.p_memsz, header.p_offset});
  }

  // Read now, while `path` still leads to the file: the debug file is looked for next to it.
  Dwarf_Addr dwarf_bias = 0;
  module->has_lines_ = dwfl_module_getdwarf(module->module_, &dwarf_bias) != nullptr;

  struct Ranked {
    int rank;
    Symbol symbol;
  };
  std::vector<Ranked> functions, objects;
  const int count = dwfl_module_getsymtab(module->module_);
  for (int i = 1; i < count; ++i) {
    GElf_Sym symbol;
    GElf_Addr address = 0;
    GElf_Word section = 0;
    const char* symbol_name =
        dwfl_module_getsym_info(module->module_, i, &symbol, &address, &section, nullptr, nullptr);
    if (symbol_name == nullptr || symbol_name[0] == '\0' || section == SHN_UNDEF || section == static_cast<GElf_Word>(-1)) {
      continue;
    }
    const int type = GELF_ST_TYPE(symbol.st_info);
    std::vector<Ranked>* into = type == STT_OBJECT                              ? &objects
                                : type == STT_FUNC || type == STT_GNU_IFUNC ? &functions
                                                                               : nullptr;
    if (into == nullptr || address < bias) continue;
    into->push_back({Rank(symbol.st_info), {address - bias, symbol.st_size, symbol_name}});
  }
  // Aliases share a start: keep the most visible name (pthread_mutex_lock over
  // __pthread_mutex_lock), then the shorter one.
  auto keep = [](std::vector<Ranked>& ranked, std::vector<Symbol>& out) {
    std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
      if (a.symbol.start != b.symbol.start) return a.symbol.start < b.symbol.start;
      if (a.rank != b.rank) return a.rank > b.rank;
      if (a.symbol.size != b.symbol.size) return a.symbol.size > b.symbol.size;
      return a.symbol.name.size() < b.symbol.name.size();
    });
    for (Ranked& r : ranked) {
      if (!out.empty() && out.back().start == r.symbol.start) continue;
      out.push_back(std::move(r.symbol));
    }
  };
  keep(functions, module->functions_);
  keep(objects, module->objects_);
  return module;
}

ModuleDebugInfo::~ModuleDebugInfo() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

std::optional<uint64_t> ModuleDebugInfo::MappedAddressOf(uint64_t file_offset) const {
  for (const Segment& segment : segments_) {
    if ((segment.offset & kPageMask) == file_offset) return segment.vaddr & kPageMask;
  }
  return std::nullopt;
}

bool ModuleDebugInfo::Covers(uint64_t vaddr) const {
  return std::any_of(segments_.begin(), segments_.end(), [&](const Segment& segment) {
    return vaddr >= segment.vaddr && vaddr - segment.vaddr < segment.memsz;
  });
}

// The functions inlined at `address`, innermost first, up to the concrete function holding it.
struct InlineChain {
  Dwarf_Die* cu = nullptr;
  std::vector<Dwarf_Die> inlined;  // DW_TAG_inlined_subroutine entries
};

InlineChain InlinedAt(Dwfl_Module* module, uint64_t address) {
  InlineChain chain;
  Dwarf_Addr cu_bias = 0;
  chain.cu = dwfl_module_addrdie(module, address, &cu_bias);
  if (chain.cu == nullptr) return chain;
  // The innermost scope at the address; past an inlined function dwarf_getscopes goes on with
  // the scopes of its abstract definition, so the concrete chain around it is asked for apart.
  Dwarf_Die* found = nullptr;
  const int found_count = dwarf_getscopes(chain.cu, address - cu_bias, &found);
  if (found_count <= 0) return chain;
  Dwarf_Die innermost = found[0];
  std::free(found);
  Dwarf_Die* scopes = nullptr;
  const int count = dwarf_getscopes_die(&innermost, &scopes);
  if (count <= 0) return chain;
  for (int i = 0; i < count; ++i) {  // innermost (the DIE itself) first, up to the compile unit
    const int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram) break;
    if (tag == DW_TAG_inlined_subroutine) chain.inlined.push_back(scopes[i]);
  }
  std::free(scopes);
  return chain;
}

// Where an inlined function is called from: its DW_AT_call_file and DW_AT_call_line.
std::optional<std::pair<std::string, int>> CallSite(Dwarf_Die* inlined, Dwarf_Die* cu) {
  Dwarf_Attribute attribute;
  Dwarf_Word file_index = 0, line = 0;
  Dwarf_Files* files = nullptr;
  size_t file_count = 0;
  if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attribute), &file_index) != 0 ||
      dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attribute), &line) != 0 || line == 0 ||
      line > INT32_MAX || dwarf_getsrcfiles(cu, &files, &file_count) != 0 || file_index >= file_count) {
    return std::nullopt;
  }
  const char* file = dwarf_filesrc(files, file_index, nullptr, nullptr);
  if (file == nullptr || file[0] == '\0') return std::nullopt;
  return std::pair<std::string, int>(file, static_cast<int>(line));
}

// An inlined function's name: its linkage name demangled (qualified, for C++), else its name.
std::string InlinedName(Dwarf_Die* inlined) {
  Dwarf_Attribute attribute;
  for (unsigned int name : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name}) {
    if (const char* linkage = dwarf_formstring(dwarf_attr_integrate(inlined, name, &attribute))) return Demangle(linkage);
  }
  const char* plain = dwarf_diename(inlined);
  return plain != nullptr ? plain : "??";
}

std::optional<SourceLocation> ModuleDebugInfo::LocationAt(uint64_t vaddr) const {
  if (!has_lines_) return std::nullopt;
  // The line table's row: the line of the innermost code at the address, inlined or not.
  std::optional<std::pair<std::string, int>> inside;
  if (Dwfl_Line* row = dwfl_module_getsrc(module_, vaddr + bias_)) {
    int number = 0;
    const char* file = dwfl_lineinfo(row, nullptr, &number, nullptr, nullptr, nullptr);
    // Line 0 is code the compiler made up (no line of the source is its origin).
    if (file != nullptr && file[0] != '\0' && number > 0) inside.emplace(file, number);
  }
  InlineChain chain = InlinedAt(module_, vaddr + bias_);
  SourceLocation location;
  for (Dwarf_Die& inlined : chain.inlined) {
    location.inlined.push_back({InlinedName(&inlined), inside ? inside->first : "", inside ? inside->second : 0});
    inside = CallSite(&inlined, chain.cu);
  }
  if (!inside) return std::nullopt;
  location.file = std::move(inside->first);
  location.line = inside->second;
  return location;
}

std::optional<SymbolHit> ModuleDebugInfo::Lookup(const std::vector<Symbol>& symbols, uint64_t vaddr) {
  auto after = std::upper_bound(symbols.begin(), symbols.end(), vaddr,
                                [](uint64_t address, const Symbol& s) { return address < s.start; });
  // The innermost symbol that holds the address; a symbol of size 0 holds only its start. A few
  // steps back are enough: symbols rarely nest, and a deep search would cost every lookup.
  for (int steps = 0; after != symbols.begin() && steps < 16; ++steps) {
    const Symbol& s = *--after;
    if (vaddr - s.start < std::max<uint64_t>(s.size, 1)) return SymbolHit{s.name, vaddr - s.start};
  }
  return std::nullopt;
}

std::optional<SymbolHit> ModuleDebugInfo::FunctionAt(uint64_t vaddr) const { return Lookup(functions_, vaddr); }

std::optional<SymbolHit> ModuleDebugInfo::ObjectAt(uint64_t vaddr) const { return Lookup(objects_, vaddr); }

DebugInfoCache& DebugInfoCache::Instance() {
  static DebugInfoCache cache;
  return cache;
}

std::shared_ptr<const ModuleDebugInfo> DebugInfoCache::Get(int fd, const std::string& path) {
  struct stat info{};
  if (fd < 0 || fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return nullptr;
  const FileIdentity identity{static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino), info.st_size,
                              info.st_mtim.tv_sec * 1'000'000'000 + info.st_mtim.tv_nsec};
  if (auto found = entries_.find(identity); found != entries_.end()) return found->second.info;
  if (entries_.size() >= kCapacity) {
    auto oldest = std::min_element(entries_.begin(), entries_.end(),
                                   [](const auto& a, const auto& b) { return a.second.added < b.second.added; });
    entries_.erase(oldest);
  }
  std::shared_ptr<const ModuleDebugInfo> module = ModuleDebugInfo::Open(fd, path);
  entries_[identity] = {module, ++added_};
  return module;
}

}  // namespace chess::supervisor
