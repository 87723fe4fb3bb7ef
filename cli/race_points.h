// The race layer's words (--sync-points races): which instructions a learning execution's data
// races make points, the line each race gets on stderr, what the learning execution saw of memory
// accesses, and the "races" array of --report. A data race is reported, never a bug: the exit
// status does not change, and the search goes on to look for what the race can do.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "search/atomic_points.h"
#include "search/replay_strategy.h"

namespace chess::cli {

class JsonWriter;

// The instructions of `races`' accesses that lie in decoded code (a module named): the kPoints
// plan's race_sites. An access outside it cannot be planted.
std::set<search::CodeLocation> RaceSites(const std::vector<search::ObservedRace>& races);

// "data race: thread 1 wrote claimed (plain) at worker+0x1b (plain.c:29) and thread 2 read it at
// worker+0x6 (plain.c:27), ordered by no synchronization; both are scheduling points now" —
// without the "chess-trace: " that Messages::Say puts first.
std::string RaceLine(const search::ObservedRace& race);

// "race points: 4 instructions in 2 data races found in one execution that sampled 130 of the
// 2000 memory-access instructions it could sample (…); a race whose accesses were not sampled …
// is no point": what a learning execution with race detection saw, and what it could not.
std::string RaceSentence(const search::AtomicPointCount& learned);

// Whether a bug's schedule preempted a thread just before one of `race`'s two accesses: a
// decision of `preemptions` at a racy-access point on the race's memory whose instruction is one
// of them — by where the bug's replay found it (`instruction_locations`: module and offset, as the
// race names it), else by the name it gave it (`instruction_names`), else by its address.
bool PreemptedAtRace(const search::ObservedRace& race, const std::vector<search::RecordedDecision>& schedule,
                     const std::vector<size_t>& preemptions, const std::map<uint64_t, std::string>& instruction_names,
                     const std::map<uint64_t, search::CodeLocation>& instruction_locations = {});

// The "races" array of --report, one object per race. `flipped_changed_outcome` gives each
// race's entry: true, false or null (unknown).
void WriteRacesJson(JsonWriter& json, const std::vector<search::ObservedRace>& races,
                    const std::vector<std::optional<bool>>& flipped_changed_outcome);

}  // namespace chess::cli
