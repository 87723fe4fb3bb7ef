// Reports of one execution: the text a person reads on stderr and the --report JSON.
#pragma once

#include <string>

#include "supervisor/execution_result.h"

namespace chess::cli {

// Empty for a clean `ok`; otherwise the report, first line naming the outcome.
std::string TextReport(const supervisor::ExecutionResult& result);

// Every thread's state, call and stack, one block per thread.
std::string ThreadStates(const supervisor::ExecutionResult& result);

std::string JsonReport(const supervisor::ExecutionResult& result, const std::string& command);

// "SIGSEGV" for 11.
std::string SignalName(int signal);

}  // namespace chess::cli
