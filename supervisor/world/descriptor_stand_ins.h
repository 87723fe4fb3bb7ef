// DescriptorStandIns: gives a replayed program standard descriptors of the kinds its recording
// had. A program asks what its descriptors are (isatty, fstat, the window size) and takes
// other paths for each kind — C stdio buffers by line on a terminal and fully on a file or a
// pipe, CPython takes other locks — so a replay to a terminal of a run recorded with its output
// in files would not follow the recording.
//
// chess-trace's own descriptors 0-2, which the program inherits, are replaced for the replay:
//   - where the user's descriptor already is of the recorded kind (a terminal of the same size,
//     a pipe, a file; shared with the same others), it is left: the program gets it;
//   - otherwise by a stand-in of the recorded kind: a pseudo-terminal of the recorded size, a
//     pipe, a socket, a file (memfd), /dev/null or another memory device, or closed. What the
//     program writes to a stand-in is relayed to the user's descriptor of the same number
//     while it runs (output_relay.h); descriptors that were one file share one stand-in, whose
//     output goes to the first of them (a terminal for stdout and stderr: to stdout).
// A terminal stand-in gives no input: what a recorded program read from a terminal was not
// recorded. Finish puts the user's descriptors back.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "search/result.h"
#include "supervisor/world/output_relay.h"
#include "supervisor/world/standard_descriptors.h"

namespace chess::supervisor {

class DescriptorStandIns {
 public:
  DescriptorStandIns() = default;
  DescriptorStandIns(const DescriptorStandIns&) = delete;
  DescriptorStandIns& operator=(const DescriptorStandIns&) = delete;
  // Puts the user's descriptors back if Finish was not called (output not delivered is lost).
  ~DescriptorStandIns();

  // Makes chess-trace's descriptors 0-2 what `recorded` says. `input_apart`: stdin is given the
  // recorded bytes on its own (standard_input.h), so descriptor 0 is left to that. A kind that
  // cannot be given (no pseudo-terminal here, a device that is not a memory device) leaves the
  // user's descriptor, and is said in Shortfalls. An error: nothing was changed.
  Result<void> Install(const StandardDescriptors& recorded, bool input_apart);
  // One sentence for each kind that could not be given, and why.
  const std::vector<std::string>& Shortfalls() const { return shortfalls_; }
  // Delivers what the program wrote so far (before chess-trace says something about it).
  void Flush();
  // The program has ended: puts the user's descriptors back and delivers the rest of its output,
  // as long as that takes, unless `give_up` says so (a stop signal); with `hurry` (the stop
  // signal came already), what can be delivered within a second.
  void Finish(const std::function<bool()>& give_up, bool hurry);

 private:
  struct Plan;
  // The stand-in for one group of descriptors that were one file, put in `plan`.
  void MakeStandIn(const StandardDescriptors& recorded, const std::vector<int>& group, Plan& plan);
  void Restore();

  std::array<int, 3> saved_{-1, -1, -1};  // the user's descriptors, above 2, close-on-exec
  std::array<bool, 3> replaced_{};
  OutputRelay relay_;
  std::vector<std::string> shortfalls_;
};

}  // namespace chess::supervisor
