// What the benchmarks that time ptrace stops share: tracer and tracee on one CPU, as chess-trace
// runs them (it pins itself and the program to one core), so a stop costs two context switches
// on that CPU, never a wake-up across CPUs; and a child held until its tracer is ready.
#pragma once

#include <sched.h>
#include <unistd.h>

// Restricts the calling process (and the children it forks afterwards) to the first CPU it may use.
inline void PinToOneCpu() {
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  sched_getaffinity(0, sizeof(cpus), &cpus);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &cpus)) ++cpu;
  CPU_ZERO(&cpus);
  CPU_SET(cpu, &cpus);
  sched_setaffinity(0, sizeof(cpus), &cpus);
}

// A forked child that waits until Release(), then exits with `body()`'s value: the tracer
// attaches in between, so the timed loop runs traced from its first iteration.
class HeldChild {
 public:
  template <typename Body>
  explicit HeldChild(Body body) {
    int go[2];
    if (pipe(go) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      char byte;
      (void)!read(go[0], &byte, 1);
      _exit(body());
    }
    close(go[0]);
    release_ = go[1];
  }
  ~HeldChild() {
    if (release_ >= 0) close(release_);
  }
  HeldChild(const HeldChild&) = delete;
  HeldChild& operator=(const HeldChild&) = delete;

  // The child's pid; -1 when it could not be started.
  pid_t Pid() const { return pid_; }
  void Release() { (void)!write(release_, "x", 1); }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
};
