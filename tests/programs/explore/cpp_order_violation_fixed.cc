// cpp_order_violation_fixed: the correct twin of cpp_order_violation_buggy.cc.
//
// main publishes the configuration before it starts the worker; starting a std::thread orders
// everything before it with everything in the new thread, so the worker sees the
// configuration under every schedule.
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
const Config* config = nullptr;  // guarded by config_mutex; set before the worker exists
int worker_result = 0;

void Work() {
  const Config* c;
  {
    std::lock_guard lock(config_mutex);
    c = config;
  }
  worker_result = c->verbosity * 10 + c->retries;
}

}  // namespace

int main() {
  static const Config the_config{"default", 2, 3};
  {
    std::lock_guard lock(config_mutex);
    config = &the_config;
  }
  std::thread worker(Work);
  worker.join();
  assert(worker_result == 23);
  std::printf("worker result %d\n", worker_result);
  return 0;
}
