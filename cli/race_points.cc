#include "cli/race_points.h"

#include <algorithm>
#include <cctype>

#include "cli/json_writer.h"
#include "cli/report.h"

namespace chess::cli {
namespace {

// An access in decoded code can be planted; one outside it (libc under the shim, a JIT) cannot.
bool CanBePoint(const search::RacingAccess& access) { return !access.instruction.module.empty(); }

const char* Verb(const search::RacingAccess& access) { return access.is_write ? "wrote" : "read"; }

// "claimed (plain_check_then_act_buggy)", or "the memory at 0x404c3c" when symbols name nothing.
std::string Memory(const search::ObservedRace& race) {
  return race.variable.empty() ? "the memory at " + Hex(race.address) : race.variable;
}

// What became of the race's two instructions.
std::string PointsClause(const search::ObservedRace& race) {
  const bool earlier = CanBePoint(race.earlier), later = CanBePoint(race.later);
  if (earlier && later) return "both are scheduling points now";
  if (!earlier && !later) return "both are outside the decoded code and are no points";
  const search::RacingAccess& outside = earlier ? race.later : race.earlier;
  const search::RacingAccess& inside = earlier ? race.earlier : race.later;
  return "thread " + std::to_string(outside.thread) + "'s access is outside the decoded code and is no point, thread " +
         std::to_string(inside.thread) + "'s is a scheduling point now";
}

// "worker+0x1b" of "worker+0x1b (plain.c:29)" or of "worker+0x1b (plain) at plain.c:29": the part
// every way of naming an instruction shares; the whole name when it has no offset.
std::string SymbolAndOffset(const std::string& name) {
  const size_t plus = name.rfind("+0x");
  if (plus == std::string::npos) return name;
  size_t end = plus + 3;
  while (end < name.size() && std::isxdigit(static_cast<unsigned char>(name[end]))) ++end;
  return name.substr(0, end);
}

bool SameInstruction(const search::SchedulingPoint& point, const search::RacingAccess& access,
                     const std::map<uint64_t, std::string>& instruction_names,
                     const std::map<uint64_t, search::CodeLocation>& instruction_locations) {
  if (auto located = instruction_locations.find(point.instruction); located != instruction_locations.end()) {
    return located->second == access.instruction;
  }
  if (auto named = instruction_names.find(point.instruction); named != instruction_names.end() && !access.name.empty()) {
    return SymbolAndOffset(named->second) == SymbolAndOffset(access.name);
  }
  return point.instruction == access.instruction.address;
}

// Whether a point's access and the race's memory overlap: the race's first shared byte lies in
// the at most 8 bytes the point touches, or the point starts inside the race's accesses. The same
// instruction on other memory (another element of an array) is another race.
bool SameMemory(const search::SchedulingPoint& point, const search::ObservedRace& race) {
  const uint64_t race_size = std::max<uint64_t>({1, race.earlier.size, race.later.size});
  return (race.address >= point.resource && race.address - point.resource < 8) ||
         (point.resource >= race.address && point.resource - race.address < race_size);
}

void WriteAccess(JsonWriter& json, const char* key, const search::RacingAccess& access) {
  json.Key(key).BeginObject();
  json.Key("thread").Int(access.thread);
  json.Key("access").String(access.is_write ? "write" : "read");
  json.Key("size").Int(access.size);
  json.Key("instruction").String(access.name);
  json.Key("module").String(access.instruction.module);
  json.Key("offset").String(Hex(access.instruction.address));
  json.EndObject();
}

}  // namespace

std::set<search::CodeLocation> RaceSites(const std::vector<search::ObservedRace>& races) {
  std::set<search::CodeLocation> sites;
  for (const search::ObservedRace& race : races) {
    for (const search::RacingAccess* access : {&race.earlier, &race.later}) {
      if (CanBePoint(*access)) sites.insert(access->instruction);
    }
  }
  return sites;
}

std::string RaceLine(const search::ObservedRace& race) {
  return "data race: thread " + std::to_string(race.earlier.thread) + " " + Verb(race.earlier) + " " + Memory(race) +
         " at " + race.earlier.name + " and thread " + std::to_string(race.later.thread) + " " + Verb(race.later) +
         " it at " + race.later.name + ", ordered by no synchronization; " + PointsClause(race);
}

std::string RaceSentence(const search::AtomicPointCount& learned) {
  const std::string sample = "one execution that sampled " + std::to_string(learned.sampled_accesses) + " of the " +
                             std::to_string(learned.sampled_sites) +
                             " memory-access instructions it could sample (the others never ran in it)";
  std::string text = "race points: ";
  if (learned.races.empty()) {
    text += "none: no data race seen in " + sample;
  } else {
    text += Plural(RaceSites(learned.races).size(), "instruction", "instructions") + " in " +
            Plural(learned.races.size(), "data race", "data races") + " found in " + sample;
  }
  text += "; a race whose accesses were not sampled, or whose second access the watchpoints missed, is no point";
  if (learned.race_detection_cut_short) {
    text += "; it stopped looking for races partway, past the atomic operations they may be judged against: races "
            "later in it were not seen";
  }
  if (learned.sampling_capped) {
    text += "; the program had more memory-access instructions than may be sampled (the program's own first, then "
            "its libraries'): the rest were not sampled";
  }
  return text;
}

bool PreemptedAtRace(const search::ObservedRace& race, const std::vector<search::RecordedDecision>& schedule,
                     const std::vector<size_t>& preemptions, const std::map<uint64_t, std::string>& instruction_names,
                     const std::map<uint64_t, search::CodeLocation>& instruction_locations) {
  for (size_t index : preemptions) {
    if (index >= schedule.size()) continue;
    const search::RecordedDecision& d = schedule[index];
    if (!d.current || d.point.op != search::OpKind::kRacyAccess || !SameMemory(d.point, race)) continue;
    for (const search::RacingAccess* access : {&race.earlier, &race.later}) {
      if (SameInstruction(d.point, *access, instruction_names, instruction_locations)) return true;
    }
  }
  return false;
}

void WriteRacesJson(JsonWriter& json, const std::vector<search::ObservedRace>& races,
                    const std::vector<std::optional<bool>>& flipped_changed_outcome) {
  json.Key("races").BeginArray();
  for (size_t i = 0; i < races.size(); ++i) {
    const search::ObservedRace& race = races[i];
    json.BeginObject();
    json.Key("address").String(Hex(race.address));
    json.Key("variable").String(race.variable);
    WriteAccess(json, "earlier", race.earlier);
    WriteAccess(json, "later", race.later);
    json.Key("points").Bool(CanBePoint(race.earlier) && CanBePoint(race.later));
    json.Key("flipped_changed_outcome");
    const std::optional<bool> flipped = i < flipped_changed_outcome.size() ? flipped_changed_outcome[i] : std::nullopt;
    if (flipped) {
      json.Bool(*flipped);
    } else {
      json.Null();
    }
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace chess::cli
