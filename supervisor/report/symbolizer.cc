#include "supervisor/report/symbolizer.h"
#include "supervisor/proc_maps.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace chess::supervisor {
namespace {

// A descriptor closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string FormatDataSymbol(const DataSymbol& data) {
  return data.symbol + (data.offset == 0 ? "" : "+" + std::to_string(data.offset)) + " (" + data.module + ")";
}

ProcessSymbols::ProcessSymbols(pid_t tid) : tid_(tid) {
  for (MapsEntry& entry : ReadMaps(tid)) {
    Mapping mapping;
    mapping.start = entry.start;
    mapping.end = entry.end;
    mapping.file_offset = entry.offset;
    mapping.inode = entry.inode;
    mapping.path = std::move(entry.path);
    mapping.name = mapping.path.substr(mapping.path.rfind('/') + 1);
    mappings_.push_back(std::move(mapping));
  }
}

const ProcessSymbols::Mapping* ProcessSymbols::MappingAt(uint64_t address) const {
  auto after = std::upper_bound(mappings_.begin(), mappings_.end(), address,
                                [](uint64_t a, const Mapping& m) { return a < m.start; });
  if (after == mappings_.begin()) return nullptr;
  const Mapping& mapping = *(after - 1);
  return address < mapping.end ? &mapping : nullptr;
}

ProcessSymbols::Module* ProcessSymbols::ModuleOf(const Mapping& mapping) {
  if (mapping.inode == 0 || mapping.path.empty() || mapping.path.front() != '/') return nullptr;
  Module& module = modules_[{mapping.inode, mapping.path}];
  if (module.opened) return module.info ? &module : nullptr;
  module.opened = true;
  // The mapped file itself, even if deleted or replaced since (needs CAP_SYS_ADMIN or
  // CAP_CHECKPOINT_RESTORE); else the path as the program sees it, if the inode is still the
  // mapped one (only the inode: overlayfs shows another device in stat than in the maps).
  char range[64];
  std::snprintf(range, sizeof(range), "/map_files/%" PRIx64 "-%" PRIx64, mapping.start, mapping.end);
  const std::string proc = "/proc/" + std::to_string(tid_);
  const std::string in_root = proc + "/root" + mapping.path;
  int fd = open((proc + range).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    fd = open(in_root.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info{};
    if (fd >= 0 && (fstat(fd, &info) != 0 || info.st_ino != mapping.inode)) {
      close(fd);
      fd = -1;
    }
  }
  const Fd file(fd);
  if (file.get() < 0) return nullptr;
  // Named by its path in the program's root: a .gnu_debuglink file is looked for beside it.
  module.info = DebugInfoCache::Instance().Get(file.get(), in_root);
  if (!module.info) return nullptr;
  // The bias from any mapping of the file that one segment was mapped for.
  for (const Mapping& m : mappings_) {
    if (m.inode != mapping.inode || m.path != mapping.path) continue;
    if (auto vaddr = module.info->MappedAddressOf(m.file_offset)) {
      module.bias = m.start - *vaddr;
      return &module;
    }
  }
  module.info.reset();
  return nullptr;
}

void ProcessSymbols::Locate(StackFrame& frame) const {
  if (const Mapping* mapping = MappingAt(frame.pc); mapping != nullptr && !mapping->name.empty()) {
    frame.module = mapping->name;
    frame.module_offset = frame.pc - mapping->start + mapping->file_offset;
  }
}

void ProcessSymbols::Complete(StackFrame& frame) {
  const Mapping* mapping = MappingAt(frame.pc);
  if (mapping == nullptr) return;
  Module* module = ModuleOf(*mapping);
  if (module == nullptr) return;
  // A return address follows the call: the call (and its line) is the byte before.
  const uint64_t back = frame.return_address ? 1 : 0;
  const uint64_t vaddr = frame.pc - module->bias - back;
  if (auto location = module->info->LocationAt(vaddr)) {
    frame.file = std::move(location->file);
    frame.line = location->line;
    frame.inlined = std::move(location->inlined);
  }
  if (frame.function.empty()) {
    if (auto function = module->info->FunctionAt(vaddr)) {
      frame.function = Demangle(function->name);
      frame.offset = function->offset + back;
    }
  }
}

StackFrame ProcessSymbols::Code(uint64_t pc) {
  StackFrame frame;
  frame.pc = pc;
  Locate(frame);
  Complete(frame);
  return frame;
}

std::optional<DataSymbol> ProcessSymbols::Data(uint64_t address) {
  const Mapping* mapping = MappingAt(address);
  if (mapping == nullptr) return std::nullopt;
  // A .bss that runs past the file's last page is anonymous memory right after the file's
  // mappings: it belongs to the module mapped just before it.
  if (mapping->inode == 0 && mapping->path.empty() && mapping != mappings_.data()) {
    const Mapping* before = mapping - 1;
    if (before->end == mapping->start && before->inode != 0) mapping = before;
  }
  Module* module = ModuleOf(*mapping);
  if (module == nullptr) return std::nullopt;
  const uint64_t vaddr = address - module->bias;
  if (!module->info->Covers(vaddr)) return std::nullopt;
  auto object = module->info->ObjectAt(vaddr);
  if (!object) return std::nullopt;
  return DataSymbol{Demangle(object->name), object->offset, mapping->name};
}

std::string ProcessSymbols::NameData(uint64_t address) {
  if (auto data = Data(address)) return FormatDataSymbol(*data);
  char text[24];
  std::snprintf(text, sizeof(text), "0x%" PRIx64, address);
  return text;
}

ProcessSymbols& Symbolizer::Process(pid_t tgid, pid_t tid) {
  std::unique_ptr<ProcessSymbols>& process = processes_[tgid];
  if (!process) process = std::make_unique<ProcessSymbols>(tid);
  return *process;
}

}  // namespace chess::supervisor
