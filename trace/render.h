// Renderers of a decoded trace: a text timeline for people, the decoded records as JSON for
// tools, and the Chrome trace-event format that Perfetto and chrome://tracing open.
#pragma once

#include <string>

#include "trace/format.h"

namespace chess::trace {

// One row per scheduling decision and one column per thread: where the thread that ran
// stopped, and which thread ran next; preemptions, backstop interrupts and waits on the outside
// world are marked. Ends with the outcome.
std::string RenderText(const Trace& trace);
// Every record, decoded.
std::string RenderJson(const Trace& trace);
// Trace-event JSON: each stretch a thread ran, from one decision to the next, on its own track
// (time is the decision number, in microseconds).
std::string RenderChrome(const Trace& trace);

}  // namespace chess::trace
