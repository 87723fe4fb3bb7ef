#include "cli/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "search/branch_codec.h"
#include "search/byte_codec.h"
#include "search/fnv1a.h"
#include "supervisor/world/whole_io.h"

namespace chess::cli {
namespace {

constexpr char kMagic[] = "CHESSCKP";
constexpr size_t kMagicSize = sizeof kMagic - 1;
// 2: a run carries its choice steps (search/branch_codec.cc).
constexpr uint32_t kFormat = 2;
// A record larger than this is damage, not a run (a run of tens of millions of decisions).
constexpr uint64_t kLargestRecord = uint64_t{1} << 32;
constexpr int64_t kSyncEveryMs = 5000;

uint64_t Fnv1a(const std::string& bytes) { return search::Fnv1a64(bytes.data(), bytes.size()); }

std::string Record(const std::string& payload) {
  search::ByteWriter w;
  w.Put<uint64_t>(payload.size());
  w.Put<uint64_t>(Fnv1a(payload));
  return w.Take() + payload;
}

std::string EncodeHeader(const CheckpointHeader& header) {
  search::ByteWriter w;
  w.Put<uint32_t>(kFormat);
  w.Text(header.tool_version);
  w.List(header.identity, [](search::ByteWriter& out, const std::pair<std::string, std::string>& field) {
    out.Text(field.first);
    out.Text(field.second);
  });
  return w.Take();
}

constexpr size_t kRunPrefix = 1 + 8;  // retry, branch digest

std::string EncodeRun(const LoggedRun& logged) {
  search::ByteWriter w;
  w.Put<uint8_t>(logged.retry);
  w.Put<uint64_t>(logged.branch_digest);
  return w.Take() + search::EncodeBranchRun(logged.serial, logged.run);
}

std::optional<LoggedRun> DecodeRun(const std::string& payload) {
  if (payload.size() < kRunPrefix) return std::nullopt;
  auto decoded = search::DecodeBranchRun(payload.substr(kRunPrefix));
  if (!decoded) return std::nullopt;
  LoggedRun logged;
  logged.serial = decoded->first;
  logged.retry = payload[0] != 0;
  std::memcpy(&logged.branch_digest, payload.data() + 1, 8);
  logged.run = std::move(decoded->second);
  return logged;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

// Splits `bytes` (after the magic) into whole records; `good` is where the last whole one ends.
std::vector<std::string> Records(const std::string& bytes, size_t& good) {
  std::vector<std::string> records;
  size_t at = kMagicSize;
  good = at;
  while (bytes.size() - at >= 16) {
    uint64_t size = 0;
    uint64_t digest = 0;
    std::memcpy(&size, bytes.data() + at, 8);
    std::memcpy(&digest, bytes.data() + at + 8, 8);
    if (size > kLargestRecord || size > bytes.size() - at - 16) break;
    std::string payload = bytes.substr(at + 16, size);
    if (Fnv1a(payload) != digest) break;
    records.push_back(std::move(payload));
    at += 16 + size;
    good = at;
  }
  return records;
}

}  // namespace

uint64_t BranchDigest(const search::Branch& branch, bool retry) {
  return Fnv1a(search::EncodeBranchRequest(branch, retry));
}

Result<std::unique_ptr<CheckpointFile>> CheckpointFile::Create(const std::string& path,
                                                               const CheckpointHeader& header) {
  struct stat existing;
  if (lstat(path.c_str(), &existing) == 0) {
    return Error{"--checkpoint " + path + ": the file exists; continue its search with --resume " + path +
                 ", or remove it to start over"};
  }
  // Written under another name, flushed, then renamed: FILE is a whole checkpoint or absent.
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Error{Errno("--checkpoint: cannot create " + temporary)};
  if (!supervisor::WriteWhole(fd, std::string(kMagic, kMagicSize) + Record(EncodeHeader(header))) || fsync(fd) != 0) {
    const std::string error = Errno("--checkpoint: cannot write " + temporary);
    close(fd);
    unlink(temporary.c_str());
    return Error{error};
  }
  // link(2) fails where rename(2) would replace a file made meanwhile: never replace one.
  if (link(temporary.c_str(), path.c_str()) != 0) {
    const std::string error = Errno("--checkpoint: cannot create " + path);
    close(fd);
    unlink(temporary.c_str());
    return Error{error};
  }
  unlink(temporary.c_str());
  if (const int dir = open(DirectoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    fsync(dir);
    close(dir);
  }
  if (lseek(fd, 0, SEEK_END) < 0) {
    close(fd);
    return Error{Errno("--checkpoint: " + path)};
  }
  std::unique_ptr<CheckpointFile> file(new CheckpointFile(path, fd));
  file->synced_at_ms_ = NowMs();
  return file;
}

Result<CheckpointFile::Opened> CheckpointFile::Open(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Error{Errno("--resume: cannot open " + path)};
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string error = Errno("--resume: cannot read " + path);
      close(fd);
      return Error{error};
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  const auto refuse = [&](const std::string& why) -> Result<Opened> {
    close(fd);
    return Error{"--resume " + path + ": " + why};
  };
  if (bytes.compare(0, kMagicSize, kMagic) != 0) return refuse("not a checkpoint of chess-trace explore --checkpoint");
  size_t good = 0;
  std::vector<std::string> records = Records(bytes, good);
  if (records.empty()) return refuse("the checkpoint is damaged: its header does not read");
  Opened opened;
  {
    search::ByteReader r(records[0]);
    const uint32_t format = r.Get<uint32_t>();
    if (format != kFormat) return refuse("a checkpoint of format " + std::to_string(format) + ", this chess-trace reads " + std::to_string(kFormat));
    opened.header.tool_version = r.Text();
    opened.header.identity = r.List<std::pair<std::string, std::string>>([](search::ByteReader& in) {
      std::string name = in.Text();
      return std::pair<std::string, std::string>(std::move(name), in.Text());
    });
    if (!r.Whole()) return refuse("the checkpoint is damaged: its header does not read");
  }
  for (size_t i = 1; i < records.size(); ++i) {
    std::optional<LoggedRun> run = DecodeRun(records[i]);
    if (!run) return refuse("the checkpoint is damaged: run " + std::to_string(i) + " does not read");
    opened.runs.push_back(std::move(*run));
  }
  // A record the machine's crash cut short goes, so that what is appended next follows a whole one.
  opened.dropped_bytes = bytes.size() - good;
  if (opened.dropped_bytes > 0 && ftruncate(fd, static_cast<off_t>(good)) != 0) {
    return refuse(Errno("cannot cut its damaged end off"));
  }
  if (lseek(fd, 0, SEEK_END) < 0) return refuse(Errno("lseek"));
  opened.file.reset(new CheckpointFile(path, fd));
  opened.file->synced_at_ms_ = NowMs();
  return opened;
}

CheckpointFile::~CheckpointFile() {
  if (fd_ >= 0) {
    fdatasync(fd_);
    close(fd_);
  }
}

Result<void> CheckpointFile::Append(const LoggedRun& logged) {
  if (!supervisor::WriteWhole(fd_, Record(EncodeRun(logged)))) return Error{Errno("cannot write " + path_)};
  Sync(false);
  return {};
}

void CheckpointFile::Sync(bool now) {
  const int64_t at = NowMs();
  if (!now && at - synced_at_ms_ < kSyncEveryMs) return;
  fdatasync(fd_);
  synced_at_ms_ = at;
}

std::string CheckpointMismatch(const CheckpointHeader& saved, const CheckpointHeader& now) {
  if (saved.tool_version != now.tool_version) {
    return "it was written by chess-trace " + saved.tool_version + ", this is " + now.tool_version;
  }
  std::string differences;
  const auto value_in = [](const CheckpointHeader& header, const std::string& name) -> const std::string* {
    for (const auto& [field, value] : header.identity) {
      if (field == name) return &value;
    }
    return nullptr;
  };
  const auto add = [&](const std::string& name, const std::string* was, const std::string* is) {
    if (was != nullptr && is != nullptr && *was == *is) return;
    const std::string shown_was = was == nullptr ? "absent" : *was;
    const std::string shown_is = is == nullptr ? "absent" : *is;
    differences += (differences.empty() ? "" : "; ") + std::string("its ") + name + " was " + shown_was +
                   ", this search's is " + shown_is;
  };
  for (const auto& [name, value] : saved.identity) add(name, &value, value_in(now, name));
  for (const auto& [name, value] : now.identity) {
    if (value_in(saved, name) == nullptr) add(name, nullptr, &value);
  }
  return differences;
}

CheckpointRunner::CheckpointRunner(std::unique_ptr<CheckpointFile> file, std::deque<LoggedRun> resumed,
                                   search::BranchRunner* inner, LocalRun local, Absorb absorb, Complete complete)
    : file_(std::move(file)),
      log_(std::move(resumed)),
      inner_(inner),
      local_(std::move(local)),
      absorb_(std::move(absorb)),
      complete_(std::move(complete)) {}

CheckpointRunner::~CheckpointRunner() {
  if (file_) file_->Sync(true);
}

search::BranchRun CheckpointRunner::Run(const search::Branch& branch, bool retry) {
  if (!log_.empty()) {
    LoggedRun logged = std::move(log_.front());
    log_.pop_front();
    if (logged.serial == branch.serial && logged.retry == retry && logged.branch_digest == BranchDigest(branch, retry)) {
      ++resumed_;
      if (absorb_) absorb_(logged.run);
      return std::move(logged.run);
    }
    // The search asked for another branch than the one the checkpoint ran next: it is not the
    // search that wrote it (something its identity does not cover changed). Going on would mix
    // two searches.
    mismatch_ = "the search asked for branch " + std::to_string(branch.serial) + (retry ? " (again)" : "") +
                " where the checkpoint ran branch " + std::to_string(logged.serial) + (logged.retry ? " (again)" : "") +
                ", after " + std::to_string(resumed_) + " runs: it is not this search's checkpoint";
    log_.clear();
    logging_ = false;
    search::BranchRun failed;
    failed.summary.outcome = search::Outcome::kError;
    failed.summary.message = "--resume " + file_->Path() + ": " + mismatch_;
    return failed;
  }
  search::BranchRun run = inner_ != nullptr ? inner_->Run(branch, retry) : local_(branch);
  if (logging_ && file_) {
    if (run.summary.outcome == search::Outcome::kError || (complete_ && !complete_(run))) {
      // Cut short or failed: the search ends with it, and a resume must run it again.
      logging_ = false;
    } else if (auto appended = file_->Append(LoggedRun{branch.serial, retry, BranchDigest(branch, retry), run});
               !appended) {
      write_error_ = appended.error();
      logging_ = false;
    }
  }
  return run;
}

void CheckpointRunner::Upcoming(const std::vector<const search::Branch*>& next) {
  // The branches the log still holds are not run: the workers start on what comes after.
  if (inner_ != nullptr && log_.empty()) inner_->Upcoming(next);
}

void CheckpointRunner::Dropped(uint64_t serial) {
  if (inner_ != nullptr) inner_->Dropped(serial);
}

void CheckpointRunner::ChildrenWithin(std::optional<uint32_t> bound) {
  // While the log is handed out nothing runs: a child speculated then would be one the log has.
  if (inner_ != nullptr) inner_->ChildrenWithin(log_.empty() ? bound : std::nullopt);
}

}  // namespace chess::cli
