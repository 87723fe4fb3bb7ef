// cpp_lost_wakeup_buggy: the C++ version of lost_wakeup_buggy.c — a lost wakeup with
// std::condition_variable, the condition tested outside the mutex.
//
// Bug: the consumer tests an atomic `ready` flag without the mutex and then waits once, with
// no predicate. If the producer sets `ready` and notifies between the test and the wait, the
// notification finds no waiter and is lost; the consumer waits for ever and main waits in join
// for it. The program hangs (deadlock); no assertion fails.
//
// Schedule that exposes it (1 preemption): main starts the consumer and the producer and
// blocks in consumer.join(); the consumer sees ready == false and is preempted at its
// std::mutex::lock; the producer runs to its exit; the consumer locks and waits for ever.
// Without a preemption the consumer goes from its test into the wait without a break, and a
// producer that runs first sets `ready` before the test.
//
// Fixed twin: cpp_lost_wakeup_fixed.cc (wait with a predicate, under the mutex).
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

std::mutex mailbox_mutex;
std::condition_variable mailbox_filled;
std::atomic<bool> ready{false};  // atomic only because the consumer reads it without the mutex
int message = 0;                 // written under mailbox_mutex before `ready` is set

// Fifty thousand rounds of FNV-1a stand for real work that takes a while (tens of
// microseconds). Natively this keeps the race window shut: by the time the message is ready,
// the consumer is long asleep in its wait. Under the tester it is plain computation, with no
// scheduling point, so it changes no schedule.
unsigned ComposeMessage() {
  unsigned hash = 2166136261u;
  for (unsigned i = 0; i < 50000; ++i) hash = (hash ^ i) * 16777619u;
  return hash;
}

void Consume() {
  // The "fast path" that loses the wakeup: the test and the wait are not one atomic step.
  if (!ready) {
    std::unique_lock lock(mailbox_mutex);
    mailbox_filled.wait(lock);
  }
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
