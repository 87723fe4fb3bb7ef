#include "supervisor/world/output_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace chess::supervisor {
namespace {

// How often the reader looks at a file the program writes to (a file has no readiness to wait
// for), and how long a stopped relay waits for its threads before leaving them to the process's
// exit.
constexpr int kFilePollMillis = 20;
constexpr auto kStopWait = std::chrono::seconds(1);
// The most written to a user's descriptor at once, after poll said it has room: a pipe takes
// that much without blocking.
constexpr size_t kWriteChunk = PIPE_BUF;

void Wake(int eventfd_fd) {
  const uint64_t one = 1;
  (void)!write(eventfd_fd, &one, sizeof(one));
}

}  // namespace

struct OutputRelay::State {
  struct Source {
    int from = -1;
    int to = -1;
    bool file = false;
    bool undo_onlcr = false;
    bool ended = false;
    off_t offset = 0;       // a file: how far it has been read
    bool held_cr = false;   // undo_onlcr: a "\r" kept back until the next byte says what it was
  };
  struct Chunk {
    int to = -1;
    std::string bytes;
  };

  ~State() { CloseAll(); }
  void CloseAll() {
    for (Source& source : sources) close(source.from);
    for (int fd : destinations) close(fd);
    for (int fd : {wake_reader, wake_writer}) {
      if (fd >= 0) close(fd);
    }
    sources.clear();
    destinations.clear();
    wake_reader = wake_writer = -1;
  }

  // Reader: everything each source holds now, to the queue.
  void DrainSources();
  // What was read from `source`, as the program wrote it, to the queue.
  void Take(Source& source, const char* bytes, size_t size);
  void Queue(const Source& source, std::string text);
  void EndSource(Source& source);
  void ReaderLoop();
  // Writer: one chunk to its descriptor. False when it stopped on the way.
  bool WriteChunk(const Chunk& chunk);
  void WriterLoop();

  // Owned by the reader once it runs.
  std::vector<Source> sources;
  std::vector<int> destinations;
  int wake_reader = -1;
  int wake_writer = -1;

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Chunk> queue;     // drained, not yet written
  bool writing = false;        // the writer holds a chunk it took from the queue
  std::set<int> broken;        // user's descriptors that failed (a closed pipe): dropped
  uint64_t flush_asked = 0;    // Flush's requests, numbered
  uint64_t flush_drained = 0;  // the last request after which every source was drained
  bool finishing = false;      // the program has ended: drain once more, deliver, stop
  bool stopping = false;       // stop now
  bool reader_done = false;
  bool writer_done = false;
};

void OutputRelay::State::Take(Source& source, const char* bytes, size_t size) {
  std::string text;
  // The pseudo-terminal's output processing is looked at each time: the program may change it.
  termios settings{};
  const bool onlcr = source.undo_onlcr && tcgetattr(source.from, &settings) == 0 && (settings.c_oflag & OPOST) != 0 &&
                     (settings.c_oflag & ONLCR) != 0;
  if (!onlcr) {
    if (source.held_cr) text.push_back('\r');
    source.held_cr = false;
    text.append(bytes, size);
  } else {
    // ONLCR put a "\r" before every "\n" and changed nothing else: take away the "\r" right
    // before each "\n", and only that one ("\r\r\n" was the program's "\r\n").
    text.reserve(size);
    for (size_t i = 0; i < size; ++i) {
      const char byte = bytes[i];
      if (source.held_cr && byte != '\n') text.push_back('\r');
      source.held_cr = byte == '\r';
      if (!source.held_cr) text.push_back(byte);
    }
  }
  Queue(source, std::move(text));
}

void OutputRelay::State::Queue(const Source& source, std::string text) {
  if (text.empty() || source.to < 0) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (broken.count(source.to) != 0) return;
  if (!queue.empty() && queue.back().to == source.to && queue.back().bytes.size() < (size_t{1} << 16)) {
    queue.back().bytes += text;
  } else {
    queue.push_back({source.to, std::move(text)});
  }
  changed.notify_all();
}

void OutputRelay::State::EndSource(Source& source) {
  if (source.held_cr) Queue(source, "\r");  // no "\n" came after it: it was the program's
  source.held_cr = false;
  source.ended = true;
}

void OutputRelay::State::DrainSources() {
  char buffer[1 << 16];
  for (Source& source : sources) {
    if (source.ended) continue;
    for (;;) {
      const ssize_t n = source.file ? pread(source.from, buffer, sizeof(buffer), source.offset)
                                    : read(source.from, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        if (source.file) source.offset += n;
        Take(source, buffer, static_cast<size_t>(n));
        continue;
      }
      // A stream at its end (0), or a pseudo-terminal whose other end nobody holds any more
      // (EIO), is done; a file only has nothing more yet, and so has a stream with EAGAIN.
      if (!source.file && (n == 0 || errno != EAGAIN)) EndSource(source);
      break;
    }
  }
}

void OutputRelay::State::ReaderLoop() {
  // Nothing is allocated while no output comes: the namespace's init is cloned from this process
  // before the program runs (clone without CLONE_VM copies memory as fork does, without fork's
  // care for malloc's locks), and must not find one held.
  std::vector<pollfd> waits;
  waits.reserve(1 + sources.size());
  for (;;) {
    waits.clear();
    waits.push_back({wake_reader, POLLIN, 0});
    bool files = false;
    for (const Source& source : sources) {
      if (source.ended) continue;
      if (source.file) {
        files = true;
      } else {
        waits.push_back({source.from, POLLIN, 0});
      }
    }
    // Bounded either way: a file is looked at again soon, and the eventfd ends the wait.
    (void)poll(waits.data(), waits.size(), files ? kFilePollMillis : 1000);
    if (waits[0].revents & POLLIN) {
      uint64_t count = 0;
      (void)!read(wake_reader, &count, sizeof(count));
    }
    uint64_t asked = 0;
    bool finish = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopping) break;
      asked = flush_asked;
      finish = finishing;
    }
    DrainSources();
    if (finish) {
      // The program is gone: nothing more comes. A source with nothing left but no end of file
      // (someone else still holds the other end: the namespace's init) ends here too.
      for (Source& source : sources) {
        if (!source.ended) EndSource(source);
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    flush_drained = asked;
    changed.notify_all();
    if (finish) break;
  }
  std::lock_guard<std::mutex> lock(mutex);
  reader_done = true;
  changed.notify_all();
}

