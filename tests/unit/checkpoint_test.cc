// --checkpoint and --resume over model programs: a search stopped after some executions and
// resumed from its checkpoint comes to exactly what the search run at once comes to — its
// executions, coverage, state-cache pruning, schedules and bugs — taking the saved runs again
// without running them; a checkpoint cut short by a crash loses only its damaged end; and a
// checkpoint is never taken for another search's (the header's identity, then every branch).
#include "cli/checkpoint.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "search/explorer.h"
#include "tests/unit/model_program.h"

namespace chess::cli {
namespace {

using search::ExplorationResult;
using search::ExplorerOptions;
using search::test_support::Alternation;
using search::test_support::ExpectSameExploration;
using search::test_support::Independent;
using search::test_support::ModelBackend;
using search::test_support::ModelProgram;

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/chess-checkpoint-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { std::system(("rm -rf " + path_).c_str()); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

CheckpointHeader Header(const std::string& seed = "1") { return {"test", {{"program", "model"}, {"seed", seed}}}; }

// The search's backend with its branches run through a CheckpointRunner, as explore does at -j 1.
class CheckpointedBackend final : public search::ExecutionBackend {
 public:
  CheckpointedBackend(const ModelProgram& program, const ExplorerOptions& options,
                      std::unique_ptr<CheckpointFile> file, std::deque<LoggedRun> resumed)
      : model_(program),
        runner_(std::move(file), std::move(resumed), nullptr,
                [this, options](const search::Branch& branch) {
                  ++ran_;
                  return search::RunBranch(branch, options.liveness, options.state_cache, options.strategy, model_);
                },
                [this](const search::BranchRun&) { ++absorbed_; },
                [this](const search::BranchRun&) { return !cut_next_; }) {}
  search::ExecutionSummary Execute(search::Strategy& strategy) override { return model_.Execute(strategy); }
  search::BranchRunner* Branches() override { return &runner_; }

  ModelBackend model_;
  CheckpointRunner runner_;
  uint64_t ran_ = 0;
  uint64_t absorbed_ = 0;
  bool cut_next_ = false;
};

// The search stopped after `first` executions (the last of them cut short by the stop, as a
// Ctrl-C cuts one) and resumed to its end equals the search run at once.
void ExpectResumedSearchIsWhole(const ModelProgram& program, ExplorerOptions options, uint64_t first) {
  ModelBackend plain(program);
  const ExplorationResult whole = search::Explorer(options, plain).Explore();
  ASSERT_GT(whole.executions, first);

  TempDir dir;
  const std::string path = dir.File("search.ckpt");
  {
    auto created = CheckpointFile::Create(path, Header());
    ASSERT_TRUE(created) << created.error();
    CheckpointedBackend backend(program, options, std::move(*created), {});
    search::ExplorerHooks hooks;
    uint64_t seen = 0;
    hooks.should_stop = [&] { return seen >= first; };
    hooks.progress = [&](const search::ExplorerProgress&) {
      ++seen;
      backend.cut_next_ = seen + 1 >= first;  // the last execution is the one the stop cuts short
    };
    const ExplorationResult stopped = search::Explorer(options, backend).Explore(hooks);
    EXPECT_EQ(stopped.end, search::SearchEnd::kStopped);
    EXPECT_EQ(stopped.executions, first);
  }
  auto opened = CheckpointFile::Open(path);
  ASSERT_TRUE(opened) << opened.error();
  EXPECT_EQ(opened->header.identity, Header().identity);
  EXPECT_EQ(opened->runs.size(), first - 1) << "the execution the stop cut short is not saved";
  EXPECT_EQ(opened->dropped_bytes, 0u);
  CheckpointedBackend resumed(program, options, std::move(opened->file), std::move(opened->runs));
  const ExplorationResult rest = search::Explorer(options, resumed).Explore();
  ExpectSameExploration(whole, rest);
  EXPECT_EQ(resumed.runner_.Resumed(), first - 1);
  EXPECT_EQ(resumed.absorbed_, first - 1);
  EXPECT_EQ(resumed.ran_, whole.executions - (first - 1)) << "only what the checkpoint did not hold runs";
  EXPECT_TRUE(resumed.runner_.Mismatch().empty());
}

TEST(CheckpointTest, AResumedSearchIsTheWholeSearch) {
  ExplorerOptions options;
  options.state_cache = false;
  ExpectResumedSearchIsWhole(Independent(3, 2), options, 5);
  ExpectResumedSearchIsWhole(Independent(3, 2), options, 40);
  options.state_cache = true;  // the cache is rebuilt from the saved runs, and prunes as before
  ExpectResumedSearchIsWhole(Independent(3, 2), options, 7);
  ExpectResumedSearchIsWhole(Alternation(), options, 3);
  options.strategy = search::StrategyKind::kDb;
  options.delay_bound = 2;
  ExpectResumedSearchIsWhole(Independent(3, 2), options, 9);
}

TEST(CheckpointTest, ResumingTwiceIsStillTheWholeSearch) {
  const ModelProgram program = Independent(3, 2);
  ExplorerOptions options;
  options.state_cache = true;
  ModelBackend plain(program);
  const ExplorationResult whole = search::Explorer(options, plain).Explore();
  TempDir dir;
  const std::string path = dir.File("search.ckpt");
  for (uint64_t stop_at : {4u, 11u, 0u}) {
    std::unique_ptr<CheckpointFile> file;
    std::deque<LoggedRun> runs;
    if (stop_at == 4) {
      auto created = CheckpointFile::Create(path, Header());
      ASSERT_TRUE(created) << created.error();
      file = std::move(*created);
    } else {
      auto opened = CheckpointFile::Open(path);
      ASSERT_TRUE(opened) << opened.error();
      file = std::move(opened->file);
      runs = std::move(opened->runs);
    }
    CheckpointedBackend backend(program, options, std::move(file), std::move(runs));
    search::ExplorerHooks hooks;
    uint64_t seen = 0;
    hooks.should_stop = [&] { return stop_at != 0 && seen >= stop_at; };
    hooks.progress = [&](const search::ExplorerProgress&) { ++seen; };
    const ExplorationResult result = search::Explorer(options, backend).Explore(hooks);
    if (stop_at == 0) ExpectSameExploration(whole, result);
  }
}

TEST(CheckpointTest, ADamagedEndIsCutOffAndTheRestResumes) {
  const ModelProgram program = Independent(3, 2);
  ExplorerOptions options;
  TempDir dir;
  const std::string path = dir.File("search.ckpt");
  {
    auto created = CheckpointFile::Create(path, Header());
    ASSERT_TRUE(created);
    CheckpointedBackend backend(program, options, std::move(*created), {});
    search::ExplorerHooks hooks;
    uint64_t seen = 0;
    hooks.should_stop = [&] { return seen >= 6; };
    hooks.progress = [&](const search::ExplorerProgress&) { ++seen; };
    (void)search::Explorer(options, backend).Explore(hooks);
  }
  // A crash of the machine between a record's bytes: half a record at the end.
  {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes << bytes.substr(8, 40);
  }
  auto opened = CheckpointFile::Open(path);
  ASSERT_TRUE(opened) << opened.error();
  EXPECT_EQ(opened->runs.size(), 6u);
  EXPECT_EQ(opened->dropped_bytes, 40u);
  ModelBackend plain(program);
  const ExplorationResult whole = search::Explorer(options, plain).Explore();
  CheckpointedBackend resumed(program, options, std::move(opened->file), std::move(opened->runs));
  ExpectSameExploration(whole, search::Explorer(options, resumed).Explore());
}

TEST(CheckpointTest, AnotherSearchsCheckpointIsRefused) {
  TempDir dir;
  const std::string path = dir.File("search.ckpt");
  {
    auto created = CheckpointFile::Create(path, Header());
    ASSERT_TRUE(created);
    CheckpointedBackend backend(Independent(3, 2), ExplorerOptions{}, std::move(*created), {});
    search::ExplorerHooks hooks;
    uint64_t seen = 0;
    hooks.should_stop = [&] { return seen >= 6; };
    hooks.progress = [&](const search::ExplorerProgress&) { ++seen; };
    (void)search::Explorer(ExplorerOptions{}, backend).Explore(hooks);
  }
  // An existing file is never overwritten.
  auto again = CheckpointFile::Create(path, Header());
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().find("--resume " + path), std::string::npos) << again.error();

  // The header names what differs, --max-executions too (it changes what the search keeps).
  EXPECT_EQ(CheckpointMismatch(Header("1"), Header("1")), "");
  EXPECT_EQ(CheckpointMismatch(Header("1"), Header("2")), "its seed was 1, this search's is 2");
  CheckpointHeader more = Header();
  CheckpointHeader less = Header();
  more.identity.emplace_back("max_executions", "100");
  less.identity.emplace_back("max_executions", "10");
  EXPECT_EQ(CheckpointMismatch(less, more), "its max_executions was 10, this search's is 100");
  CheckpointHeader other_version = Header();
  other_version.tool_version = "other";
  EXPECT_NE(CheckpointMismatch(other_version, Header()).find("written by chess-trace other"), std::string::npos);

  // The runs are a function of the search that asked for them: a search that asks for another
  // branch than the next saved one (changed search code behind the same version) ends as an
  // error instead of taking runs that are not its own.
  auto opened = CheckpointFile::Open(path);
  ASSERT_TRUE(opened);
  std::deque<LoggedRun> runs = std::move(opened->runs);
  runs.front().branch_digest ^= 1;
  CheckpointedBackend other(Independent(3, 2), ExplorerOptions{}, std::move(opened->file), std::move(runs));
  const ExplorationResult result = search::Explorer(ExplorerOptions{}, other).Explore();
  EXPECT_EQ(result.end, search::SearchEnd::kError);
  EXPECT_NE(other.runner_.Mismatch().find("not this search's checkpoint"), std::string::npos)
      << other.runner_.Mismatch();
  EXPECT_EQ(other.ran_, 0u);

  // Not a checkpoint at all.
  const std::string junk = dir.File("junk");
  std::ofstream(junk) << "{\"schema\": 2}\n";
  auto refused = CheckpointFile::Open(junk);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("not a checkpoint"), std::string::npos) << refused.error();
}

}  // namespace
}  // namespace chess::cli
