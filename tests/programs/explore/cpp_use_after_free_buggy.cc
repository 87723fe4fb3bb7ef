// cpp_use_after_free_buggy: the C++ version of use_after_free_buggy.c — a worker uses a
// session after main has deleted it.
//
// Bug: the worker copies the raw Session pointer under registry_mutex and uses the session
// after releasing the mutex. Once the mutex is free main may close the session (delete it and
// clear the pointer); the worker then reads a destroyed object. The destructor poisons the
// magic field and the worker asserts it is still kAlive (SIGABRT).
//
// Schedule that exposes it (1 preemption): main starts the worker and blocks waiting for
// `started`; the worker sets `started` and notifies (main becomes runnable), copies the
// pointer, releases registry_mutex and is preempted at its stats_mutex.lock(); main deletes the
// session and blocks in join(); the worker resumes and its assertion fails. Without a
// preemption the worker, once main waits for it, runs to its exit (it never blocks), so main
// deletes the session only after the last use. A preemption before the worker copies the
// pointer is harmless: it then finds nullptr and stops.
//
// Fixed twin: cpp_use_after_free_fixed.cc (the session is used with registry_mutex held).
#include <cassert>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace {

class Session {
 public:
  static constexpr unsigned kAlive = 0x5e551011u, kDead = 0xdeadbeefu;
  explicit Session(int id) : id_(id) {}
  ~Session() { magic_ = kDead; }
  bool Alive() const { return magic_ == kAlive; }
  void Send(long bytes) { bytes_sent_ += bytes; }
  int id() const { return id_; }

 private:
  // volatile: stores into an object at the end of its lifetime are otherwise dead, and the
  // compiler would drop the destructor's poisoning store.
  volatile unsigned magic_ = kAlive;
  int id_;
  long bytes_sent_ = 0;
};

std::mutex registry_mutex;
Session* current_session = nullptr;  // guarded by registry_mutex
std::mutex stats_mutex;
long requests_served = 0;  // guarded by stats_mutex
std::mutex started_mutex;
std::condition_variable started_changed;
bool started = false;  // guarded by started_mutex

void ServeOneRequest() {
  {
    std::lock_guard lock(started_mutex);
    started = true;
  }
  started_changed.notify_one();

  Session* session;
  {
    std::lock_guard lock(registry_mutex);
    session = current_session;
  }
  if (session == nullptr) return;  // already closed: nothing to serve

  {
    std::lock_guard lock(stats_mutex);
    ++requests_served;
  }
  // Nothing keeps the session alive here any more.
  assert(session->Alive());
  session->Send(100);
}

void CloseSession() {
  std::lock_guard lock(registry_mutex);
  delete current_session;
  current_session = nullptr;
}

}  // namespace

int main() {
  current_session = new Session(7);
  std::thread worker(ServeOneRequest);
  {
    // The client disconnects once the worker is up: close the session.
    std::unique_lock lock(started_mutex);
    started_changed.wait(lock, [] { return started; });
  }
  CloseSession();
  worker.join();
  std::printf("requests served %ld\n", requests_served);
  return 0;
}
