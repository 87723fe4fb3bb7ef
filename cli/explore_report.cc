#include "cli/explore_report.h"

#include "cli/prediction_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "cli/json_writer.h"
#include "cli/prediction_report.h"
#include "cli/race_points.h"
#include "cli/report.h"
#include "search/critical_pair.h"
#include "search/fnv1a.h"
#include "search/replay_strategy.h"

namespace chess::cli {
namespace {

// What a bounded search's bound counts: preemptions (pb) or delays (db).
struct BoundUnit {
  const char* one;
  const char* many;
};
BoundUnit UnitOf(const SearchSummary& s) {
  return s.delay_bound ? BoundUnit{"delay", "delays"} : BoundUnit{"preemption", "preemptions"};
}

// "≤ 2 preemptions", or "no preemption" for a bound of 0.
std::string AtMost(uint64_t bound, BoundUnit unit) {
  return bound == 0 ? std::string("no ") + unit.one : "≤ " + Plural(bound, unit.one, unit.many);
}

std::string WhatHappened(const ReportedBug& bug) {
  const supervisor::ExecutionResult& r = bug.run.result;
  switch (bug.found.summary.outcome) {
    case search::Outcome::kExitStatus:
      return "the program exited with status " + std::to_string(r.exit_status.value_or(-1));
    case search::Outcome::kSignal:
      return "the program was killed by " + SignalName(r.signal.value_or(0)) +
             (r.signal == 6 ? " (an assertion or abort())" : "");
    case search::Outcome::kDeadlock:
      return "no thread can run and nothing outside the program can wake one";
    default:
      return bug.found.summary.message;
  }
}

constexpr const char* kShim = "libchess_preload.so";


std::string StopWord(const SearchSummary& s) {
  if (s.interrupted) return "interrupted";
  if (!s.error.empty()) return s.unsupported ? "unsupported" : "error";
  switch (s.result->end) {
    case search::SearchEnd::kBoundExplored: return "bound-explored";
    case search::SearchEnd::kExhausted: return "exhausted";
    case search::SearchEnd::kPruned: return "pruned";
    case search::SearchEnd::kBug: return "bug";
    case search::SearchEnd::kMaxExecutions: return "max-executions";
    case search::SearchEnd::kStopped: return s.time_limited ? "time-limit" : "interrupted";
    case search::SearchEnd::kError: return "error";
  }
  return "error";
}

// "syscalls, pthread/C11 sync operations (212 announced) and cross-process I/O".
std::string DescribeLayers(const SearchVisibility& visibility) {
  uint64_t announced = 0;
  for (const supervisor::ProgramImage& program : visibility.programs) announced += program.sync_ops;
  std::vector<std::string> words;
  for (const std::string& layer : visibility.visible_layers) {
    if (layer == "syscalls") words.push_back("syscalls");
    if (layer == "sync-ops") words.push_back("pthread/C11 sync operations (" + std::to_string(announced) + " announced)");
    if (layer == "cross-process") words.push_back("cross-process I/O");
    if (layer == "atomics" && visibility.atomics) {
      words.push_back("atomic instructions (all but " + Plural(visibility.atomics->alone_sites, "site", "sites") +
                      " that ran only while their thread was alone; " + std::to_string(visibility.atomics->sites) +
                      " ran beside another thread in the execution that learned them)");
    }
    if (layer == "races" && visibility.atomics) {
      words.push_back(visibility.atomics->races.empty()
                          ? std::string("racing memory accesses (none: the learning execution found no data race in "
                                        "its sample)")
                          : "racing memory accesses (" +
                                Plural(visibility.atomics->race_sites, "instruction", "instructions") + " of the " +
                                Plural(visibility.atomics->races.size(), "data race", "data races") +
                                " the learning execution found by sampling)");
    }
  }
  std::string text;
  for (size_t i = 0; i < words.size(); ++i) text += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + words[i];
  if (!visibility.focus.empty()) {
    text += ", in the threads of ";
    for (size_t i = 0; i < visibility.focus.size(); ++i) {
      text += (i == 0 ? "" : i + 1 == visibility.focus.size() ? " and " : ", ") + visibility.focus[i];
    }
    text += " only (--focus: the other processes ran without preemptions)";
  }
  return text;
}

// Some execution reached --max-atomic-points: what came after was not searched.
bool AtomicsSampled(const SearchVisibility& visibility) {
  return visibility.atomics && visibility.atomics->capped_executions > 0;
}

// What the atomic layer did not see: the operations it samples past its cap, the files it could
// not patch, and the memory accesses that are no points at all (with races: those no race the
// learning execution found made points).
std::vector<std::string> AtomicNotes(const SearchVisibility& visibility) {
  std::vector<std::string> notes;
  if (!visibility.atomics) return notes;
  const AtomicPointsSeen& atomics = *visibility.atomics;
  if (atomics.capped_executions > 0) {
    notes.push_back("sampled: the first " + std::to_string(atomics.max_points) + " atomic operations of each execution (" +
                    Plural(atomics.capped_executions, "execution", "executions") +
                    " reached --max-atomic-points; the later ones ran through without being points)");
  }
  for (const std::string& file : atomics.refused) notes.push_back("atomic points refused: " + file);
  if (!atomics.races_looked_for) {
    notes.push_back("not seen: atomic loads, relaxed and release stores and plain memory accesses (--sync-points "
                    "races makes racing ones points): a bug that needs a thread switch between two of them cannot "
                    "be found");
    return notes;
  }
  // " but the 4 racing instructions found (", or " (no racing one is a point; " when no race made one.
  const std::string except = atomics.race_sites == 0
                                 ? std::string(" (no racing one is a point; ")
                                 : " but the " + Plural(atomics.race_sites, "racing instruction", "racing instructions") +
                                       " found (";
  notes.push_back("not seen: atomic loads (plain moves on x86), relaxed and release stores and plain memory accesses" +
                  except + "the learning execution sampled " + std::to_string(atomics.sampled_accesses) + " of " +
                  std::to_string(atomics.sampled_sites) +
                  " memory-access instructions; a race it did not sample, or whose second access its watchpoints "
                  "missed, is no point): a bug that needs a thread switch between two of them cannot be found");
  if (atomics.sampling_capped) {
    notes.push_back("race sampling capped: the program had more memory-access instructions than may be sampled, and "
                    "the rest were not");
  }
  if (atomics.race_detection_cut_short) {
    notes.push_back("race detection cut short: the learning execution made more atomic operations than races are "
                    "judged against, and looked for none in the rest of it");
  }
  return notes;
}

// The variable each race's memory is, by address: what a racing access's point touched.
std::map<uint64_t, std::string> RaceVariables(const SearchVisibility& visibility) {
  std::map<uint64_t, std::string> variables;
  if (!visibility.atomics) return variables;
  for (const search::ObservedRace& race : visibility.atomics->races) {
    if (!race.variable.empty()) variables.emplace(race.address, race.variable);
  }
  return variables;
}

// Whether flipping each race's order changed the outcome: true when a bug's preemption was just
// before one of its accesses, false when the search covered its whole bounded space with both
// accesses points and found no bug, null otherwise (it may or may not).
std::vector<std::optional<bool>> FlippedChangedOutcome(const SearchSummary& s) {
  std::vector<std::optional<bool>> flipped;
  const search::ExplorationResult& r = *s.result;
  const bool whole_space = s.bugs.empty() && s.error.empty() && !s.interrupted && r.coverage.complete &&
                           r.end != search::SearchEnd::kPruned;
  for (const search::ObservedRace& race : s.visibility.atomics->races) {
    std::optional<bool> changed;
    for (const ReportedBug& bug : s.bugs) {
      if (PreemptedAtRace(race, bug.found.schedule, bug.found.preemption_decisions, bug.instruction_names,
                          bug.instruction_locations)) {
        changed = true;
      }
    }
    const bool both_points = !race.earlier.instruction.module.empty() && !race.later.instruction.module.empty();
    if (!changed && whole_space && both_points) changed = false;
    flipped.push_back(changed);
  }
  return flipped;
}

// What the state cache's soundness rests on: the operations its fingerprint counts, which grow
// with the layers that made points.
std::string CachedOrderings(const SearchVisibility& visibility) {
  const auto& layers = visibility.visible_layers;
  const auto has = [&layers](const char* layer) { return std::find(layers.begin(), layers.end(), layer) != layers.end(); };
  if (has("races")) return "its locks, its atomic instructions and the racing accesses found";
  if (has("atomics")) return "its locks and its atomic instructions";
  return "its locks";
}

}  // namespace

std::string CoverageSentence(const SearchSummary& s) {
  const search::ExplorationResult& r = *s.result;
  const search::Coverage& c = r.coverage;
  const bool sampling_only = !search::Runs(c.strategy, search::StrategyKind::kPb) && !search::Bounded(c.strategy);
  const BoundUnit unit = UnitOf(s);
  const uint32_t bound = s.delay_bound.value_or(s.preemption_bound);
  const uint64_t bounded = c.schedules - c.sampled;  // the schedules pb or db ran
  std::string why;
  if (s.interrupted) {
    why = "interrupted by " + SignalName(s.stop_signal);
  } else if (r.end == search::SearchEnd::kMaxExecutions) {
    why = "--max-executions " + std::to_string(s.max_executions) + " reached";
  } else if (r.end == search::SearchEnd::kStopped && s.time_limited) {
    why = "--time-limit reached";
  } else if (r.end == search::SearchEnd::kBug) {
    why = "stopped at the first bug";
  }
  std::string text;
  if (sampling_only) {
    text = Plural(c.sampled, "schedule", "schedules") + " sampled by " + std::string(search::StrategyName(c.strategy)) +
           (c.strategy == search::StrategyKind::kPct ? " (depth " + std::to_string(s.pct_depth) + ")" : "") + " from seed " +
           std::to_string(s.seed) + (why.empty() ? "" : " (" + why + ")") +
           "; a random search covers no set of schedules for certain (--strategy pb does)";
  } else if (r.end == search::SearchEnd::kPruned) {
    // Every schedule it could follow ran, but a pruned branch leaves what it leads to unsearched.
    text = "the bound is not covered: " + Plural(c.pruned, "branch was", "branches were") +
           " pruned after diverging twice, and the schedules that go on from " + (c.pruned == 1 ? "it" : "them") +
           " were not searched; " + Plural(bounded, "schedule", "schedules") + " explored, " +
           (c.bound_completed ? "all those with " + AtMost(*c.bound_completed, unit) + ", and part of those with "
                              : std::string("part of those with ")) +
           AtMost(bound, unit);
  } else if (c.complete) {
    const uint32_t needed = c.bound_completed.value_or(0);
    const bool exhausted = r.end == search::SearchEnd::kExhausted;
    // Over a program whose sync operations were out of sight, "all" would read as a proof.
    const bool blind = !s.visibility.blind_spots.empty() || AtomicsSampled(s.visibility);
    const std::string over = blind ? " at the points it could see" : "";
    if (exhausted) {
      text = blind ? (bounded == 1 ? "the only schedule" : Plural(bounded, "schedule", "schedules")) + " explored" + over
                   : bounded == 1 ? std::string("its only schedule explored")
                                  : "all " + std::to_string(bounded) + " schedules explored";
      text += needed == 0 ? std::string(" (none needs a ") + unit.one + ")"
                          : " (none needs more than " + Plural(needed, unit.one, unit.many) + ")";
    } else {
      text = (blind ? "" : "all ") + Plural(bounded, "schedule", "schedules") + " with " + AtMost(bound, unit) +
             " explored" + over;
    }
  } else {
    text = Plural(bounded, "schedule", "schedules") + " explored: ";
    if (!c.bound_completed) {
      text += "part of those with " + AtMost(0, unit);
    } else if (bounded == 1 && *c.bound_completed == 0) {
      text += "the only one with " + AtMost(0, unit);
    } else {
      text += "all those with " + AtMost(*c.bound_completed, unit) + ", and part of those with " +
              Plural(r.bound, unit.one, unit.many);
    }
    if (!why.empty()) text += " (" + why + ")";
  }
  if (!sampling_only && c.sampled > 0) {
    text += "; and " + Plural(c.sampled, "schedule", "schedules") + " sampled by pct and random from seed " +
            std::to_string(s.seed) + (c.complete && !why.empty() ? " (" + why + ")" : "");
  }
  if (c.cache_pruned > 0) {
    text += "; " + Plural(c.cache_pruned, "schedule", "schedules") +
            " skipped by state caching (they go on from a state already searched; sound when the program's "
            "threads share memory only under " + CachedOrderings(s.visibility) + ")";
  }
  if (c.pruned > 0 && r.end != search::SearchEnd::kPruned) {
    text += "; " + Plural(c.pruned, "branch", "branches") + " pruned after diverging twice (what " +
            (c.pruned == 1 ? "it leads" : "they lead") + " to was not searched)";
  }
  if (r.step_limited > 0) {
    text += "; " + Plural(r.step_limited, "execution", "executions") + " cut at --max-steps " +
            std::to_string(s.max_steps) + " (not livelocks: counted, not bugs)";
  }
  if (!s.shard.Whole()) {
    // Its part only: `merge` says what the shards covered together.
    text = "shard " + s.shard.Name() + " (its part of the search): " + text + "; " +
           Plural(r.replayed_prefixes, "execution", "executions") +
           " of other shards' part replayed to branch from (not counted)";
  }
  return text;
}

// What found the bug, as the report's found_by says it: a strategy's name, or `directed` for a
// directed execution trying a predicted deadlock.
std::string FoundByName(const search::FoundBug& found) {
  return found.directed ? "directed" : std::string(search::StrategyName(found.found_by));
}

// How the search came to the bug, when not simply by pb.
std::string FoundHow(const search::FoundBug& found) {
  if (found.confirmed_prediction) {
    return "deadlock predicted from execution " + std::to_string(found.confirmed_prediction->predicted_from) + " (" +
           found.confirmed_prediction->words + ") and confirmed in execution " + std::to_string(found.execution) +
           " [" + found.execution_strategy + "]";
  }
  if (found.directed) return "found by a directed execution, trying a predicted deadlock [" + found.execution_strategy + "]";
  if (search::Bounded(found.found_by)) return {};
  std::string text = "found by " + std::string(search::StrategyName(found.found_by));
  if (found.minimized_from) {
    text += " in execution " + std::to_string(found.minimized_from->execution) + " with " +
            Plural(found.minimized_from->preemptions, "preemption", "preemptions") + " [" +
            found.minimized_from->execution_strategy +
            "]; minimized: this schedule has the fewest preemptions that fail the same way (a bounded search)";
  } else {
    text += " [" + found.execution_strategy + "]";
  }
  return text;
}

// One preemption of a bug's schedule, in words.
std::string DescribePreemption(const search::RecordedDecision& d, const trace::ObjectNames& names) {
  const std::string current = d.current ? "thread " + std::to_string(d.current->value) : "";
  const std::string object =
      d.current && (d.point.op == search::OpKind::kSyncOp || search::AtInstruction(d.point.op))
          ? names.Find(*d.current, d.point.resource)
          : "";
  if (d.fired_early) {
    const bool could_go_on = d.current && *d.current != d.picked && d.stop == search::StopReason::kReachedPoint;
    return "thread " + std::to_string(d.picked.value) + "'s deadline fired early (its sleep or timed wait ended)" +
           (could_go_on ? " while " + current + " could go on " + search::DescribePoint(d.point, object)
                        : std::string(" while other threads could run"));
  }
  return current + " could go on " + search::DescribePoint(d.point, object) + ", thread " + std::to_string(d.picked.value) +
         " ran instead";
}

// The instruction of a point, as the bug's replay named it ("pop+0x1d (treiber) at
// treiber.c:42"), or its address.
std::string NameInstruction(const search::SchedulingPoint& point, const ReportedBug& bug) {
  const auto& names = bug.instruction_names;
  if (auto name = names.find(point.instruction); name != names.end()) return name->second;
  return Hex(point.instruction);
}

// The memory a point touched: the variable its sync operations or a data race named, else the
// address.
std::string MemoryNamed(const search::SchedulingPoint& point, search::ThreadId thread, const ReportedBug& bug,
                        const std::map<uint64_t, std::string>& race_variables) {
  const std::string object = bug.object_names.Find(thread, point.resource);
  if (!object.empty()) return object;
  if (auto variable = race_variables.find(point.resource); variable != race_variables.end()) return variable->second;
  return Hex(point.resource);
}

// "atomic instruction", or "racing access" for a plain access a data race made a point.
const char* InstructionKind(const search::SchedulingPoint& point) {
  return point.op == search::OpKind::kRacyAccess ? "racing access" : "atomic instruction";
}

// The two operations whose order decided the bug (search/critical_pair.h), in words.
std::string DescribeCriticalPair(const search::CriticalPair& pair, const ReportedBug& bug,
                                 const std::map<uint64_t, std::string>& race_variables) {
  const auto access = [](const search::SchedulingPoint& point) { return point.is_write ? "writing" : "reading"; };
  return "thread " + std::to_string(pair.waited.value) + " was stopped before its " + InstructionKind(pair.waited_at) +
         " at " + NameInstruction(pair.waited_at, bug) + " " + access(pair.waited_at) + " " +
         MemoryNamed(pair.waited_at, pair.waited, bug, race_variables) + " (preemption at decision " +
         std::to_string(pair.preemption) + "), and thread " + std::to_string(pair.went_first.value) + "'s " +
         InstructionKind(pair.went_first_at) + " at " + NameInstruction(pair.went_first_at, bug) + " " +
         access(pair.went_first_at) + " the same memory ran first";
}

// --checkpoint and --resume: what the file holds now, and how to go on from it.
std::string CheckpointText(const SearchSummary& s) {
  const CheckpointSummary& c = s.checkpoint;
  if (c.path.empty()) return "";
  std::string text;
  if (c.resumed) {
    text += "  resumed from " + c.path + ": its " + Plural(c.resumed_executions, "execution was", "executions were") +
            " taken again without running\n";
  }
  if (!c.write_error.empty()) {
    text += "  warning: the checkpoint stopped being written (" + c.write_error +
            "): a resume goes on from the last execution it holds\n";
  }
  if (s.interrupted || s.time_limited) {
    text += "  checkpoint: " + c.path + "; go on with the same command, --resume " + c.path +
            " in place of --checkpoint\n";
  } else {
    text += "  checkpoint: " + c.path + " (the search it holds has ended)\n";
  }
  return text;
}

std::string ExploreTextReport(const SearchSummary& s) {
  const search::ExplorationResult& r = *s.result;
  std::ostringstream out;
  const double rate = s.wall_seconds > 0 ? static_cast<double>(r.executions) / s.wall_seconds : 0;
  char rate_text[32];
  std::snprintf(rate_text, sizeof(rate_text), "%.1f", rate);
  const std::map<uint64_t, std::string> race_variables = RaceVariables(s.visibility);
  const std::string searched =
      Plural(r.executions, "execution", "executions") + " in " + Seconds(s.wall_seconds) + " (" + rate_text + "/s" +
      (s.jobs > 1 ? " on " + std::to_string(s.jobs) + " workers" +
                        (s.ran_ahead_unused > 0 ? ", which also ran " + Plural(s.ran_ahead_unused, "execution", "executions") +
                                                      " ahead that the search never needed"
                                                : "")
                  : "") +
      ")";
  for (const ReportedBug& bug : s.bugs) {
    const search::FoundBug& found = bug.found;
    out << "chess-trace: BUG: " << search::OutcomeName(found.summary.outcome) << " in execution " << found.execution
        << " with " << Plural(found.preemptions, "preemption", "preemptions")
        << (found.delays ? " (" + Plural(*found.delays, "delay", "delays") + ")" : "") << "\n";
    out << "  " << WhatHappened(bug) << "\n";
    if (const std::string how = FoundHow(found); !how.empty()) out << "  " << how << "\n";
    size_t n = 0;
    for (size_t decision : found.preemption_decisions) {
      const search::RecordedDecision& d = found.schedule[decision];
      out << "  preemption " << ++n << " (decision " << decision << "): " << DescribePreemption(d, bug.object_names) << "\n";
      if (auto stack = bug.preemption_stacks.find(decision); stack != bug.preemption_stacks.end()) {
        // The preload shim's own frames say nothing about the program: its stack starts at the
        // call it made.
        const std::vector<supervisor::StackFrame>& frames = stack->second;
        size_t first = 0;
        while (first + 1 < frames.size() && frames[first].module == kShim) ++first;
        for (size_t i = first; i < frames.size() && i < first + 8; ++i) {
          out << "      #" << i - first << " " << supervisor::FormatFrame(frames[i]) << "\n";
        }
      }
    }
    if (auto pair = search::FindCriticalPair(found.schedule, found.preemption_decisions)) {
      out << "  the order that decided it: " << DescribeCriticalPair(*pair, bug, race_variables) << "\n";
    }
    out << StuckExplanation(bug.run.result);
    const std::string states = ThreadStates(bug.run.result);
    if (!states.empty()) out << "  the threads at the end:\n" << states;
    if (!bug.run.output_tail.empty()) out << "  its output (the last lines):\n" << bug.run.output_tail;
    if (!bug.trace_path.empty()) {
      out << "  trace: " << bug.trace_path << "\n";
      out << "  replay it: " << ReplayCommand(bug.trace_path) << "\n";
    }
    if (!bug.trace_problem.empty()) out << "  note: " << bug.trace_problem << "\n";
  }
  if (!s.error.empty()) out << "chess-trace: " << (s.unsupported ? "unsupported: " : "error: ") << s.error << "\n";
  if (s.bugs.empty() && s.error.empty()) {
    const bool blind = !s.visibility.blind_spots.empty() || AtomicsSampled(s.visibility);
    const std::string verdict = s.interrupted ? "interrupted by " + SignalName(s.stop_signal) + ", no bug so far: "
                                : r.end == search::SearchEnd::kPruned ? "no bug found, but "
                                : blind ? "no bug found, but the search could not see everything: "
                                        : "no bug: ";
    out << "chess-trace: " << verdict << CoverageSentence(s) << "\n";
    for (const std::string& spot : s.visibility.blind_spots) out << "  warning: " << spot << "\n";
    out << "  scheduling points: " << DescribeLayers(s.visibility) << "\n";
    for (const std::string& note : AtomicNotes(s.visibility)) out << "  " << note << "\n";
    for (const std::string& hint : s.visibility.hints) out << "  hint: " << hint << "\n";
    for (const std::string& line : PredictionLines(r.predictions ? &*r.predictions : nullptr, true)) out << "  " << line << "\n";
  } else if (s.bugs.empty()) {
    out << "  the search stopped there: nothing it explored is a statement about the program\n";
  } else {
    out << "  searched: " << CoverageSentence(s) << "\n";
    // Beside a bug, prediction is worth a line only when it predicted something.
    if (r.predictions && (!r.predictions->cycles.empty() || r.predictions->gated > 0)) {
      for (const std::string& line : PredictionLines(&*r.predictions, true)) out << "  " << line << "\n";
    }
  }
  if (s.visibility.atomics && !s.visibility.atomics->races.empty()) {
    // Said in full before the search; the report, read on its own (--log), still counts them.
    const AtomicPointsSeen& atomics = *s.visibility.atomics;
    out << "  data races: " << atomics.races.size() << " found by the learning execution (each on its own "
        << "\"chess-trace: data race:\" line above, and in --report), "
        << Plural(atomics.race_sites, "instruction", "instructions") << " of them points of every execution\n";
  }
  out << PrunedBranchesText(r, s.divergence);
  if (!s.interrupted_trace.empty()) {
    out << "  the execution in progress (" << s.interrupted_execution << "), up to where it was stopped: "
        << s.interrupted_trace << "\n";
    out << "  replay it: " << ReplayCommand(s.interrupted_trace) << "\n";
  } else if (!s.interrupted_trace_problem.empty()) {
    out << "  note: the execution in progress was not saved: " << s.interrupted_trace_problem << "\n";
  }
  out << "  " << searched;
  if (r.minimizing > 0) out << ", " << r.minimizing << " of them minimizing";
  if (r.predictions && r.predictions->executions > 0) out << ", " << r.predictions->executions << " of them directed";
  out << "\n";
  out << CheckpointText(s);
  return out.str();
}

std::string ExploreJsonReport(const SearchSummary& s) {
  const search::ExplorationResult& r = *s.result;
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").Int(kReportSchema);
  json.Key("command").String("explore");
  const ReportedBug* first = s.bugs.empty() ? nullptr : &s.bugs.front();
  const std::map<uint64_t, std::string> race_variables = RaceVariables(s.visibility);
  const std::string outcome = !s.error.empty() ? (s.unsupported ? "unsupported" : "error")
                              : first != nullptr ? std::string(search::OutcomeName(first->found.summary.outcome))
                                                 : "none";
  json.Key("outcome").String(outcome);
  json.Key("signal");
  if (first != nullptr && first->run.result.signal) {
    json.String(SignalName(*first->run.result.signal));
  } else {
    json.Null();
  }
  json.Key("exit_status").OptionalInt(first != nullptr ? first->run.result.exit_status : std::nullopt);
  json.Key("executions").Int(static_cast<int64_t>(r.executions));
  json.Key("execution").OptionalInt(first != nullptr ? std::optional<int64_t>(first->found.execution) : std::nullopt);
  json.Key("preemptions").OptionalInt(first != nullptr ? std::optional<int64_t>(first->found.preemptions) : std::nullopt);
  json.Key("trace");
  if (first != nullptr && !first->trace_path.empty()) {
    json.String(first->trace_path);
  } else {
    json.Null();
  }
  json.Key("replay_command");
  if (first != nullptr && !first->trace_path.empty()) {
    json.String(ReplayCommand(first->trace_path));
  } else {
    json.Null();
  }
  json.Key("message").String(!s.error.empty() ? s.error : first != nullptr ? WhatHappened(*first) : CoverageSentence(s));
  json.Key("coverage").BeginObject();
  json.Key("strategy").String(search::StrategyName(r.coverage.strategy));
  json.Key("preemption_bound").Int(s.preemption_bound);
  json.Key("delay_bound").OptionalInt(s.delay_bound ? std::optional<int64_t>(*s.delay_bound) : std::nullopt);
  json.Key("bound_completed").OptionalInt(r.coverage.bound_completed ? std::optional<int64_t>(*r.coverage.bound_completed)
                                                                     : std::nullopt);
  json.Key("schedules").Int(static_cast<int64_t>(r.coverage.schedules));
  json.Key("pruned").Int(static_cast<int64_t>(r.coverage.pruned));
  json.Key("complete").Bool(r.coverage.complete);
  json.Key("sampled").Int(static_cast<int64_t>(r.coverage.sampled));
  json.Key("cache_pruned").Int(static_cast<int64_t>(r.coverage.cache_pruned));
  json.Key("seed").Int(static_cast<int64_t>(s.seed));
  json.Key("exhausted").Bool(r.end == search::SearchEnd::kExhausted);
  json.Key("visible_layers").BeginArray();
  for (const std::string& layer : s.visibility.visible_layers) json.String(layer);
  json.EndArray();
  // False when a program's threads synchronized where the search had no point: its
  // "complete" then covers the points it saw, not the program.
  json.Key("sync_ops_visible").Bool(s.visibility.blind_spots.empty());
  json.Key("focus").BeginArray();
  for (const std::string& name : s.visibility.focus) json.String(name);
  json.EndArray();
  json.Key("programs").BeginArray();
  for (const supervisor::ProgramImage& program : s.visibility.programs) {
    json.BeginObject();
    json.Key("path").String(program.path);
    json.Key("linking").String(program.linking == supervisor::Linking::kStatic    ? "static"
                               : program.linking == supervisor::Linking::kDynamic ? "dynamic"
                                                                                  : "unknown");
    json.Key("multithreaded").Bool(program.multithreaded);
    json.Key("sync_ops").Int(static_cast<int64_t>(program.sync_ops));
    json.Key("decisions").Int(static_cast<int64_t>(program.decisions));
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  // What `merge` needs: which search this was, which part of it, and what it ran of it.
  json.Key("search").BeginObject();
  json.Key("digest").String(s.identity.Digest());
  json.Key("identity").BeginObject();
  for (const auto& [name, value] : s.identity.fields) json.Key(name).String(value);
  json.EndObject();
  json.Key("shard").BeginObject();
  json.Key("index").Int(s.shard.index);
  json.Key("count").Int(s.shard.count);
  json.Key("split_depth").Int(r.split_depth);
  json.EndObject();
  json.Key("trunk_digest").String(Hex64(r.trunk_digest));
  json.Key("pct_k").Int(static_cast<int64_t>(r.pct_steps));
  json.Key("replayed_prefixes").Int(static_cast<int64_t>(r.replayed_prefixes));
  json.Key("jobs").Int(static_cast<int64_t>(s.jobs));
  json.Key("ran_ahead_unused").Int(static_cast<int64_t>(s.ran_ahead_unused));
  json.Key("checkpoint");
  if (s.checkpoint.path.empty()) {
    json.Null();
  } else {
    json.BeginObject();
    json.Key("path").String(s.checkpoint.path);
    json.Key("resumed").Bool(s.checkpoint.resumed);
    json.Key("resumed_executions").Int(static_cast<int64_t>(s.checkpoint.resumed_executions));
    json.Key("write_error").String(s.checkpoint.write_error);
    json.EndObject();
  }
  json.Key("schedules_digest").String(Hex64(r.schedules_digest));
  json.EndObject();
  if (s.visibility.atomics) s.visibility.atomics->WriteJson(json);
  if (s.visibility.atomics && s.visibility.atomics->races_looked_for) {
    WriteRacesJson(json, s.visibility.atomics->races, FlippedChangedOutcome(s));
  } else {
    json.Key("races").Null();
  }
  json.Key("warnings").BeginArray();
  for (const std::string& spot : s.visibility.blind_spots) json.String(spot);
  for (const std::string& line : PredictionLines(r.predictions ? &*r.predictions : nullptr, true)) {
    if (line.rfind("warning: ", 0) == 0) json.String(line.substr(9));
  }
  json.EndArray();
  WritePredictionsJson(json, r.predictions ? &*r.predictions : nullptr);
  json.Key("hints").BeginArray();
  for (const std::string& hint : s.visibility.hints) json.String(hint);
  json.EndArray();
  json.Key("stopped_by").String(StopWord(s));
  json.Key("interrupted_by");
  if (s.interrupted) {
    json.String(SignalName(s.stop_signal));
  } else {
    json.Null();
  }
  json.Key("interrupted_trace").String(s.interrupted_trace);
  json.Key("step_limited").Int(static_cast<int64_t>(r.step_limited));
  json.Key("divergences").Int(static_cast<int64_t>(r.divergences));
  WritePrunedBranches(json, r, s.divergence);
  json.Key("minimizing").Int(static_cast<int64_t>(r.minimizing));
  json.Key("found_by");
  if (first != nullptr) {
    json.String(FoundByName(first->found));
  } else {
    json.Null();
  }
  json.Key("wall_seconds").Double(s.wall_seconds);
  json.Key("fork_server").BeginObject();
  json.Key("enabled").Bool(s.fork_server);
  json.Key("forked").Int(static_cast<int64_t>(s.forked));
  json.Key("unused_because");
  if (s.fork_server_unused.empty()) {
    json.Null();
  } else {
    json.String(s.fork_server_unused);
  }
  json.EndObject();
  json.Key("bugs").BeginArray();
  for (const ReportedBug& bug : s.bugs) {
    json.BeginObject();
    json.Key("outcome").String(search::OutcomeName(bug.found.summary.outcome));
    // What makes two bugs the same one (the outcome and where it happened): `merge` lists each once.
    const std::string signature = std::string(search::OutcomeName(bug.found.summary.outcome)) + "\n" +
                                  bug.found.summary.signature;
    json.Key("signature").String(Hex64(search::Fnv1a64(signature.data(), signature.size())));
    json.Key("execution").Int(static_cast<int64_t>(bug.found.execution));
    json.Key("preemptions").Int(bug.found.preemptions);
    json.Key("delays").OptionalInt(bug.found.delays ? std::optional<int64_t>(*bug.found.delays) : std::nullopt);
    json.Key("found_by").String(FoundByName(bug.found));
    json.Key("strategy").String(bug.found.execution_strategy);
    json.Key("minimized_from");
    if (bug.found.minimized_from) {
      json.BeginObject();
      json.Key("execution").Int(static_cast<int64_t>(bug.found.minimized_from->execution));
      json.Key("preemptions").Int(bug.found.minimized_from->preemptions);
      json.Key("strategy").String(bug.found.minimized_from->execution_strategy);
      json.EndObject();
    } else {
      json.Null();
    }
    json.Key("critical_pair");
    if (auto pair = search::FindCriticalPair(bug.found.schedule, bug.found.preemption_decisions)) {
      const auto side = [&](const char* key, search::ThreadId thread, const search::SchedulingPoint& point) {
        json.Key(key).BeginObject();
        json.Key("thread").Int(thread.value);
        json.Key("instruction").Int(static_cast<int64_t>(point.instruction));
        json.Key("at").String(NameInstruction(point, bug));
        json.Key("address").Int(static_cast<int64_t>(point.resource));
        json.Key("memory").String(MemoryNamed(point, thread, bug, race_variables));
        json.Key("kind").String(point.op == search::OpKind::kRacyAccess ? "racy-access" : "atomic");
        json.Key("writes").Bool(point.is_write);
        json.EndObject();
      };
      json.BeginObject();
      json.Key("preemption").Int(static_cast<int64_t>(pair->preemption));
      side("waited", pair->waited, pair->waited_at);
      side("went_first", pair->went_first, pair->went_first_at);
      json.EndObject();
    } else {
      json.Null();
    }
    json.Key("exit_status").OptionalInt(bug.run.result.exit_status);
    json.Key("signal");
    if (bug.run.result.signal) {
      json.String(SignalName(*bug.run.result.signal));
    } else {
      json.Null();
    }
    json.Key("message").String(WhatHappened(bug));
    json.Key("trace").String(bug.trace_path);
    json.Key("output_tail").String(bug.run.output_tail);
    json.Key("threads").BeginArray();
    for (const supervisor::ThreadReport& t : bug.run.result.threads) {
      json.BeginObject();
      json.Key("thread").Int(t.thread);
      json.Key("state").String(t.state);
      json.Key("call").String(t.call);
      json.Key("resource").String(t.resource);
      WriteWaitsFor(json, t);
      WriteFrames(json, t.frames);
      json.EndObject();
    }
    json.EndArray();
    WriteStuckExplanation(json, bug.run.result);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.str() + "\n";
}

std::string ReplayCommand(const std::string& trace) { return "chess-trace replay " + trace; }

}  // namespace chess::cli
