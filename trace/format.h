// The trace file format (docs/trace-format.md): what a recorded execution is made of. A trace
// is a small header, a zstd frame holding a stream of typed records, and a trailer with the
// length of that stream and a checksum of the file; the header and the trailer are zstd
// skippable frames (trace/container.h), so the whole file is a zstd file.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/atomic_points.h"
#include "search/fnv1a.h"
#include "search/outcome.h"
#include "search/output_oracle.h"
#include "search/replay_strategy.h"

namespace chess::trace {

inline constexpr char kMagic[8] = {'C', 'H', 'E', 'S', 'S', 'T', 'R', 'C'};
inline constexpr char kTrailerMagic[8] = {'C', 'H', 'E', 'S', 'S', 'E', 'N', 'D'};
// 2: the header and the trailer are zstd skippable frames (a trace is a zstd file), and the
// object-name and standard-descriptors records exist. 3: atomic points — the atomic-sites
// record, and decisions that name the instruction a thread stopped before. 4: race points — the
// options' race_points byte, the race-sites record, and decisions at racy accesses. 1 to 3 are
// still read; a reader of 3 refuses a 4 by its version rather than calling its new records damage.
// 5: the oracle record (docs/oracles.md) and the wrong-output outcome.
inline constexpr uint16_t kFormatVersion = 5;
// The first format with atomic points.
inline constexpr uint16_t kFirstAtomicFormat = 3;
// The first format with race points.
inline constexpr uint16_t kFirstRaceFormat = 4;
// The first format with output oracles.
inline constexpr uint16_t kFirstOracleFormat = 5;
// The longest string a record may hold (an argument, a variable, a message, a report); the
// reader refuses longer ones, and the writer cuts what it writes to fit.
inline constexpr size_t kMaxRecordString = size_t{1} << 20;
// The trailer: its magic, the length of the record stream, and FNV-1a 64 of every byte of the
// file before the trailer (header and compressed frame), so that any change to the file is seen.
inline constexpr size_t kTrailerSize = 8 + 8 + 8;

enum class RecordType : uint8_t {
  kCommand = 1,      // what ran: path, argv, cwd, the whole environment
  kOptions = 2,      // what shaped the execution: strategy, seed, epoch, isolation…
  kThread = 3,       // a thread appeared: logical id, pid and tid as the program saw them
  kDecision = 4,     // a scheduling decision: who stopped where, and who ran next
  kRepeat = 5,       // the previous decision record, repeated (a run of the same situation)
  kOutsideWait = 6,  // real time waited on the outside world before a decision (moves virtual time)
  kOutcome = 7,      // how the execution ended
  kEnd = 8,          // the number of records before it: the stream is complete
  kStandardInput = 9,  // what the program's stdin held, when it was not a terminal
  kObjectName = 10,    // the variable at the address a sync operation worked on
  kStandardDescriptors = 11,  // what the program's descriptors 0, 1 and 2 were: kinds, sharing, sizes
  kAtomicSites = 12,   // the atomic instructions a search made points, and its cap per execution
  kRaceSites = 13,     // the plain memory-access instructions a search found racing and made points
  kOracle = 14,        // how the output was judged: --expect-exit, --fail-on-output, --expect-stdout
};
inline constexpr uint8_t kLastRecordType = static_cast<uint8_t>(RecordType::kOracle);
// The most files an oracle record may hold (--output-file).
inline constexpr size_t kMaxOracleFiles = 64;
// The longest name an object-name record may hold (a demangled C++ name and its module).
inline constexpr size_t kMaxObjectName = 4096;
// The longest module path an atomic site may name, and the most sites a record may hold.
inline constexpr size_t kMaxSiteModule = 4096;
inline constexpr size_t kMaxAtomicSites = size_t{1} << 22;

struct Command {
  std::string path;  // the executable as resolved
  std::vector<std::string> argv;
  std::string cwd;
  std::vector<std::string> env;
};

struct Options {
  std::string strategy;             // "non-preemptive"
  uint64_t seed = 0;
  std::optional<int64_t> epoch;     // nanoseconds since 1970; empty: real time
  uint64_t isolation = 0;           // CLONE_NEW* flags the run had
  uint64_t slice_nanos = 0;
  bool io_points = false;
  bool sync_points = false;         // the preload shim made sync operations points
  uint64_t visible_cpus = 0;        // the CPU count the program saw
  // Atomic instructions were points (--sync-points atomics): the sites are the atomic-sites
  // record's, or, without one, every one the execution met (it learned them and parked at none).
  bool atomic_points = false;
  // Data races were looked for and the racing instructions were points (--sync-points races):
  // the racing instructions are the race-sites record's (none without one), or, in a trace of
  // the execution that looked for them (no atomic-sites record), none: it parked at none.
  bool race_points = false;
};

// The program's standard input: read whole before the run (supervisor/world/standard_input.h), and
// given again, the same way, to a replay.
struct StandardInput {
  enum class Kind : uint8_t { kInherited = 0, kPipe = 1, kFile = 2, kClosed = 3 };
  Kind kind = Kind::kInherited;
  std::string bytes;
};
inline constexpr uint8_t kLastInputKind = static_cast<uint8_t>(StandardInput::Kind::kClosed);

// What one of the program's descriptors 0, 1 and 2 was when it started. Programs ask (isatty,
// fstat, the window size) and take other paths for a terminal, a pipe or a file — C stdio
// buffers by line on a terminal, CPython takes other locks — so a replay gives the program
// descriptors of the same kinds (supervisor/world/descriptor_stand_ins.h).
struct StandardDescriptor {
  enum class Kind : uint8_t {
    kClosed = 0,
    kFile = 1,      // a regular file (explore's captured output is one)
    kPipe = 2,      // a pipe or a FIFO
    kTerminal = 3,  // a terminal, with its window size
    kSocket = 4,
    kDevice = 5,    // a character device that is no terminal (/dev/null is 1:3)
    kOther = 6,     // anything else: a directory, a block device
  };
  Kind kind = Kind::kClosed;
  // The lowest descriptor before this one that is the same file (the same terminal, pipe or
  // file), and the lowest that is the same open file description (one offset, one set of
  // flags: what a shell's 2>&1 makes, and what makes two streams interleave in one order);
  // -1: none.
  int8_t same_file_as = -1;
  int8_t same_description_as = -1;
  // kTerminal: its window size, as TIOCGWINSZ gives it.
  uint16_t rows = 0;
  uint16_t columns = 0;
  uint16_t x_pixels = 0;
  uint16_t y_pixels = 0;
  // kDevice: its device number.
  uint32_t major = 0;
  uint32_t minor = 0;

