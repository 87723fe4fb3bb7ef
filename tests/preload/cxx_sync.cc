// C++'s synchronisation goes through the wrapped pthread functions (std::mutex, the timed and
// shared mutexes, std::condition_variable's clock waits, std::call_once through pthread_once).
// The shim must keep each behaving exactly, including an exception thrown out of a
// std::call_once callable, which libstdc++ lets propagate through pthread_once.
#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

int failures = 0;

#define EXPECT(condition)                                                         \
  do {                                                                            \
    if (!(condition)) {                                                           \
      std::fprintf(stderr, "%s:%d: EXPECT failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                                 \
    }                                                                             \
  } while (0)

bool ShimInterposed() {
  Dl_info info;
  void* address = dlsym(RTLD_DEFAULT, "pthread_mutex_lock");
  return address != nullptr && dladdr(address, &info) != 0 && info.dli_fname != nullptr &&
         std::strstr(info.dli_fname, "libchess_preload.so") != nullptr;
}

void Mutexes() {
  std::mutex mutex;
  long counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        std::lock_guard<std::mutex> lock(mutex);
        ++counter;
      }
    });
  for (auto& thread : threads) thread.join();
  EXPECT(counter == 80000);

  std::timed_mutex timed;
  timed.lock();
  std::thread other([&] {
    EXPECT(!timed.try_lock());
    EXPECT(!timed.try_lock_for(std::chrono::milliseconds(20)));
    EXPECT(!timed.try_lock_until(std::chrono::system_clock::now() + std::chrono::milliseconds(20)));
  });
  other.join();
  timed.unlock();
  EXPECT(timed.try_lock_for(std::chrono::milliseconds(20)));
  timed.unlock();

  std::recursive_mutex recursive;
  recursive.lock();
  EXPECT(recursive.try_lock());
  recursive.unlock();
  recursive.unlock();
}

void SharedMutex() {
  std::shared_mutex shared;
  shared.lock_shared();
  EXPECT(shared.try_lock_shared());
  std::thread writer([&] { EXPECT(!shared.try_lock()); });
  writer.join();
  shared.unlock_shared();
  shared.unlock_shared();
  std::shared_timed_mutex timed;
  timed.lock();
  std::thread reader([&] { EXPECT(!timed.try_lock_shared_for(std::chrono::milliseconds(20))); });
  reader.join();
  timed.unlock();
}

void ConditionVariable() {
  std::mutex mutex;
  std::condition_variable changed;
  std::unique_lock<std::mutex> lock(mutex);
  // steady_clock waits use pthread_cond_clockwait.
  EXPECT(changed.wait_for(lock, std::chrono::milliseconds(20)) == std::cv_status::timeout);
  EXPECT(lock.owns_lock());
  EXPECT(changed.wait_until(lock, std::chrono::system_clock::now() + std::chrono::milliseconds(20)) ==
         std::cv_status::timeout);
  bool ready = false;
  std::thread notifier([&] {
    std::lock_guard<std::mutex> guard(mutex);
    ready = true;
    changed.notify_all();
  });
  changed.wait(lock, [&] { return ready; });
  lock.unlock();
  notifier.join();
}

void CallOnce() {
  std::once_flag flag;
  int attempts = 0;
  try {
    std::call_once(flag, [&] {
      ++attempts;
      throw std::runtime_error("first attempt fails");
    });
    EXPECT(false);
  } catch (const std::runtime_error& error) {
    EXPECT(std::strcmp(error.what(), "first attempt fails") == 0);
  }
  std::call_once(flag, [&] { ++attempts; });
  std::call_once(flag, [&] { ++attempts; });
  EXPECT(attempts == 2);

  std::once_flag contended;
  std::atomic<int> runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      std::call_once(contended, [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ++runs;
      });
    });
  for (auto& thread : threads) thread.join();
  EXPECT(runs == 1);
}

}  // namespace

int main() {
  if (const char* expected = std::getenv("CHESS_TEST_EXPECT_SHIM"))
    EXPECT(ShimInterposed() == (std::strcmp(expected, "1") == 0));
  Mutexes();
  SharedMutex();
  ConditionVariable();
  CallOnce();
  if (failures != 0) {
    std::fprintf(stderr, "cxx_sync: %d check(s) failed\n", failures);
    return 1;
  }
  std::puts("cxx_sync: every check passed");
  return 0;
}
