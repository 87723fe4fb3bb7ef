#include "cli/trace_commands.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <iostream>

#include "cli/command_line.h"
#include "cli/execution.h"
#include "cli/exit_codes.h"
#include "cli/refusals.h"
#include "cli/report.h"
#include "cli/trace_recording.h"
#include "cli/oracle_judge.h"
#include "search/replay_strategy.h"
#include "seccomp/filter.h"
#include "supervisor/world/descriptor_stand_ins.h"
#include "supervisor/ptrace/event_waiter.h"
#include "supervisor/thread_table.h"
#include "trace/recorder.h"
#include "trace/render.h"
#include "trace/standard_descriptors.h"
#include "trace/trace_reader.h"

namespace chess::cli {
namespace {

// How long a replay of a recorded hang lets the program wait on the outside world.
constexpr double kReplayHangWaitSeconds = 1;

// replay's own exit status when the execution did not follow the recording.
constexpr int kExitDiverged = 1;

std::string NameOfSyscall(int64_t nr) { return seccomp::SyscallName(nr); }

std::string Describe(search::Outcome outcome, const std::optional<int64_t>& exit_status, const std::optional<int64_t>& signal) {
  std::string text(search::OutcomeName(outcome));
  if (exit_status) text += " (exit status " + std::to_string(*exit_status) + ")";
  if (signal) text += " (" + SignalName(static_cast<int>(*signal)) + ")";
  return text;
}

// Where --stop-at asks to stop, as supervisor options; false (said why) when it cannot be.
bool ApplyStopAt(const std::string& stop_at, const trace::Trace& trace, supervisor::SupervisorOptions& options,
                 Messages& messages) {
  if (stop_at.empty()) return true;
  if (stop_at == "failure") {
    if (!trace.outcome || trace.outcome->outcome == search::Outcome::kOk) {
      messages.Say("--stop-at failure: the recorded run did not fail (it ended " +
                   std::string(trace.outcome ? search::OutcomeName(trace.outcome->outcome) : "without an outcome") +
                   "); give a decision number instead");
      return false;
    }
    options.stop_at_failure = true;
    return true;
  }
  if (stop_at == "last-preemption") {
    for (size_t k = trace.decisions.size(); k-- > 0;) {
      const search::RecordedDecision& d = trace.decisions[k];
      if (d.current && d.stop == search::StopReason::kReachedPoint && d.picked != *d.current &&
          d.point.op != search::OpKind::kThreadStart) {
        options.stop_before_decision = k;
        return true;
      }
    }
    messages.Say("--stop-at last-preemption: the recording has no preemption (every switch came from a block, a "
                 "yield or an exit); give a decision number instead");
    return false;
  }
  if (stop_at.find_first_not_of("0123456789") != std::string::npos || stop_at.size() > 18) {
    messages.Say("--stop-at " + stop_at + ": expected a decision number, last-preemption or failure");
    return false;
  }
  const uint64_t decision = std::stoull(stop_at);
  if (decision >= trace.decisions.size()) {
    messages.Say("--stop-at " + stop_at + ": the recording has decisions 0 to " +
                 std::to_string(trace.decisions.size() == 0 ? 0 : trace.decisions.size() - 1));
    return false;
  }
  options.stop_before_decision = decision;
  return true;
}

// Says where the tree is and how to look at it, then waits until the user is done (Ctrl-C, or
// every process gone).
void AwaitInspection(const supervisor::Handover& handover, Messages& messages) {
  supervisor::ExecutionResult states;
  states.threads = handover.threads;
  messages.Say("stopped " + handover.where + ", as asked. The tree is stopped (SIGSTOP) and no longer traced:");
  messages.Raw(ThreadStates(states));
  std::string commands = "Inspect it with:\n";
  for (pid_t pid : handover.processes) {
    std::string what;
    for (const supervisor::ThreadReport& thread : handover.threads) {
      if (thread.host_tid == pid) what = " (pid " + std::to_string(thread.pid) + " inside the tree)";
    }
    commands += "  gdb -p " + std::to_string(pid) + what + "\n";
  }
  commands += "For inspection only: with no tracer its intercepted syscalls fail with ENOSYS, so it cannot go on "
              "as recorded. Press Ctrl-C (or send SIGTERM to chess-trace, pid " + std::to_string(getpid()) +
              ") when done: chess-trace then ends the tree.\n";
  messages.Raw(commands);
  for (;;) {
    if (supervisor::PendingStopSignal() != 0) return;
    bool any = false;
    for (pid_t pid : handover.processes) {
      const std::optional<char> state = supervisor::KernelState(pid);
      any = any || (state && *state != 'Z' && *state != 'X');
    }
    if (!any) {
      messages.Say("every process of the tree has ended");
      return;
    }
    const timespec pause{0, 100'000'000};
    nanosleep(&pause, nullptr);
  }
}

// When the program's descriptors 0-2 were not what the recording had, or the trace does not
// say what it had, the lines that say so (for a divergence: programs take other paths on a
// terminal, a pipe or a file). Empty when they were as recorded.
std::string KindsNote(const std::string& trace_path, const trace::Trace& trace,
                      const supervisor::ExecutionResult& result, const supervisor::DescriptorStandIns& stand_ins) {
  if (!result.standard_descriptors) return "";
  const trace::StandardDescriptors given = ToTrace(*result.standard_descriptors);
  if (!trace.standard_descriptors) {
    return "  note: the trace does not say what stdin, stdout and stderr were (it was written before chess-trace "
           "kept them); in this replay: " + trace::StandardDescriptorsInWords(given) +
           ".\n  A program that looks at them (isatty, fstat, the window size) takes other paths on a terminal, a "
           "pipe or a file: replay it with them as they were when it was recorded. explore records with stdout and "
           "stderr in two files: chess-trace replay " + trace_path + " >out.txt 2>err.txt\n";
  }
  std::string note;
  for (const std::string& difference : trace::DescriptorDifferences(*trace.standard_descriptors, given)) {
    note += "  note: " + difference + "\n";
  }
  if (note.empty()) return "";
  for (const std::string& shortfall : stand_ins.Shortfalls()) note += "    " + shortfall + "\n";
  return note;
}

}  // namespace

CLI::App* AddReplayCommand(CLI::App& app, ReplayOptions& options) {
  CLI::App* replay = app.add_subcommand(
      "replay",
      "Run a recorded execution again, exactly: the recorded command, environment and working "
      "directory, every scheduling decision enforced and every input from outside fed back. Exits "
      "0 and says `reproduced: OUTCOME` when it ends as recorded; exits 1 and says where it stopped "
      "following the recording otherwise. After --, a program to run instead of the recorded one "
      "(a rebuilt binary at another path).");
  replay->add_option("trace", options.trace_path, "The trace (from run --trace)")->required()->type_name("TRACE");
  replay->add_option("--cpu", options.cpu, "Run on this CPU (as for run)")->type_name("CPU")->check(WholeNumber(0, 8191));
  replay->add_flag("--no-pin", options.no_pin, "Do not pin to one CPU");
  replay->add_option("--report", options.report_path, "Write a JSON report (schema 2) to FILE")->type_name("FILE");
  replay->add_option("--log", options.log_path, "Write chess-trace's own messages to FILE instead of stderr")
      ->type_name("FILE");
  replay->add_option("--stop-at", options.stop_at,
                     "Stop the tree at that point and leave it stopped for a debugger: before decision N "
                     "(the numbers `show` prints), before the last preemption, or where it fails (the "
                     "deadlock, the fatal signal, the root's exit with a nonzero status). chess-trace prints "
                     "the `gdb -p` command for each process and waits; Ctrl-C ends the tree. For inspection "
                     "only: untraced, the tree's intercepted syscalls fail with ENOSYS, so it cannot go on "
                     "as recorded")
      ->type_name("N|last-preemption|failure");
  return replay;
}

int ReplayCommand(const ReplayOptions& options) {
  Messages messages;
  if (!messages.UseLog(options.log_path)) return kExitError;
  if (!options.report_path.empty()) {
    if (auto checked = CheckFileDestination("--report", options.report_path); !checked) {
      messages.Say(checked.error());
      return kExitError;
    }
  }
  auto trace = trace::ReadTrace(options.trace_path, ToolVersion());
  if (!trace) {
    messages.Say(trace.error());
    return kExitError;
  }
  search::SetSyscallNamer(NameOfSyscall);
  ExecutionSettings settings = RecordedSettings(*trace);
  if (!options.command.empty()) settings.command = options.command;
  settings.cpu = options.cpu;
  settings.no_pin = options.no_pin;
  // A recorded hang ended when every thread had waited on the outside world for --external-wait,
  // which the trace does not keep: the replay ends the same way once it waits like that again,
  // instead of waiting forever.
  if (trace->outcome && trace->outcome->outcome == search::Outcome::kHang) {
    settings.external_wait_seconds = kReplayHangWaitSeconds;
  }
  if (options.command.empty()) {
    // The executable as it was resolved when recorded (a relative one from the recorded working
    // directory, wherever the replay is started); argv stays exactly as recorded.
    std::string path = trace->command.path;
    if (!path.empty() && path.front() != '/' && !trace->command.cwd.empty()) path = trace->command.cwd + "/" + path;
    settings.executable = path;
  }
  auto prepared = PrepareExecution(settings, messages);
  if (auto* code = std::get_if<int>(&prepared)) return *code;
  PreparedExecution& execution = std::get<PreparedExecution>(prepared);
  trace::ReplayLog log(trace->outside_waits);
  execution.options.log = &log;
  if (!ApplyStopAt(options.stop_at, *trace, execution.options, messages)) return kExitError;
  // The program gets descriptors 0-2 of the kinds it had when recorded; what it writes to a
  // stand-in reaches the user's own as it runs.
  // A trace judged by an output oracle: the program writes to files, as explore's executions did,
  // and what it wrote is judged the same way, then shown once it has ended.
  std::optional<OracleJudge> oracle;
  supervisor::OutputCapture capture;
  if (trace->oracle) {
    auto made = search::OutputOracle::Make(trace->oracle->output);
    if (!made) {
      messages.Say(options.trace_path + ": " + made.error());
      return kExitError;
    }
    OracleWorld world;
    world.cwd = settings.cwd.empty() ? CurrentDirectory() : settings.cwd;
    world.check_env = OwnEnvironment();
    world.expect_exit = static_cast<int>(trace->oracle->expect_exit);
    oracle.emplace(std::move(*made), std::move(world), false, std::vector<std::string>{});
    execution.options.inspect_world = oracle->Inspector();
    if (auto begun = capture.Begin(); !begun) {
      messages.Say(begun.error());
      return kExitError;
    }
  }
  supervisor::DescriptorStandIns stand_ins;
  if (trace->standard_descriptors) {
    const bool input_apart = settings.input && (settings.input->kind == supervisor::CapturedInput::Kind::kPipe ||
                                                settings.input->kind == supervisor::CapturedInput::Kind::kFile);
    if (auto installed = stand_ins.Install(FromTrace(*trace->standard_descriptors), input_apart); !installed) {
      messages.Say(installed.error());
      return kExitError;
    }
  }
  execution.options.on_handover = [&messages, &stand_ins](const supervisor::Handover& handover) {
    stand_ins.Flush();
    AwaitInspection(handover, messages);
  };
  search::ReplayStrategy strategy(trace->decisions);
  if (trace->outcome && search::EndsAtADecision(trace->outcome->outcome)) {
    strategy.EndWith({trace->outcome->outcome, trace->outcome->message});
  }
  supervisor::ExecutionResult result = Execute(execution, execution.options, strategy);
  // A recorded run that failed after a refused call was judged `unsupported`; so is its replay.
  if (trace->outcome && trace->outcome->outcome == search::Outcome::kUnsupported) {
    result.outcome = RefusalJudge().Judge(result, result.outcome, &result.message);
  }
  // All of the program's output is delivered before chess-trace says how the replay went.
  stand_ins.Finish([] { return supervisor::PendingStopSignal() != 0; },
                   result.stopped_by_signal != 0 || result.handed_over);
  if (oracle) {
    const supervisor::CapturedOutput output = capture.End();
    (void)!write(STDOUT_FILENO, output.out.data(), output.out.size());
    (void)!write(STDERR_FILENO, output.err.data(), output.err.size());
    // As explore judged it: the recorded --expect-exit makes the exit `ok`, then the oracle.
    const bool expected_exit = (result.outcome == search::Outcome::kOk || result.outcome == search::Outcome::kExitStatus) &&
                               result.exit_status == trace->oracle->expect_exit;
    if (expected_exit) result.outcome = oracle->Judge(search::Outcome::kOk, result, output, &result.message);
  }
  const std::string kinds = KindsNote(options.trace_path, *trace, result, stand_ins);
  if (result.handed_over) {
    messages.Say("the tree was ended");
    return 0;
  }
  if (result.stopped_by_signal != 0) {  // SIGINT, SIGTERM, SIGHUP: 130, 143, 129, as for run
    ReportExecution(result, execution.spec.path, "replay", options.report_path, execution.options.atomic_points, messages);
    return 128 + result.stopped_by_signal;
  }
  if (!options.stop_at.empty() && result.outcome != search::Outcome::kDivergence) {
    messages.Say("--stop-at " + options.stop_at + ": the replay ended (" +
                 Describe(result.outcome, result.exit_status, result.signal) + ") before reaching that point");
    ReportExecution(result, execution.spec.path, "replay", options.report_path, execution.options.atomic_points, messages);
    return kExitDiverged;
  }

  if (result.outcome == search::Outcome::kDivergence) {
    messages.Say("diverged: the replay stopped following the recording at " + result.message);
    messages.Raw(ThreadStates(result));
    messages.Raw(kinds);
    ReportExecution(result, execution.spec.path, "replay", options.report_path, execution.options.atomic_points, messages);
    return kExitDiverged;
  }
  if (!ReportExecution(result, execution.spec.path, "replay", options.report_path, execution.options.atomic_points, messages)) return kExitError;
  if (!trace->outcome) {
    messages.Say("the recording has no outcome (the recorded run was cut short); the replay ended with " +
                 Describe(result.outcome, result.exit_status, result.signal));
    return kExitDiverged;
  }
  const trace::Outcome& recorded = *trace->outcome;
  const std::optional<int64_t> exit_status = result.exit_status ? std::optional<int64_t>(*result.exit_status) : std::nullopt;
  const std::optional<int64_t> signal = result.signal ? std::optional<int64_t>(*result.signal) : std::nullopt;
  if (result.outcome != recorded.outcome || exit_status != recorded.exit_status || signal != recorded.signal) {
    messages.Say("diverged: the recording ended with " + Describe(recorded.outcome, recorded.exit_status, recorded.signal) +
                 ", the replay with " + Describe(result.outcome, exit_status, signal));
    messages.Raw(kinds);
    return kExitDiverged;
  }
  if (strategy.Followed() != strategy.Recorded()) {
    messages.Say("diverged: the program ended after " + std::to_string(strategy.Followed()) + " of the " +
                 std::to_string(strategy.Recorded()) + " recorded decisions");
    messages.Raw(kinds);
    return kExitDiverged;
  }
  messages.Say("reproduced: " + Describe(result.outcome, exit_status, signal) + ", all " +
               std::to_string(strategy.Recorded()) + " decisions followed");
  return 0;
}

CLI::App* AddShowCommand(CLI::App& app, ShowOptions& options) {
  CLI::App* show = app.add_subcommand(
      "show",
      "Draw a recorded execution on stdout: `text` is a timeline with one column per thread "
      "(preemptions and interrupts marked) and the outcome; `json` is every record decoded; "
      "`chrome` is the trace-event format that Perfetto (ui.perfetto.dev) and chrome://tracing open.");
  show->add_option("trace", options.trace_path, "The trace (from run --trace)")->required()->type_name("TRACE");
  show->add_option("--format", options.format, "text, json or chrome")
      ->type_name("text|json|chrome")
      ->check(OneOf({"text", "json", "chrome"}))
      ->capture_default_str();
  return show;
}

int ShowCommand(const ShowOptions& options) {
  Messages messages;
  auto trace = trace::ReadTrace(options.trace_path, ToolVersion());
  if (!trace) {
    messages.Say(trace.error());
    return kExitError;
  }
  search::SetSyscallNamer(NameOfSyscall);
  if (options.format == "json") {
    std::cout << trace::RenderJson(*trace);
  } else if (options.format == "chrome") {
    std::cout << trace::RenderChrome(*trace);
  } else {
    std::cout << trace::RenderText(*trace);
  }
  std::cout.flush();
  return std::cout ? 0 : kExitError;
}

}  // namespace chess::cli
