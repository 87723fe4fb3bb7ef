// /proc/PID/maps (supervisor/proc_maps.h).
#include "supervisor/proc_maps.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace chess::supervisor {

std::optional<MapsEntry> ParseMapsLine(std::string_view line) {
  const std::string text(line);
  MapsEntry entry;
  char permissions[5] = {};
  int path_at = 0;
  if (std::sscanf(text.c_str(), "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n", &entry.start,
                  &entry.end, permissions, &entry.offset, &entry.device_major, &entry.device_minor, &entry.inode,
                  &path_at) < 7) {
    return std::nullopt;
  }
  entry.readable = permissions[0] == 'r';
  entry.writable = permissions[1] == 'w';
  entry.executable = permissions[2] == 'x';
  entry.shared = permissions[3] == 's';
  if (path_at > 0 && static_cast<size_t>(path_at) < text.size()) entry.path = text.substr(static_cast<size_t>(path_at));
  while (!entry.path.empty() && (entry.path.back() == '\n' || entry.path.back() == ' ')) entry.path.pop_back();
  return entry;
}

std::vector<MapsEntry> ReadMaps(pid_t tid) {
  std::vector<MapsEntry> entries;
  const std::string path = "/proc/" + std::to_string(tid) + "/maps";
  FILE* maps = std::fopen(path.c_str(), "re");
  if (maps == nullptr) return entries;
  // getline, not a fixed buffer: a long path must not split into a second, garbled line.
  char* line = nullptr;
  size_t capacity = 0;
  for (ssize_t length; (length = getline(&line, &capacity, maps)) > 0;) {
    if (auto entry = ParseMapsLine(std::string_view(line, static_cast<size_t>(length)))) {
      entries.push_back(std::move(*entry));
    }
  }
  std::free(line);
  std::fclose(maps);
  return entries;
}

}  // namespace chess::supervisor
