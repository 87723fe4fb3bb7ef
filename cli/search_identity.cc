#include "cli/search_identity.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>

#include "search/fnv1a.h"
#include "search/mix.h"

namespace chess::cli {
namespace {

// The digest of a regular file's contents, or why there is none.
std::string FileDigest(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "unreadable";
  uint64_t hash = search::Fnv1a64(nullptr, 0);
  std::array<char, 1 << 16> buffer{};
  ssize_t got = 0;
  while ((got = read(fd, buffer.data(), buffer.size())) > 0) hash = search::Fnv1a64(buffer.data(), static_cast<size_t>(got), hash);
  close(fd);
  return got < 0 ? "unreadable" : Hex64(hash);
}

bool IsRegularFile(const std::string& path) {
  struct stat info{};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::string Flag(bool value) { return value ? "yes" : "no"; }

}  // namespace

std::string Hex64(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string SearchIdentity::Digest() const {
  uint64_t digest = search::Mix64(fields.size());
  for (const auto& [name, value] : fields) {
    digest = search::Mix64(digest, search::Fnv1a64(name.data(), name.size()));
    digest = search::Mix64(digest, search::Fnv1a64(value.data(), value.size()));
  }
  return Hex64(digest);
}

SearchIdentity IdentifySearch(const ExploreOptions& options, const ExecutionSettings& settings,
                              const std::string& executable) {
  SearchIdentity identity;
  auto& fields = identity.fields;
  std::string command;
  for (const std::string& word : settings.command) command += (command.empty() ? "" : " ") + word;
  fields.emplace_back("command", command);
  fields.emplace_back("executable", FileDigest(executable));
  // A script, a data file, a test binary given to an interpreter or a runner: the files the
  // command line names (relative to the working directory the program gets).
  for (size_t i = 1; i < settings.command.size(); ++i) {
    const std::string& word = settings.command[i];
    const std::string path = word.empty() || word[0] == '/' || settings.cwd.empty() ? word : settings.cwd + "/" + word;
    if (IsRegularFile(path)) fields.emplace_back("argument " + std::to_string(i), FileDigest(path));
  }
  std::string input = "inherited";
  if (settings.input) {
    const uint64_t bytes = search::Fnv1a64(settings.input->bytes.data(), settings.input->bytes.size());
    input = std::to_string(static_cast<int>(settings.input->kind)) + ":" + Hex64(bytes);
  }
  fields.emplace_back("stdin", input);
  fields.emplace_back("strategy", std::string(search::StrategyName(options.strategy)));
  fields.emplace_back("preemption_bound", std::to_string(options.preemption_bound));
  fields.emplace_back("delay_bound", options.delay_bound ? std::to_string(*options.delay_bound) : "default");
  fields.emplace_back("pct_depth", std::to_string(options.pct_depth));
  fields.emplace_back("seed", std::to_string(settings.seed));
  fields.emplace_back("state_cache", Flag(options.state_cache));
  fields.emplace_back("predict_budget", std::to_string(options.predict_budget));
  fields.emplace_back("max_executions", std::to_string(options.max_executions));
  fields.emplace_back("max_steps", std::to_string(options.max_steps));
  fields.emplace_back("max_atomic_points", std::to_string(options.max_atomic_points));
  fields.emplace_back("sync_points", SyncPointsName(settings.sync_points));
  fields.emplace_back("isolate", std::to_string(settings.isolation));
  // As given: `now` is a different instant on every machine, and the same option.
  fields.emplace_back("epoch", settings.epoch ? options.program.epoch : "real time");
  std::string focus;
  for (const std::string& name : options.focus) focus += (focus.empty() ? "" : ",") + name;
  fields.emplace_back("focus", focus);
  fields.emplace_back("expect_exit", std::to_string(options.expect_exit));
  fields.emplace_back("fail_on_output", options.fail_on_output.value_or(""));
  fields.emplace_back("expect_stdout", options.expect_stdout_path.empty() ? "" : FileDigest(options.expect_stdout_path));
  std::string same_output = Flag(options.same_output);
  for (const std::string& file : options.output_files) same_output += " " + file;
  fields.emplace_back("same_output", same_output);
  fields.emplace_back("check", options.check_command.value_or(""));
  fields.emplace_back("shards", std::to_string(options.shard.count));
  return identity;
}

}  // namespace chess::cli
