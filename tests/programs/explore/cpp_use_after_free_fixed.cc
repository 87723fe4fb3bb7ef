// cpp_use_after_free_fixed: the correct twin of cpp_use_after_free_buggy.cc.
//
// The worker keeps registry_mutex locked for as long as it uses the session, and main deletes
// the session and clears the pointer under the same mutex, so the worker sees either a live
// session for its whole use or nullptr, under every schedule. (A std::shared_ptr copied under
// the mutex would also do; the lock is the smallest change.)
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
long requests_served = 0;  // guarded by stats_mutex; taken inside registry_mutex, never around it
std::mutex started_mutex;
std::condition_variable started_changed;
bool started = false;  // guarded by started_mutex

void ServeOneRequest() {
  {
    std::lock_guard lock(started_mutex);
    started = true;
  }
  started_changed.notify_one();

  std::lock_guard lock(registry_mutex);
  Session* session = current_session;
  if (session == nullptr) return;  // already closed: nothing to serve
  {
    std::lock_guard stats_lock(stats_mutex);
    ++requests_served;
  }
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
