// Instructions chess-trace cannot trap here: rdrand and rdseed return fresh randomness without
// a syscall and, unlike rdtsc, no control register makes them fault. --check-determinism names
// where they could run by scanning the executable segments of every file the program mapped.
// It is a byte scan: it finds each encoding wherever it lies in code, so a site may be bytes
// that are never executed as that instruction (a candidate, not a proof).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace chess::supervisor {

struct InstructionSite {
  std::string file;         // as mapped
  uint64_t address = 0;     // the instruction's virtual address in the file's own numbering
  std::string instruction;  // "rdrand" or "rdseed"
  std::string function;     // the symbol around it, when the file names one
};

// Every rdrand and rdseed encoding in the executable segments of the ELF file at `path`.
std::vector<InstructionSite> FindUntrappableInstructions(const std::string& path);

// The files `tid`'s process has mapped executable (full paths), in mapping order.
std::vector<std::string> ExecutableFiles(pid_t tid);

// The rdrand and rdseed sites in what a process has mapped, for --check-determinism's report.
class UntrappableSites {
 public:
  // One line per site in what `tid`'s process has mapped ("rdrand at /lib/x.so:0x1234 in f").
  std::vector<std::string> Of(pid_t tid);

 private:
  std::map<std::string, std::vector<std::string>> scanned_;  // each file's lines, scanned once
};

}  // namespace chess::supervisor