  bool operator==(const StandardDescriptor&) const = default;
};
inline constexpr uint8_t kLastDescriptorKind = static_cast<uint8_t>(StandardDescriptor::Kind::kOther);
using StandardDescriptors = std::array<StandardDescriptor, 3>;

struct ThreadInfo {
  search::ThreadId thread;
  int64_t pid = 0;
  int64_t tid = 0;
};

// What a process's sync operations worked on at `address`: the variable `name` of one of its
// modules ("balance_lock (atomicity_buggy)"), so that `show` can say which lock a thread took.
struct ObjectName {
  int64_t pid = 0;  // as the program saw it
  uint64_t address = 0;
  std::string name;
};

struct OutsideWait {
  uint64_t decision = 0;  // the decision it came before
  int64_t nanos = 0;
};

struct Outcome {
  search::Outcome outcome = search::Outcome::kError;
  std::optional<int64_t> exit_status;
  std::optional<int64_t> signal;
  std::string message;
  uint64_t scheduling_points = 0;
  int64_t virtual_nanos = 0;
  std::string report;  // every thread's state and stack at the end, as run printed them
};

// The oracle an execution's output was judged by (explore's --fail-on-output, --expect-stdout),
// so that `replay` judges the same way; with the --expect-exit that made its exit `ok`.
struct Oracle {
  int64_t expect_exit = 0;
  search::OutputOracleSpec output;
  bool operator==(const Oracle&) const = default;
};

// A whole trace, decoded.
struct Trace {
  uint16_t format_version = kFormatVersion;
  std::string tool_version;
  Command command;
  Options options;
  std::optional<StandardInput> standard_input;  // empty: not recorded (an older trace)
  std::optional<StandardDescriptors> standard_descriptors;  // empty: not recorded (an older trace)
  std::vector<ThreadInfo> threads;
  std::vector<search::RecordedDecision> decisions;
  std::vector<OutsideWait> outside_waits;
  std::vector<ObjectName> object_names;  // empty in traces written before they were recorded
  // The sites a search parked at (a kPoints plan; its race_sites from the race-sites record);
  // empty: none recorded (no atomic points, or an execution that learned them).
  std::optional<search::AtomicPointPlan> atomic_points;
  std::optional<Oracle> oracle;    // empty: judged by how it ended only
  std::optional<Outcome> outcome;  // empty: the run was cut short before it ended
};

// FNV-1a, 64 bits: the trailer's checksum of the bytes before it.
using search::Fnv1a64;

}  // namespace chess::trace
