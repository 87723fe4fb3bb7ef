// std::thread, std::mutex, std::condition_variable, std::async and futures, std::atomic.
#include <atomic>
#include <condition_variable>
#include <future>
#include <iostream>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

int main() {
  std::mutex mutex;
  std::condition_variable ready;
  std::queue<int> work;
  bool closed = false;
  std::atomic<long> processed{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 3; ++i) {
    workers.emplace_back([&] {
      for (;;) {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return closed || !work.empty(); });
        if (work.empty()) return;
        const int item = work.front();
        work.pop();
        lock.unlock();
        processed += item;
      }
    });
  }
  for (int i = 1; i <= 1000; ++i) {
    std::lock_guard lock(mutex);
    work.push(i);
    ready.notify_one();
  }
  {
    std::lock_guard lock(mutex);
    closed = true;
  }
  ready.notify_all();
  for (auto& worker : workers) worker.join();

  std::vector<std::future<long>> partial;
  for (int i = 0; i < 4; ++i) {
    partial.push_back(std::async(std::launch::async, [i] {
      long sum = 0;
      for (int j = i * 250 + 1; j <= (i + 1) * 250; ++j) sum += j;
      return sum;
    }));
  }
  long total = 0;
  for (auto& f : partial) total += f.get();
  std::cout << "queue processed " << processed << ", async total " << total << "\n";
  return processed == 500500 && total == 500500 ? 0 : 1;
}
