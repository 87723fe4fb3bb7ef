#include "supervisor/instruction_scan.h"
#include "supervisor/proc_maps.h"

#include <algorithm>
#include <cstdio>

#include "supervisor/code/elf_file.h"

namespace chess::supervisor {
namespace {

// Function symbols sorted by address, to name the function around a site.
std::vector<code::FunctionSymbol> SortedFunctionSymbols(std::string_view bytes) {
  std::vector<code::FunctionSymbol> symbols = code::FunctionSymbols(bytes);
  std::sort(symbols.begin(), symbols.end(),
            [](const code::FunctionSymbol& a, const code::FunctionSymbol& b) { return a.start < b.start; });
  return symbols;
}

std::string FunctionAt(const std::vector<code::FunctionSymbol>& symbols, uint64_t address) {
  auto after = std::upper_bound(symbols.begin(), symbols.end(), address,
                                [](uint64_t value, const code::FunctionSymbol& s) { return value < s.start; });
  if (after == symbols.begin()) return {};
  const code::FunctionSymbol& symbol = *std::prev(after);
  if (symbol.size != 0 && address >= symbol.start + symbol.size) return {};
  return symbol.name;
}

}  // namespace

std::vector<InstructionSite> FindUntrappableInstructions(const std::string& path) {
  std::vector<InstructionSite> sites;
  const std::optional<code::ElfFile> file = code::ElfFile::Read(path);
  if (!file) return sites;
  std::vector<code::FunctionSymbol> symbols;
  bool symbols_read = false;
  for (const code::ExecutableSegment& segment : file->executable_segments()) {
    const std::string_view bytes = *file->CodeAt(segment.address, segment.size);
    // 0F C7 with a register operand: reg field 6 is rdrand, 7 rdseed (F3 0F C7 /7 is rdpid).
    for (uint64_t at = 0; at + 3 <= bytes.size(); ++at) {
      if (static_cast<uint8_t>(bytes[at]) != 0x0f || static_cast<uint8_t>(bytes[at + 1]) != 0xc7) continue;
      const auto modrm = static_cast<uint8_t>(bytes[at + 2]);
      if ((modrm & 0xc0) != 0xc0) continue;
      const unsigned reg = (modrm >> 3) & 7;
      if (reg != 6 && reg != 7) continue;
      uint64_t start = at;
      if (start > 0 && (static_cast<uint8_t>(bytes[start - 1]) & 0xf0) == 0x40) --start;  // REX
      const uint8_t prefix = start > 0 ? static_cast<uint8_t>(bytes[start - 1]) : 0;
      if (reg == 7 && prefix == 0xf3) continue;
      if (!symbols_read) {
        symbols = SortedFunctionSymbols(file->bytes());
        symbols_read = true;
      }
      InstructionSite site;
      site.file = path;
      site.address = segment.address + start;
      site.instruction = reg == 6 ? "rdrand" : "rdseed";
      site.function = FunctionAt(symbols, site.address);
      sites.push_back(std::move(site));
    }
  }
  return sites;
}

std::vector<std::string> ExecutableFiles(pid_t tid) {
  std::vector<std::string> files;
  for (const MapsEntry& mapping : ReadMaps(tid)) {
    if (!mapping.executable || !mapping.IsFile()) continue;
    if (std::find(files.begin(), files.end(), mapping.path) == files.end()) files.push_back(mapping.path);
  }
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
