#include "supervisor/backtrace.h"

#include <cxxabi.h>
#include <libunwind-ptrace.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <utility>

namespace chess::supervisor {
namespace {

struct Mapping {
  uint64_t start;
  uint64_t end;
  uint64_t file_offset;
  std::string file;
};

std::vector<Mapping> ReadMappings(pid_t tid) {
  std::vector<Mapping> mappings;
  const std::string path = "/proc/" + std::to_string(tid) + "/maps";
  FILE* maps = std::fopen(path.c_str(), "re");
  if (maps == nullptr) return mappings;
  char line[4096];
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    uint64_t start = 0, end = 0, file_offset = 0;
    int name_at = 0;
    if (std::sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &start, &end, &file_offset,
                    &name_at) < 3) {
      continue;
    }
    std::string file = name_at > 0 ? std::string(line + name_at) : std::string();
    while (!file.empty() && (file.back() == '\n' || file.back() == ' ')) file.pop_back();
    if (const size_t slash = file.rfind('/'); slash != std::string::npos) file = file.substr(slash + 1);
    mappings.push_back({start, end, file_offset, file});
  }
  std::fclose(maps);
  return mappings;
}

const Mapping* MappingOf(const std::vector<Mapping>& mappings, uint64_t pc) {
  for (const Mapping& m : mappings) {
    if (pc >= m.start && pc < m.end) return &m;
  }
  return nullptr;
}

std::string Demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(name);
}

unw_addr_space_t AddressSpace() {
  // One address space for the whole run. Caching is off: tracees exec and map new code, and a
  // stale cache would symbolize frames against the previous image.
  static unw_addr_space_t space = [] {
    unw_addr_space_t created = unw_create_addr_space(&_UPT_accessors, 0);
    if (created != nullptr) unw_set_caching_policy(created, UNW_CACHE_NONE);
    return created;
  }();
  return space;
}

}  // namespace

std::vector<StackFrame> CaptureBacktrace(pid_t tid, size_t max_frames) {
  std::vector<StackFrame> frames;
  unw_addr_space_t space = AddressSpace();
  if (space == nullptr) return frames;
  void* context = _UPT_create(tid);
  if (context == nullptr) return frames;
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, space, context) == 0) {
    const std::vector<Mapping> mappings = ReadMappings(tid);
    std::set<std::pair<unw_word_t, unw_word_t>> seen;
    do {
      unw_word_t pc = 0, sp = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0) break;
      unw_get_reg(&cursor, UNW_REG_SP, &sp);
      if (!seen.insert({pc, sp}).second) break;  // a loop in a corrupt stack
      StackFrame frame;
      frame.pc = pc;
      const Mapping* mapping = MappingOf(mappings, pc);
      if (mapping != nullptr) {
        frame.module = mapping->file;
        frame.module_offset = pc - mapping->start + mapping->file_offset;
      }
      char name[512];
      unw_word_t offset = 0;
      unw_proc_info_t procedure{};
      // In a stripped library the nearest symbol may belong to another function: trust the name
      // only when it starts where the unwind tables say this function starts.
      // (For return addresses libunwind looks up pc - 1, so the offset may be one short.)
      if (unw_get_proc_name(&cursor, name, sizeof(name), &offset) == 0 &&
          (unw_get_proc_info(&cursor, &procedure) != 0 || procedure.start_ip == pc - offset ||
           procedure.start_ip + 1 == pc - offset)) {
        frame.function = Demangle(name);
        frame.offset = offset;
      }
      frames.push_back(std::move(frame));
    } while (frames.size() < max_frames && unw_step(&cursor) > 0);
  }
  _UPT_destroy(context);
  return frames;
}

std::string FormatFrame(const StackFrame& frame) {
  char text[64];
  std::string result;
  if (!frame.function.empty()) {
    std::snprintf(text, sizeof(text), "+0x%" PRIx64, frame.offset);
    result = frame.function + text;
    return result + " (" + (frame.module.empty() ? "?" : frame.module) + ")";
  }
  if (!frame.module.empty()) {
    std::snprintf(text, sizeof(text), "+0x%" PRIx64, frame.module_offset);
    return "?? (" + frame.module + text + ")";
  }
  std::snprintf(text, sizeof(text), "0x%" PRIx64, frame.pc);
  return std::string(text) + " (?)";
}

}  // namespace chess::supervisor
