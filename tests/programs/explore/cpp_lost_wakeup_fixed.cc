// cpp_lost_wakeup_fixed: the correct twin of cpp_lost_wakeup_buggy.cc.
//
// The consumer waits with a predicate under the mutex: wait(lock, pred) tests `ready` with the
// mutex held and releases it only as it starts waiting, and the producer sets `ready` and
// notifies under the same mutex, so the notification cannot fall between test and wait (and a
// spurious wakeup just tests again).
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

std::mutex mailbox_mutex;
std::condition_variable mailbox_filled;
bool ready = false;  // guarded by mailbox_mutex
int message = 0;     // guarded by mailbox_mutex

// Fifty thousand rounds of FNV-1a stand for real work that takes a while. Kept from the
// buggy twin, where it hides the race natively, so the twins differ only in the fix.
unsigned ComposeMessage() {
  unsigned hash = 2166136261u;
  for (unsigned i = 0; i < 50000; ++i) hash = (hash ^ i) * 16777619u;
  return hash;
}

void Consume() {
  std::unique_lock lock(mailbox_mutex);
  mailbox_filled.wait(lock, [] { return ready; });
}

void Produce() {
  const int composed = static_cast<int>(ComposeMessage() % 1000);
  std::lock_guard lock(mailbox_mutex);
  message = composed;
  ready = true;
  mailbox_filled.notify_one();
}

}  // namespace

int main() {
  std::thread consumer(Consume);
  std::thread producer(Produce);
  consumer.join();
  producer.join();
  std::printf("message %d\n", message);
  return 0;
}
