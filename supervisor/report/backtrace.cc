#include "supervisor/report/backtrace.h"

#include <libunwind-ptrace.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>

#include "supervisor/report/symbolizer.h"

namespace chess::supervisor {
namespace {

unw_addr_space_t AddressSpace() {
  // One address space serves every tracee. Caching is off because a cache is keyed by address
  // alone, and here the same address holds different code over time and across processes: two
  // non-PIE programs both start at 0x401000, and a tracee may exec or dlclose and map something
  // else there. Backtraces are taken for reports only, so the cache would buy little anyway.
  static unw_addr_space_t space = [] {
    unw_addr_space_t created = unw_create_addr_space(&_UPT_accessors, 0);
    if (created != nullptr) unw_set_caching_policy(created, UNW_CACHE_NONE);
    return created;
  }();
  return space;
}

// The symbol covering the cursor's frame. For return addresses libunwind looks up pc - 1 and
// adds the 1 back to the offset (a call can be a function's last instruction, so pc may already
// be the next function), but not for the innermost or a signal-interrupted frame, whose pc is
// exact: a blanket pc - 1 here would be wrong for those.
bool ProcName(unw_cursor_t* cursor, std::string* name, unw_word_t* offset) {
  // Template-heavy C++ names run to kilobytes; a truncated mangled name does not demangle.
  for (size_t size : {size_t{1024}, size_t{65536}}) {
    std::string buffer(size, '\0');
    const int status = unw_get_proc_name(cursor, buffer.data(), buffer.size(), offset);
    if (status == 0 || (status == -UNW_ENOMEM && size == 65536)) {
      buffer.resize(buffer.find('\0'));
      *name = std::move(buffer);
      return !name->empty();
    }
    if (status != -UNW_ENOMEM) return false;
  }
  return false;
}

// The name comes from the nearest preceding symbol, and a stripped library keeps only its
// exported ones, so an internal function would be reported under a neighbour's name (libc's
// __libc_start_call_main as __libc_init_first). Where unwind tables exist they say where the
// function really starts; a name is trusted only if its symbol starts there too.
bool SymbolMatchesUnwindInfo(unw_cursor_t* cursor, uint64_t pc, uint64_t offset) {
  unw_proc_info_t info{};
  if (unw_get_proc_info(cursor, &info) != 0) return true;
  // Without unwind info for the pc (a plain -static binary has no .eh_frame_hdr), libunwind
  // reports a one-byte procedure at the pc itself rather than an error: nothing contradicts the
  // symbol then.
  if (info.start_ip == pc && info.end_ip == pc + 1) return true;
  return info.start_ip == pc - offset;
}

}  // namespace

std::vector<StackFrame> CaptureBacktrace(pid_t tid, ProcessSymbols& symbols, size_t max_frames) {
  std::vector<StackFrame> frames;
  if (max_frames == 0 || tid <= 0) return frames;
  unw_addr_space_t space = AddressSpace();
  if (space == nullptr) return frames;
  void* context = _UPT_create(tid);
  if (context == nullptr) return frames;
  unw_cursor_t cursor;
  // Fails (reading the registers) when tid is gone or not in a ptrace-stop of ours.
  if (unw_init_remote(&cursor, space, context) == 0) {
    std::vector<std::pair<unw_word_t, unw_word_t>> seen;
    bool exact = true;  // the innermost frame's pc is the instruction it stopped at
    while (frames.size() < max_frames) {
      unw_word_t pc = 0, sp = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0) break;
      if (unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0) sp = 0;
      // A corrupt stack can lead libunwind around a cycle; the same frame twice means one.
      if (std::find(seen.begin(), seen.end(), std::pair(pc, sp)) != seen.end()) break;
      seen.emplace_back(pc, sp);

      StackFrame frame;
      frame.pc = pc;
      frame.return_address = !exact;
      symbols.Locate(frame);
      std::string name;
      unw_word_t offset = 0;
      if (ProcName(&cursor, &name, &offset) && offset <= pc &&
          SymbolMatchesUnwindInfo(&cursor, pc, offset)) {
        frame.function = Demangle(name);
        frame.offset = offset;
      }
      symbols.Complete(frame);
      frames.push_back(std::move(frame));
      // The frame a signal interrupted (the one the signal trampoline's frame returns to) was
      // stopped at its pc, not called from it.
      exact = unw_is_signal_frame(&cursor) > 0;
      if (unw_step(&cursor) <= 0) break;
    }
  }
  _UPT_destroy(context);
  return frames;
}

std::vector<StackFrame> CaptureBacktrace(pid_t tid, size_t max_frames) {
  ProcessSymbols symbols(tid);
  return CaptureBacktrace(tid, symbols, max_frames);
}

bool InRuntime(const StackFrame& frame) {
  for (const char* runtime : {"libc.so", "ld-linux", "libpthread.so", "libstdc++.so", "libgcc_s.so"}) {
    if (frame.module.rfind(runtime, 0) == 0) return true;
  }
  return false;
}

std::string FormatFrame(const StackFrame& frame) {
  char text[64];
  std::string formatted;
  if (!frame.function.empty()) {
    std::snprintf(text, sizeof(text), "+0x%" PRIx64, frame.offset);
    formatted = frame.function + text + " (" + (frame.module.empty() ? "?" : frame.module) + ")";
  } else if (!frame.module.empty()) {
    std::snprintf(text, sizeof(text), "+0x%" PRIx64, frame.module_offset);
    formatted = "?? (" + frame.module + text + ")";
  } else {
    std::snprintf(text, sizeof(text), "0x%" PRIx64, frame.pc);
    formatted = std::string(text) + " (?)";
  }
  auto basename = [](const std::string& path) { return path.substr(path.rfind('/') + 1); };
  if (!frame.file.empty() && frame.line > 0) {
    formatted += " at " + basename(frame.file) + ":" + std::to_string(frame.line);
  }
  // The program's own inlined helper says where the frame really is; the inside of an inlined
  // std::mutex::lock or of the runtime's own helpers would only be noise.
  for (const InlinedFunction& inlined : InRuntime(frame) ? std::vector<InlinedFunction>() : frame.inlined) {
    if (inlined.file.empty() || inlined.line <= 0 || inlined.file.rfind("/usr/", 0) == 0) continue;
    formatted += " → " + inlined.function + " at " + basename(inlined.file) + ":" + std::to_string(inlined.line) +
                 " (inlined)";
    break;
  }
  return formatted;
}

}  // namespace chess::supervisor
