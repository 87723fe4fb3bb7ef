// Names a tracee's addresses for reports: a code address as its function, file and line; a data
// address as the variable that holds it ("acct+40 (bank_transfer)"). A ProcessSymbols reads one
// process's mappings once; the files' symbols and debug information come from DebugInfoCache,
// read once per file for the life of chess-trace.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "supervisor/report/backtrace.h"
#include "supervisor/report/debug_info.h"

namespace chess::supervisor {

// A variable of a module's data: `symbol`+`offset` in `module` (basename of the file).
struct DataSymbol {
  std::string symbol;
  uint64_t offset = 0;
  std::string module;
};

// "acct+40 (bank_transfer)", "balance_lock (atomicity_buggy)": offsets in decimal, as GDB
// writes them for data (a field's byte offset reads better so).
std::string FormatDataSymbol(const DataSymbol& data);

class ProcessSymbols {
 public:
  // Reads /proc/TID/maps now; `tid` is any live thread of the process (the leader may be gone,
  // and a gone leader's maps read empty). It is also the thread whose view of the file system
  // the files are opened in (/proc/TID/root: the program may have a private /tmp).
  explicit ProcessSymbols(pid_t tid);

  // The module of a frame's pc and its offset there (module, module_offset).
  void Locate(StackFrame& frame) const;
  // What the debug information adds to a located frame: its source file and line, and its
  // function when the unwinder had no name for it (a stripped library whose debug file is
  // installed). A return address is looked up one byte back, in the call instruction.
  void Complete(StackFrame& frame);
  // A code address that is not on a stack (a point's syscall instruction): located and completed.
  StackFrame Code(uint64_t pc);
  // The variable of a module's data (.data, .bss, .rodata) that holds `address`; nothing for
  // the heap, a stack, or memory no symbol covers.
  std::optional<DataSymbol> Data(uint64_t address);
  // FormatDataSymbol of Data(address), or the address in hex.
  std::string NameData(uint64_t address);

 private:
  struct Mapping {
    uint64_t start = 0;
    uint64_t end = 0;
    uint64_t file_offset = 0;
    uint64_t inode = 0;    // 0: anonymous memory ([heap], a thread's stack, a .bss tail)
    std::string path;      // as the program sees it, or a pseudo-name such as "[vdso]"
    std::string name;      // its basename
  };
  struct Module {
    bool opened = false;
    std::shared_ptr<const ModuleDebugInfo> info;
    uint64_t bias = 0;  // where the process has it minus where the file says
  };

  const Mapping* MappingAt(uint64_t address) const;
  // The module mapped by `mapping` with its bias, read on first use; null without symbols.
  Module* ModuleOf(const Mapping& mapping);

  pid_t tid_;
  std::vector<Mapping> mappings_;  // ascending
  std::map<std::pair<uint64_t, std::string>, Module> modules_;  // by inode and path
};

// The ProcessSymbols of every process one report looks at, each read once.
class Symbolizer {
 public:
  // Process `tgid`, read through its live thread `tid` the first time.
  ProcessSymbols& Process(pid_t tgid, pid_t tid);

 private:
  std::map<pid_t, std::unique_ptr<ProcessSymbols>> processes_;
};

}  // namespace chess::supervisor
