#include "supervisor/instruction_scan.h"

#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace chess::supervisor {
namespace {

template <typename T>
bool ReadAt(const std::string& bytes, uint64_t offset, T* value) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(value, bytes.data() + offset, sizeof(T));
  return true;
}

struct Symbol {
  uint64_t start;
  uint64_t size;
  std::string name;
};

// Function symbols of .symtab and .dynsym, sorted by address.
std::vector<Symbol> FunctionSymbols(const std::string& bytes, const Elf64_Ehdr& header) {
  std::vector<Symbol> symbols;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section{};
    if (!ReadAt(bytes, header.e_shoff + uint64_t{i} * header.e_shentsize, &section)) break;
    if ((section.sh_type != SHT_SYMTAB && section.sh_type != SHT_DYNSYM) || section.sh_entsize != sizeof(Elf64_Sym)) {
      continue;
    }
    Elf64_Shdr strings{};
    if (!ReadAt(bytes, header.e_shoff + uint64_t{section.sh_link} * header.e_shentsize, &strings)) continue;
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= section.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol{};
      if (!ReadAt(bytes, section.sh_offset + at, &symbol)) break;
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0) continue;
      const uint64_t name_at = strings.sh_offset + symbol.st_name;
      if (name_at >= bytes.size()) continue;
      const char* name = bytes.data() + name_at;
      symbols.push_back({symbol.st_value, symbol.st_size, std::string(name, strnlen(name, bytes.size() - name_at))});
    }
  }
  std::sort(symbols.begin(), symbols.end(), [](const Symbol& a, const Symbol& b) { return a.start < b.start; });
  return symbols;
}

std::string FunctionAt(const std::vector<Symbol>& symbols, uint64_t address) {
  auto after = std::upper_bound(symbols.begin(), symbols.end(), address,
                                [](uint64_t value, const Symbol& s) { return value < s.start; });
  if (after == symbols.begin()) return {};
  const Symbol& symbol = *std::prev(after);
  if (symbol.size != 0 && address >= symbol.start + symbol.size) return {};
  return symbol.name;
}

}  // namespace

std::vector<InstructionSite> FindUntrappableInstructions(const std::string& path) {
  std::vector<InstructionSite> sites;
  std::ifstream file(path, std::ios::binary);
  if (!file) return sites;
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Elf64_Ehdr header{};
  if (!ReadAt(bytes, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr)) {
    return sites;
  }
  std::vector<Symbol> symbols;
  bool symbols_read = false;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!ReadAt(bytes, header.e_phoff + uint64_t{i} * sizeof(Elf64_Phdr), &segment)) break;
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0 || segment.p_offset >= bytes.size()) continue;
    const uint64_t end = std::min<uint64_t>(bytes.size(), segment.p_offset + segment.p_filesz);
    // 0F C7 with a register operand: reg field 6 is rdrand, 7 rdseed (F3 0F C7 /7 is rdpid).
    for (uint64_t at = segment.p_offset; at + 3 <= end; ++at) {
      if (static_cast<uint8_t>(bytes[at]) != 0x0f || static_cast<uint8_t>(bytes[at + 1]) != 0xc7) continue;
      const auto modrm = static_cast<uint8_t>(bytes[at + 2]);
      if ((modrm & 0xc0) != 0xc0) continue;
      const unsigned reg = (modrm >> 3) & 7;
      if (reg != 6 && reg != 7) continue;
      uint64_t start = at;
      if (start > segment.p_offset && (static_cast<uint8_t>(bytes[start - 1]) & 0xf0) == 0x40) --start;  // REX
      const uint8_t prefix = start > segment.p_offset ? static_cast<uint8_t>(bytes[start - 1]) : 0;
      if (reg == 7 && prefix == 0xf3) continue;
      if (!symbols_read) {
        symbols = FunctionSymbols(bytes, header);
        symbols_read = true;
      }
      InstructionSite site;
      site.file = path;
      site.address = segment.p_vaddr + (start - segment.p_offset);
      site.instruction = reg == 6 ? "rdrand" : "rdseed";
      site.function = FunctionAt(symbols, site.address);
      sites.push_back(std::move(site));
    }
  }
  return sites;
}

std::vector<std::string> ExecutableFiles(pid_t tid) {
  std::vector<std::string> files;
  const std::string path = "/proc/" + std::to_string(tid) + "/maps";
  FILE* maps = std::fopen(path.c_str(), "re");
  if (maps == nullptr) return files;
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, maps) > 0) {
    char permissions[8] = {};
    int name_at = 0;
    if (std::sscanf(line, "%*x-%*x %7s %*s %*s %*s %n", permissions, &name_at) < 1 || name_at == 0) continue;
    std::string file(line + name_at);
    while (!file.empty() && (file.back() == '\n' || file.back() == ' ')) file.pop_back();
    if (permissions[2] != 'x' || file.empty() || file.front() != '/') continue;
    if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
  }
  std::free(line);
  std::fclose(maps);
  return files;
}

std::vector<std::string> UntrappableSites::Of(pid_t tid) {
  std::vector<std::string> lines;
  // The files as the tree sees them (its mount namespace, its /tmp).
  const std::string root = "/proc/" + std::to_string(tid) + "/root";
  for (const std::string& file : ExecutableFiles(tid)) {
    auto cached = scanned_.find(file);
    if (cached == scanned_.end()) {
      std::vector<std::string> found;
      for (const InstructionSite& site : FindUntrappableInstructions(root + file)) {
        char address[32];
        std::snprintf(address, sizeof(address), "0x%llx", static_cast<unsigned long long>(site.address));
        found.push_back(site.instruction + " at " + file + ":" + address +
                        (site.function.empty() ? "" : " in " + site.function));
      }
      cached = scanned_.emplace(file, std::move(found)).first;
    }
    lines.insert(lines.end(), cached->second.begin(), cached->second.end());
  }
  return lines;
}

}  // namespace chess::supervisor
