// What deadlock prediction found, as reports say it: the text lines (a summary, then a warning
// per cycle not made to happen) and the JSON keys `prediction` and `predicted`. Shared by
// `explore` (which tries each cycle) and `run --predict` (which only predicts).
#pragma once

#include <string>
#include <vector>

#include "cli/json_writer.h"
#include "search/explorer.h"

namespace chess::cli {

// `tried`: explore's directed executions ran (a cycle not confirmed says how many tried it);
// false for run --predict, which lists every cycle as a potential deadlock. Null: prediction off.
std::vector<std::string> PredictionLines(const search::PredictionsResult* predictions, bool tried);

// "prediction": its summary object (null when off); "predicted": every cycle with its steps.
void WritePredictionsJson(JsonWriter& json, const search::PredictionsResult* predictions);

}  // namespace chess::cli
