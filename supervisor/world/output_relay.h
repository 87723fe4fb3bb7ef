// OutputRelay: copies what a replayed program writes to its stand-in descriptors (the master of
// a pseudo-terminal, the read end of a pipe, a socket, a file) to the user's own descriptors,
// while the program runs.
//
// Two threads. The reader drains every source as soon as something arrives, so a stand-in never
// fills up: a program's write never waits for the user's terminal or pipe, which would change
// what the program does and when. The writer writes what was drained to the user's
// descriptors, in the order it was drained. Both block every signal (the supervisor's tick and
// the stop signals are for the thread that waits for the program), and both wait only in
// poll() with an eventfd that ends the wait, or on a condition variable, so neither can keep
// chess-trace from ending.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "search/result.h"

namespace chess::supervisor {

class OutputRelay {
 public:
  OutputRelay();
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;
  // Stops at once: what was not delivered yet is dropped (Finish delivers it).
  ~OutputRelay();

  // Before Start. The relay owns both descriptors; `to` -1 drops what comes.
  // A stream ends at its end of file (or EIO: a pseudo-terminal none of whose ends is open).
  // `undo_onlcr`: `from` is the master of a pseudo-terminal whose output processing turns each
  // "\n" into "\r\n" (ONLCR, on in a fresh terminal): the relay turns them back, so the user's
  // file or pipe gets what the program wrote (a terminal adds the "\r" again itself).
  void AddStream(int from, int to, bool undo_onlcr);
  // A file the program writes to, followed from its start as it grows (read with pread, so the
  // program's file offset is untouched).
  void AddFile(int from, int to);
  bool Empty() const;

  Result<void> Start();
  // Waits until what the program wrote so far has been written to the user's descriptors, at
  // most `timeout`; false when it was not.
  bool Flush(std::chrono::milliseconds timeout);
  // The program has ended: takes the rest of its output, delivers it, and stops. Waits as long
  // as a user's descriptor takes it (a pipe nobody reads waits, as the program would have), but
  // stops at once when `give_up` says so (asked every 100 ms: a stop signal) or at `deadline`.
  void Finish(const std::function<bool()>& give_up,
              std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

 private:
  struct State;
  void Stop();

  std::shared_ptr<State> state_;
  std::thread reader_;
  std::thread writer_;
};

}  // namespace chess::supervisor