bool OutputRelay::State::WriteChunk(const Chunk& chunk) {
  size_t done = 0;
  while (done < chunk.bytes.size()) {
    pollfd waits[2] = {{chunk.to, POLLOUT, 0}, {wake_writer, POLLIN, 0}};
    if (poll(waits, 2, -1) < 0 && errno != EINTR) return false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopping) return false;
    }
    if ((waits[0].revents & (POLLOUT | POLLERR | POLLHUP | POLLNVAL)) == 0) continue;
    const ssize_t n = write(chunk.to, chunk.bytes.data() + done, std::min(kWriteChunk, chunk.bytes.size() - done));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      // The user's end went away (a pipe into `head`): what else comes for it is dropped, as
      // nobody can read it.
      std::lock_guard<std::mutex> lock(mutex);
      broken.insert(chunk.to);
      std::erase_if(queue, [&](const Chunk& queued) { return queued.to == chunk.to; });
      return true;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

void OutputRelay::State::WriterLoop() {
  for (;;) {
    Chunk chunk;
    {
      std::unique_lock<std::mutex> lock(mutex);
      changed.wait(lock, [&] { return stopping || !queue.empty() || reader_done; });
      if (stopping || queue.empty()) break;  // stopped, or the reader is done and all is written
      chunk = std::move(queue.front());
      queue.pop_front();
      writing = true;
    }
    const bool went_on = WriteChunk(chunk);
    std::lock_guard<std::mutex> lock(mutex);
    writing = false;
    changed.notify_all();
    if (!went_on) break;
  }
  std::lock_guard<std::mutex> lock(mutex);
  writer_done = true;
  changed.notify_all();
}

OutputRelay::OutputRelay() : state_(std::make_shared<State>()) {}

OutputRelay::~OutputRelay() { Stop(); }

void OutputRelay::AddStream(int from, int to, bool undo_onlcr) {
  fcntl(from, F_SETFL, fcntl(from, F_GETFL) | O_NONBLOCK);  // the relay's own end: nobody else reads it
  state_->sources.push_back({.from = from, .to = to, .file = false, .undo_onlcr = undo_onlcr});
  if (to >= 0) state_->destinations.push_back(to);
}

void OutputRelay::AddFile(int from, int to) {
  state_->sources.push_back({.from = from, .to = to, .file = true});
  if (to >= 0) state_->destinations.push_back(to);
}

bool OutputRelay::Empty() const { return state_->sources.empty(); }

Result<void> OutputRelay::Start() {
  State& state = *state_;
  state.wake_reader = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  state.wake_writer = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (state.wake_reader < 0 || state.wake_writer < 0) {
    return Error{std::string("cannot relay the program's output: eventfd: ") + std::strerror(errno)};
  }
  // The threads start with every signal blocked, and keep it so.
  sigset_t all;
  sigset_t before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  std::shared_ptr<State> shared = state_;
  try {
    reader_ = std::thread([shared] { shared->ReaderLoop(); });
    writer_ = std::thread([shared] { shared->WriterLoop(); });
  } catch (const std::system_error& error) {
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    Stop();
    return Error{std::string("cannot relay the program's output: ") + error.what()};
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return {};
}

bool OutputRelay::Flush(std::chrono::milliseconds timeout) {
  if (!reader_.joinable()) return true;
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mutex);
  const uint64_t asked = ++state.flush_asked;
  Wake(state.wake_reader);
  return state.changed.wait_for(lock, timeout, [&] {
    return state.reader_done || (state.flush_drained >= asked && state.queue.empty() && !state.writing);
  });
}

void OutputRelay::Finish(const std::function<bool()>& give_up,
                         std::optional<std::chrono::steady_clock::time_point> deadline) {
  if (!reader_.joinable()) return;
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mutex);
  state.finishing = true;
  Wake(state.wake_reader);
  while (!(state.reader_done && state.writer_done)) {
    if ((give_up && give_up()) || (deadline && std::chrono::steady_clock::now() >= *deadline)) break;
    state.changed.wait_for(lock, std::chrono::milliseconds(100));
  }
  lock.unlock();
  Stop();
}

void OutputRelay::Stop() {
  if (!reader_.joinable() && !writer_.joinable()) return;
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mutex);
  state.stopping = true;
  state.changed.notify_all();
  Wake(state.wake_reader);
  Wake(state.wake_writer);
  // A writer inside write() to a terminal that stopped taking output cannot be called back: it
  // is left to the process's exit, with the state it shares.
  state.changed.wait_for(lock, kStopWait, [&] { return state.reader_done && state.writer_done; });
  const bool reader_done = state.reader_done;
  const bool writer_done = state.writer_done;
  lock.unlock();
  for (auto [thread, done] : {std::pair{&reader_, reader_done}, std::pair{&writer_, writer_done}}) {
    if (!thread->joinable()) continue;
    if (done) {
      thread->join();
    } else {
      thread->detach();
    }
  }
  // The user's descriptors are let go now (a pipe into `head` ends), unless a thread was left.
  if (reader_done && writer_done) state.CloseAll();
}

}  // namespace chess::supervisor
