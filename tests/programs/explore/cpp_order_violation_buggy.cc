// cpp_order_violation_buggy: the C++ version of order_violation_buggy.c — a worker uses the
// configuration before main has published it.
//
// Bug: main starts the worker thread first and publishes the configuration afterwards. Both
// sides take config_mutex, which makes the accesses race-free but orders nothing: if the
// worker gets the mutex first it copies a null pointer and dereferences it (SIGSEGV).
//
// Schedule that exposes it (1 preemption): main returns from the std::thread constructor and
// is preempted at its config_mutex.lock() (or anywhere between the clone and that lock); the
// worker reads config == nullptr and faults on config->verbosity. Without a preemption main
// keeps running, publishes, and lets the worker run only when it blocks in join(). Natively the
// bug shows now and then, more often than the C version's: the kernel may run the new thread
// before the clone has returned in main.
//
// Fixed twin: cpp_order_violation_fixed.cc (publish before starting the thread).
#include <cassert>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

struct Config {
  const char* name;
  int verbosity;
  int retries;
};

std::mutex config_mutex;
const Config* config = nullptr;  // guarded by config_mutex; null until main publishes it
int worker_result = 0;

void Work() {
  const Config* c;
  {
    std::lock_guard lock(config_mutex);
    c = config;
  }
  // No null check: the author believed the configuration always exists by now.
  worker_result = c->verbosity * 10 + c->retries;
}

}  // namespace

int main() {
  static const Config the_config{"default", 2, 3};
  std::thread worker(Work);
  {
    // Too late: the worker may already be running.
    std::lock_guard lock(config_mutex);
    config = &the_config;
  }
  worker.join();
  assert(worker_result == 23);
  std::printf("worker result %d\n", worker_result);
  return 0;
}
