#include <sys/stat.h>

#include <algorithm>

#include "supervisor/code/code_sites.h"

namespace chess::code {

DecodedFile::DecodedFile(std::vector<FunctionRange> functions, std::vector<CodeSite> sites,
                         std::vector<FunctionRange> undecoded, uint64_t instructions,
                         std::vector<ExecutableSegment> segments)
    : functions_(std::move(functions)), sites_(std::move(sites)), undecoded_(std::move(undecoded)),
      instructions_(instructions), segments_(std::move(segments)) {}

std::span<const CodeSite> DecodedFile::SitesIn(uint64_t begin, uint64_t end) const {
  const auto by_address = [](const CodeSite& site, uint64_t address) { return site.address < address; };
  const auto first = std::lower_bound(sites_.begin(), sites_.end(), begin, by_address);
  const auto last = std::lower_bound(first, sites_.end(), end, by_address);
  return {first, last};
}

const CodeSite* DecodedFile::SiteAt(uint64_t address) const {
  const std::span<const CodeSite> at = SitesIn(address, address + 1);
  return at.empty() ? nullptr : &at.front();
}

std::shared_ptr<const DecodedFile> CodeCache::Of(const std::string& path) {
  // The identity is read before the bytes: a build id names the code whatever path or inode
  // holds it; without one, a file replaced or rewritten changes its inode, size or mtime.
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) return nullptr;
  const std::string file_key = "inode:" + std::to_string(status.st_dev) + ":" + std::to_string(status.st_ino) + ":" +
                               std::to_string(status.st_size) + ":" + std::to_string(status.st_mtim.tv_sec) + "." +
                               std::to_string(status.st_mtim.tv_nsec);
  if (auto known = by_key_.find(file_key); known != by_key_.end()) return known->second;
  std::optional<ElfFile> file = ElfFile::Read(path);
  if (!file) return nullptr;
  const std::string build_key = file->build_id().empty() ? std::string() : "build-id:" + file->build_id();
  if (!build_key.empty()) {
    if (auto known = by_key_.find(build_key); known != by_key_.end()) return by_key_[file_key] = known->second;
  }
  auto decoded = std::make_shared<const DecodedFile>(Decode(*file));
  ++decodings_;
  if (!build_key.empty()) by_key_[build_key] = decoded;
  by_key_[file_key] = decoded;
  return decoded;
}

}  // namespace chess::code
