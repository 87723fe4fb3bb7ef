#include "cli/divergence_report.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "search/replay_strategy.h"
#include "supervisor/world/isolation.h"

namespace chess::cli {
namespace {

bool Under(const std::string& path, const std::string& directory) {
  if (directory.empty()) return false;
  if (directory == "/") return true;
  return path == directory || (path.size() > directory.size() && path.compare(0, directory.size(), directory) == 0 &&
                               path[directory.size()] == '/');
}

// A path as a person reads it in a sentence about `directory`: relative when under it.
std::string Shown(const std::string& path, const std::string& directory) {
  if (Under(path, directory) && path.size() > directory.size()) return path.substr(directory.size() + 1);
  return path;
}

std::string Execution(uint64_t number) { return "execution " + std::to_string(number); }

// Which of its trapped syscalls a thread stopped at, when both executions' threads stopped in the
// same call (the same call, reached after another number of calls).
std::string PointIndex(const search::DivergencePoint& where) {
  if (!where.expected || !where.found_thread || where.expected->point.syscall != where.found_point.syscall) return {};
  return " (its point " + std::to_string(where.expected->point.index) + ")";
}

// What the replayed execution had at the decision where they parted.
std::string ExpectedThere(const search::DivergencePoint& where) {
  if (!where.expected) return "ended its schedule";
  if (!where.expected->current) return "no thread stopped";
  return "thread " + std::to_string(where.expected->current->value) + " stop " +
         search::DescribePoint(where.expected->point) + PointIndex(where);
}

// What the diverging execution had there instead: the call with its arguments when the thread
// stopped in a syscall.
std::string FoundThere(const search::PrunedBranch& branch) {
  const search::DivergencePoint& where = branch.where;
  if (!where.found_thread) return "no thread stopped";
  std::string at = search::DescribePoint(where.found_point);
  if (branch.stopped && !branch.stopped->call.empty() && where.found_point.op != search::OpKind::kSyncOp &&
      where.found_point.op != search::OpKind::kThreadStart && where.found_point.op != search::OpKind::kInterrupted) {
    at = "in " + branch.stopped->call;
  }
  const std::string index = PointIndex(where).empty() ? std::string()
                                                      : " (its point " + std::to_string(where.found_point.index) + ")";
  return "thread " + std::to_string(where.found_thread->value) + " stop " + at + index;
}

// "an earlier execution created it", from what each found at the name.
std::string WhatHappenedTo(const search::Difference& cause) {
  const bool was_absent = cause.expected && cause.expected->result == -ENOENT;
  const bool is_absent = cause.found.result == -ENOENT;
  if (was_absent && !is_absent) return "an earlier execution created it";
  if (!was_absent && is_absent) return "an earlier execution removed it";
  return "an earlier execution changed it";
}

// "thread 0's openat of tally.0.out found nothing there in execution 1, and a regular file of 16
// bytes in execution 3".
std::string DescribeCause(const search::PrunedBranch& branch, const search::Difference& cause,
                          const std::string& shown_path) {
  const search::SyscallEvent& found = cause.found;
  std::string text = "thread " + std::to_string(found.thread.value) + "'s " + search::NameSyscall(found.syscall) +
                     " of " + shown_path;
  if (!found.exit || !cause.expected || !cause.expected->exit) {
    // The calls themselves differed (a different name, or one more call).
    if (!cause.expected) return text + " was made in " + Execution(branch.execution) + " only";
    return text + " in " + Execution(branch.execution) + " where " + Execution(branch.replayed) + " made " +
           search::NameSyscall(cause.expected->syscall) + " of " + cause.expected->target;
  }
  return text + " found " + cause.expected->sample + " there in " + Execution(branch.replayed) + ", and " +
         found.sample + " in " + Execution(branch.execution);
}

std::string IsolateWith(uint64_t isolation, uint64_t add) { return "--isolate " + supervisor::IsolationName(isolation | add); }

}  // namespace

DivergenceCause ClassifyCause(const search::PrunedBranch& branch, const DivergenceContext& context) {
  DivergenceCause cause;
  const bool private_cwd = (context.isolation & supervisor::kPrivateCwd) != 0;
  const bool private_tmp = (context.isolation & supervisor::kPrivateTmp) != 0;
  // `cwd` comes last in an --isolate list, as IsolationName writes one.
  const std::string cwd_remedy = IsolateWith(context.isolation & ~supervisor::kPrivateCwd, CLONE_NEWNS) + ",cwd" +
                                 " (the working directory private to each execution: each sees it as it was "
                                 "when the search began)";
  if (branch.cause) {
    cause.path = branch.cause->found.target;
    const std::string happened = WhatHappenedTo(*branch.cause);
    if (Under(cause.path, context.cwd) && !private_cwd) {
      cause.kind = "working-directory";
      const std::string shown = Shown(cause.path, context.cwd);
      cause.explanation = DescribeCause(branch, *branch.cause, shown) + ": " + shown + " is in the working directory " +
                          context.cwd + ", which the executions share, and " + happened;
      cause.remedy = cwd_remedy;
    } else if (Under(cause.path, "/tmp") && !private_tmp) {
      cause.kind = "tmp";
      cause.explanation = DescribeCause(branch, *branch.cause, cause.path) +
                          ": /tmp is shared between executions (and with the machine), and " + happened;
      cause.remedy = IsolateWith(context.isolation, supervisor::kPrivateTmp | CLONE_NEWNS) +
                     " (a fresh, empty /tmp for each execution)";
    } else {
      cause.kind = "shared-file";
      cause.explanation = DescribeCause(branch, *branch.cause, cause.path) +
                          ": every execution sees that name (--isolate makes only /tmp and the working directory "
                          "private), and " + happened;
      cause.remedy = "have the program keep such files in its working directory or in /tmp, which --isolate can "
                     "make private, or remove them before each run";
    }
    return cause;
  }
  if (!context.cwd_changes.empty() && !private_cwd) {
    std::string changes;
    for (const std::string& change : context.cwd_changes) changes += (changes.empty() ? "" : ", ") + change;
    cause.kind = "working-directory";
    cause.path = context.cwd;
    cause.explanation = "no name the search watched differed, but the working directory " + context.cwd +
                        " changed while the search ran (" + changes +
                        "): a program that looks there (stat, access, an open without O_CREAT) finds what "
                        "earlier executions left";
    cause.remedy = cwd_remedy;
    return cause;
  }
  cause.explanation = "nothing the search watched differed (the files, directories and socket paths the program "
                      "created, removed or renamed)";
  cause.remedy = "chess-trace run --check-determinism 3 -- PROGRAM compares every syscall of two runs and names "
                 "what differs";
  return cause;
}

std::string PrunedBranchesText(const search::ExplorationResult& result, const DivergenceContext& context) {
  const std::vector<search::PrunedBranch>& branches = result.pruned_branches;
  if (branches.empty()) return {};
  const std::string which = result.coverage.pruned == 1 ? std::string("the pruned branch")
                            : branches.size() == 1     ? "the first of " + std::to_string(result.coverage.pruned)
                                                     : "the first " + std::to_string(branches.size()) + " of " +
                                                           std::to_string(result.coverage.pruned);
  std::string text = "  where the executions diverged (" + which +
                     (result.coverage.pruned == 1 ? "" : " pruned branches") + "):\n";
  std::string first_kind;
  std::string first_path;
  for (size_t i = 0; i < branches.size(); ++i) {
    const search::PrunedBranch& branch = branches[i];
    const DivergenceCause cause = ClassifyCause(branch, context);
    const std::string replaying = branch.replayed != 0 ? ", replaying " + Execution(branch.replayed) : "";
    if (!branch.where.expected && !branch.where.found_thread) {
      // Not at a decision: the backend said why (a fork that was not the execution asked for).
      text += "    " + Execution(branch.execution) + replaying + ", could not follow it: " + branch.where.message + "\n";
    } else {
      const std::string expected = ExpectedThere(branch.where);
      const std::string found = FoundThere(branch);
      text += "    " + Execution(branch.execution) + replaying + ", parted from it at decision " +
              std::to_string(branch.where.decision) + ": " +
              (branch.replayed != 0 ? Execution(branch.replayed) : "the recording") + " had " + expected + " there, " +
              Execution(branch.execution) + " had " + found + "\n";
      if (expected == found) text += "      (" + branch.where.message + ")\n";
    }
    if (i == 0) {
      if (branch.stopped) {
        for (size_t f = 0; f < branch.stopped->stack.size(); ++f) {
          text += "        #" + std::to_string(f) + " " + branch.stopped->stack[f] + "\n";
        }
      }
      first_kind = cause.kind;
      first_path = cause.path;
    } else if (cause.kind == first_kind && cause.path == first_path) {
      text += "      likely cause: the same\n";
      continue;
    }
    text += "      likely cause: " + cause.explanation + "\n";
    if (!cause.remedy.empty()) text += "      try: " + cause.remedy + "\n";
  }
  return text;
}

void WritePrunedBranches(JsonWriter& json, const search::ExplorationResult& result, const DivergenceContext& context) {
  json.Key("pruned_branches").BeginObject();
  json.Key("count").Int(static_cast<int64_t>(result.coverage.pruned));
  json.Key("described").BeginArray();
  for (const search::PrunedBranch& branch : result.pruned_branches) {
    const search::DivergencePoint& where = branch.where;
    json.BeginObject();
    json.Key("execution").Int(static_cast<int64_t>(branch.execution));
    json.Key("replayed").Int(static_cast<int64_t>(branch.replayed));
    json.Key("decision").Int(static_cast<int64_t>(where.decision));
    json.Key("message").String(where.message);
    json.Key("expected");
    if (where.expected && where.expected->current) {
      json.BeginObject();
      json.Key("thread").Int(where.expected->current->value);
      json.Key("at").String(search::DescribePoint(where.expected->point));
      json.EndObject();
    } else {
      json.Null();
    }
    json.Key("found");
    if (where.found_thread) {
      json.BeginObject();
      json.Key("thread").Int(where.found_thread->value);
      json.Key("at").String(search::DescribePoint(where.found_point));
      json.Key("call").String(branch.stopped ? branch.stopped->call : "");
      json.Key("stack").BeginArray();
      if (branch.stopped) {
        for (const std::string& frame : branch.stopped->stack) json.String(frame);
      }
      json.EndArray();
      json.EndObject();
    } else {
      json.Null();
    }
    const DivergenceCause cause = ClassifyCause(branch, context);
    json.Key("cause").BeginObject();
    json.Key("kind").String(cause.kind);
    json.Key("path").String(cause.path);
    if (branch.cause) {
      json.Key("thread").Int(branch.cause->found.thread.value);
      json.Key("call").String(search::NameSyscall(branch.cause->found.syscall));
      json.Key("in_replayed");
      if (branch.cause->expected && branch.cause->expected->exit) {
        json.String(branch.cause->expected->sample);
      } else {
        json.Null();
      }
      json.Key("in_execution");
      if (branch.cause->found.exit) {
        json.String(branch.cause->found.sample);
      } else {
        json.Null();
      }
    }
    json.Key("explanation").String(cause.explanation);
    json.Key("remedy").String(cause.remedy);
    json.EndObject();
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

DirectoryListing DirectoryListing::Take(const std::string& directory, size_t limit) {
  DirectoryListing listing;
  const int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* dir = fd >= 0 ? fdopendir(fd) : nullptr;
  if (dir == nullptr) {
    if (fd >= 0) close(fd);
    listing.complete_ = false;
    return listing;
  }
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (listing.entries_.size() >= limit) {
      listing.complete_ = false;
      break;
    }
    struct stat st{};
    Entry kept{name};
    if (fstatat(dirfd(dir), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      kept.type = st.st_mode & S_IFMT;
      kept.size = S_ISREG(st.st_mode) ? st.st_size : 0;
      kept.modified_nanos = st.st_mtim.tv_sec * 1'000'000'000 + st.st_mtim.tv_nsec;
    }
    listing.entries_.push_back(std::move(kept));
  }
  closedir(dir);
  std::sort(listing.entries_.begin(), listing.entries_.end(),
            [](const Entry& a, const Entry& b) { return a.name < b.name; });
  return listing;
}

std::vector<std::string> DirectoryListing::ChangesTo(const DirectoryListing& later, size_t most) const {
  // Two listings cut short by the limit would differ in what they left out: no changes claimed.
  std::vector<std::string> changes;
  if (!complete_ || !later.complete_) return changes;
  auto before = entries_.begin();
  auto after = later.entries_.begin();
  while ((before != entries_.end() || after != later.entries_.end()) && changes.size() < most) {
    if (after == later.entries_.end() || (before != entries_.end() && before->name < after->name)) {
      changes.push_back(before++->name + " removed");
    } else if (before == entries_.end() || after->name < before->name) {
      changes.push_back(after++->name + " created");
    } else {
      if (!(*before == *after)) changes.push_back(after->name + " changed");
      ++before;
      ++after;
    }
  }
  return changes;
}

}  // namespace chess::cli
