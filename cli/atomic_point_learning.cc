#include "cli/atomic_point_learning.h"

#include "cli/json_writer.h"
#include "cli/race_points.h"
#include "cli/report.h"
#include "search/bounded_execution.h"
#include "supervisor/world/output_capture.h"

namespace chess::cli {

search::AtomicPointPlan LearningPlan(SyncPoints level) {
  search::AtomicPointPlan plan;
  plan.mode = search::AtomicPointPlan::Mode::kLearn;
  plan.detect_races = level >= SyncPoints::kRaces;
  return plan;
}

std::optional<AtomicPointsSeen> AtomicPointsSeen::Of(const std::optional<search::AtomicPointPlan>& plan,
                                                     const search::AtomicPointCount& count) {
  if (!plan) return std::nullopt;
  AtomicPointsSeen seen;
  const bool learning = plan->mode == search::AtomicPointPlan::Mode::kLearn;
  seen.sites = learning ? count.shared.size() : 0;
  seen.learned_sites = learning ? count.learned_sites : 0;
  seen.alone_sites = learning ? count.alone.size() : plan->alone_sites.size();
  seen.max_points = plan->max_points;
  if (learning && plan->detect_races) {
    seen.races_looked_for = true;
    seen.races = count.races;
    seen.race_sites = RaceSites(count.races).size();
  } else if (!learning) {
    seen.race_sites = plan->race_sites.size();
  }
  seen.Add(count);
  return seen;
}

void AtomicPointsSeen::Add(const search::AtomicPointCount& count) {
  planted += count.planted;
  stops += count.stops;
  points += count.points;
  ++executions;
  if (count.capped) ++capped_executions;
  refused.insert(count.refused.begin(), count.refused.end());
  sampled_sites += count.sampled_sites;
  sampled_accesses += count.sampled_accesses;
  watched_accesses += count.watched_accesses;
  sampling_capped = sampling_capped || count.sampling_capped;
  race_detection_cut_short = race_detection_cut_short || count.race_detection_cut_short;
  race_points += count.race_points;
}

void AtomicPointsSeen::UseRaces(const search::AtomicPointCount& learned, const search::AtomicPointPlan& plan) {
  races_looked_for = true;
  races = learned.races;
  race_sites = plan.race_sites.size();
  sampled_sites = learned.sampled_sites;
  sampled_accesses = learned.sampled_accesses;
  watched_accesses = learned.watched_accesses;
  sampling_capped = learned.sampling_capped;
  race_detection_cut_short = learned.race_detection_cut_short;
}

void AtomicPointsSeen::WriteJson(JsonWriter& json) const {
  json.Key("atomic_points").BeginObject();
  json.Key("sites").Int(static_cast<int64_t>(sites));
  json.Key("learned_sites").Int(static_cast<int64_t>(learned_sites));
  json.Key("alone_sites").Int(static_cast<int64_t>(alone_sites));
  json.Key("planted").Int(static_cast<int64_t>(planted));
  json.Key("stops").Int(static_cast<int64_t>(stops));
  json.Key("points").Int(static_cast<int64_t>(points));
  json.Key("capped").Bool(capped_executions > 0);
  json.Key("capped_executions").Int(static_cast<int64_t>(capped_executions));
  json.Key("max_points").Int(static_cast<int64_t>(max_points));
  json.Key("refused").BeginArray();
  for (const std::string& file : refused) json.String(file);
  json.EndArray();
  json.Key("races").Int(static_cast<int64_t>(races.size()));
  json.Key("race_sites").Int(static_cast<int64_t>(race_sites));
  json.Key("race_points").Int(static_cast<int64_t>(race_points));
  json.Key("sampled_sites").Int(static_cast<int64_t>(sampled_sites));
  json.Key("sampled_accesses").Int(static_cast<int64_t>(sampled_accesses));
  json.Key("watched_accesses").Int(static_cast<int64_t>(watched_accesses));
  json.Key("sampling_capped").Bool(sampling_capped);
  json.Key("race_detection_cut_short").Bool(race_detection_cut_short);
  json.EndObject();
}

void AtomicPointLearning::Learn(const PreparedExecution& execution, const search::LivenessLimits& limits) {
  supervisor::SupervisorOptions options = execution.options;
  options.atomic_points = LearningPlan(level_);
  options.fork_server = nullptr;
  search::BoundedExecution natural(search::Branch{}, limits);
  supervisor::OutputCapture capture;
  const bool captured = capture.Begin().ok();
  const supervisor::ExecutionResult result = Execute(execution, options, natural);
  if (captured) (void)capture.End(0);
  Learned(result.atomics, result.outcome);
}

void AtomicPointLearning::Learned(const search::AtomicPointCount& count, search::Outcome outcome) {
  learned_ = count;
  outcome_ = outcome;
}

search::AtomicPointPlan AtomicPointLearning::Plan() const {
  search::AtomicPointPlan plan;
  plan.mode = search::AtomicPointPlan::Mode::kPoints;
  plan.alone_sites = learned_.alone;
  plan.max_points = max_points_;
  if (level_ >= SyncPoints::kRaces) plan.race_sites = RaceSites(learned_.races);
  return plan;
}

std::string AtomicPointLearning::Sentence() const {
  std::string text = "atomic points: every atomic instruction but the " + std::to_string(learned_.alone.size()) +
                     " that ran only while their thread was alone (" + std::to_string(learned_.shared.size()) +
                     " of the " + std::to_string(learned_.learned_sites) + " executed ran beside another thread)";
  if (level_ >= SyncPoints::kRaces) text += "; " + RaceSentence(learned_);
  return text;
}

std::string AtomicPointLearning::FailureNote() const {
  if (outcome_ == search::Outcome::kOk) return "";
  return " (the execution that learned them ended " + std::string(search::OutcomeName(outcome_)) +
         "; the search's first execution runs the same schedule and reports it)";
}

AtomicPointsSeen AtomicPointLearning::Seen() const {
  AtomicPointsSeen seen;
  seen.sites = learned_.shared.size();
  seen.learned_sites = learned_.learned_sites;
  seen.alone_sites = learned_.alone.size();
  seen.max_points = max_points_;
  seen.refused = learned_.refused;
  if (level_ >= SyncPoints::kRaces) seen.UseRaces(learned_, Plan());
  return seen;
}

}  // namespace chess::cli
