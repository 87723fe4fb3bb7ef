// supervisor/code/ against the truth of objdump: small C programs with known atomics, compiled here
// at -O0 and -O2, PIE, non-PIE, static and stripped, and the real libc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <iterator>
#include <vector>

#include "supervisor/code/code_sites.h"

namespace chess::code {
namespace {

constexpr const char* kAtomicsSource = R"(
#include <stdatomic.h>
atomic_int counter;
_Atomic long flag;
int plain;
__attribute__((noinline)) int do_fetch_add(void) { return atomic_fetch_add(&counter, 1); }
__attribute__((noinline)) int do_cas(int expected) { return atomic_compare_exchange_weak(&counter, &expected, 5); }
__attribute__((noinline)) void do_store(long value) { atomic_store(&flag, value); }
__attribute__((noinline)) void do_fence(void) { atomic_thread_fence(memory_order_seq_cst); }
__attribute__((noinline)) int do_plain(void) { plain = plain + 1; return plain; }
int main(void) { do_store(do_fetch_add() + do_cas(1)); do_fence(); return do_plain() == 0; }
)";
std::string Libc() { return "/lib/x86_64-linux-gnu/libc.so.6"; }

const char* const kFunctions[] = {"do_fetch_add", "do_cas", "do_store", "do_fence", "do_plain"};

std::string Shell(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0) << command;
  return output;
}

class Workdir {
 public:
  Workdir() {
    char pattern[] = "/tmp/chess_code_test.XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~Workdir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  // `source` compiled with `flags` into the binary `name`.
  std::string Compile(const std::string& name, const std::string& flags) const {
    const std::string source = path_ + "/atomics.c";
    std::ofstream(source) << kAtomicsSource;
    const std::string binary = path_ + "/" + name;
    Shell(std::string(CHESS_C_COMPILER) + " " + flags + " -o " + binary + " " + source);
    return binary;
  }

 private:
  std::string path_;
};

// What objdump shows for one function: its instructions' addresses and text.
struct Disassembled {
  uint64_t start = 0;
  std::map<uint64_t, std::string> instructions;  // address -> "mnemonic operands # comment"
};

std::map<std::string, Disassembled> Objdump(const std::string& binary) {
  std::map<std::string, Disassembled> functions;
  std::istringstream text(Shell("objdump -d --no-show-raw-insn " + binary));
  const std::regex header("^([0-9a-f]+) <([^>]+)>:$");
  const std::regex line("^ *([0-9a-f]+):\\s+(.*)$");
  Disassembled* current = nullptr;
  for (std::string row; std::getline(text, row);) {
    std::smatch match;
    if (std::regex_match(row, match, header)) {
      current = &functions[match[2]];
      current->start = std::stoull(match[1], nullptr, 16);
    } else if (current != nullptr && std::regex_match(row, match, line)) {
      current->instructions[std::stoull(match[1], nullptr, 16)] = match[2];
    }
  }
  return functions;
}

// objdump's atomic instructions and fences, in AT&T syntax: a lock prefix, xchg with a memory
// operand (parenthesised, or fs/gs-based like glibc's `xchg %eax,%fs:0x1c`), or a fence mnemonic.
bool AtomicOrFence(const std::string& text) {
  const bool memory = text.find('(') != std::string::npos || text.find("%fs:") != std::string::npos ||
                      text.find("%gs:") != std::string::npos;
  return text.rfind("lock ", 0) == 0 || (text.rfind("xchg", 0) == 0 && memory) ||
         text.rfind("mfence", 0) == 0 || text.rfind("lfence", 0) == 0 || text.rfind("sfence", 0) == 0;
}

void ExpectAtomicsMatchObjdump(const std::string& binary) {
  const std::map<std::string, Disassembled> disassembly = Objdump(binary);
  const std::optional<ElfFile> file = ElfFile::Read(binary);
  ASSERT_TRUE(file);
  const DecodedFile decoded = Decode(*file);
  size_t atomics_seen = 0;
  for (const char* name : kFunctions) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(disassembly.contains(name));
    const Disassembled& function = disassembly.at(name);
    const uint64_t end = function.instructions.rbegin()->first + 1;
    std::set<uint64_t> expected, found;
    for (const auto& [address, text] : function.instructions) {
      if (AtomicOrFence(text)) expected.insert(address);
    }
    for (const CodeSite& site : decoded.SitesIn(function.start, end)) {
      EXPECT_TRUE(function.instructions.contains(site.address)) << std::hex << site.address << " is mid-instruction";
      if (site.kind != SiteKind::kAccess) found.insert(site.address);
    }
    EXPECT_EQ(found, expected);
    atomics_seen += expected.size();
    // Every rip-relative global objdump resolves ("# 404028 <plain>") is a site whose access
    // resolves to the same address.
    const std::regex global("\\(%rip\\)\\s+# ([0-9a-f]+) <(plain|counter|flag)>");
    for (const auto& [address, text] : function.instructions) {
      std::smatch match;
      if (!std::regex_search(text, match, global) || text.rfind("lea", 0) == 0) continue;
      const CodeSite* site = decoded.SiteAt(address);
      ASSERT_NE(site, nullptr) << text;
      ASSERT_FALSE(site->accesses.empty()) << text;
      EXPECT_TRUE(site->accesses[0].absolute) << text;
      EXPECT_EQ(site->accesses[0].address, std::stoull(match[1], nullptr, 16)) << text;
    }
  }
  // fetch_add, the CAS and the seq_cst store at least; the fence is mfence or a locked RMW.
  EXPECT_GE(atomics_seen, 4u);
}

TEST(CodeSites, AtomicsMatchObjdumpAtO0Pie) { ExpectAtomicsMatchObjdump(Workdir().Compile("o0_pie", "-O0 -pie -fPIE")); }
TEST(CodeSites, AtomicsMatchObjdumpAtO2Pie) { ExpectAtomicsMatchObjdump(Workdir().Compile("o2_pie", "-O2 -pie -fPIE")); }
TEST(CodeSites, AtomicsMatchObjdumpAtO0NonPie) {
  ExpectAtomicsMatchObjdump(Workdir().Compile("o0", "-O0 -no-pie -fno-PIE"));
}
TEST(CodeSites, AtomicsMatchObjdumpAtO2NonPie) {
  ExpectAtomicsMatchObjdump(Workdir().Compile("o2", "-O2 -no-pie -fno-PIE"));
}
TEST(CodeSites, AtomicsMatchObjdumpInAStaticBinary) {
  ExpectAtomicsMatchObjdump(Workdir().Compile("static", "-O2 -static"));
}

// `binary` without its symbol tables, decoded: only .eh_frame gives function starts.
DecodedFile DecodeStripped(const Workdir& dir, const std::string& binary) {
  const std::string stripped = dir.path() + "/stripped";
  Shell("strip --strip-all -o " + stripped + " " + binary);
  const std::optional<ElfFile> file = ElfFile::Read(stripped);
  if (!file) {
    ADD_FAILURE() << stripped << " is not an ELF file we read";
    return DecodedFile({}, {}, {}, 0);
  }
  return Decode(*file);
}

// A call or jump through memory reads a code pointer (a GOT slot the dynamic linker fills while
// PLT stubs read it, a function pointer, a vtable's slot): never a plain access to race on. The
// stores and loads of ordinary data around it still are.
TEST(CodeSites, ACallOrJumpThroughMemoryIsNoAccess) {
  Workdir workdir;
  const std::string source = workdir.path() + "/calls.c";
  std::ofstream(source) << R"(
#include <stdio.h>
void (*volatile handler)(void);
int plain;
__attribute__((noinline)) void hello(void) { plain = plain + 1; puts("hello"); }
int main(void) { handler = hello; handler(); return plain == 0; }
)";
  const std::string binary = workdir.path() + "/calls";
  Shell(std::string(CHESS_C_COMPILER) + " -O2 -fno-plt -o " + binary + " " + source);
  const std::optional<ElfFile> file = ElfFile::Read(binary);
  ASSERT_TRUE(file);
  const DecodedFile decoded = Decode(*file);
  size_t branches = 0, accesses = 0;
  for (const auto& [name, function] : Objdump(binary)) {
    for (const auto& [address, text] : function.instructions) {
      const bool through_memory = (text.rfind("call", 0) == 0 || text.rfind("jmp", 0) == 0) && text.find("*") != std::string::npos &&
                                  text.find('(') != std::string::npos;
      const CodeSite* site = decoded.SiteAt(address);
      if (through_memory) {
        ++branches;
        EXPECT_EQ(site, nullptr) << name << ": " << text;
      } else if (site != nullptr && site->kind == SiteKind::kAccess) {
        ++accesses;
      }
    }
  }
  EXPECT_GE(branches, 2u);  // puts through its GOT slot (-fno-plt), and the handler
  EXPECT_GE(accesses, 2u);  // plain's load and store, handler's store
}

TEST(CodeSites, AStrippedBinaryIsDecodedFromItsFdes) {
  Workdir dir;
  const std::string binary = dir.Compile("o2", "-O2");
  const std::map<std::string, Disassembled> disassembly = Objdump(binary);
  const DecodedFile decoded = DecodeStripped(dir, binary);
  const uint64_t fetch_add = disassembly.at("do_fetch_add").start;
  bool found = false;
  for (const auto& [address, text] : disassembly.at("do_fetch_add").instructions) {
    if (text.rfind("lock ", 0) == 0) {
      const CodeSite* site = decoded.SiteAt(address);
      ASSERT_NE(site, nullptr);
      EXPECT_EQ(site->kind, SiteKind::kAtomic);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(std::any_of(decoded.functions().begin(), decoded.functions().end(),
                          [&](const FunctionRange& f) { return f.start == fetch_add; }));
}

TEST(CodeSites, CodeWithNoFunctionStartIsNotDecoded) {
  Workdir dir;
  const std::string binary = dir.Compile("bare", "-O2 -fno-asynchronous-unwind-tables -fno-unwind-tables");
  const std::map<std::string, Disassembled> disassembly = Objdump(binary);
  const DecodedFile decoded = DecodeStripped(dir, binary);
  const uint64_t fetch_add = disassembly.at("do_fetch_add").start;
  EXPECT_TRUE(std::any_of(decoded.undecoded().begin(), decoded.undecoded().end(),
                          [&](const FunctionRange& r) { return r.start <= fetch_add && fetch_add < r.end; }));
  EXPECT_TRUE(decoded.SitesIn(fetch_add, fetch_add + 32).empty());
  // The same binary unstripped: its symbols give the start back.
  const DecodedFile with_symbols = Decode(*ElfFile::Read(binary));
  EXPECT_FALSE(with_symbols.SitesIn(fetch_add, fetch_add + 32).empty());
}

TEST(CodeSites, PthreadMutexLockInLibcHoldsALockedCmpxchg) {
  const std::optional<ElfFile> libc = ElfFile::Read(Libc());
  ASSERT_TRUE(libc);
  std::ifstream in(Libc(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t start = 0, size = 0;
  for (const FunctionSymbol& symbol : FunctionSymbols(bytes)) {
    if (symbol.name == "pthread_mutex_lock") start = symbol.start, size = symbol.size;
  }
  ASSERT_NE(size, 0u);
  const DecodedFile decoded = Decode(*libc);
  bool locked_cmpxchg = false;
  for (const CodeSite& site : decoded.SitesIn(start, start + size)) {
    const std::string_view code = *libc->CodeAt(site.address, site.length);
    // f0 (lock), an optional REX prefix, then 0f b1: cmpxchg r/m, r.
    if (site.kind == SiteKind::kAtomic && code[0] == '\xf0' && code.find("\x0f\xb1") != std::string_view::npos) {
      locked_cmpxchg = true;
    }
  }
  EXPECT_TRUE(locked_cmpxchg);
  EXPECT_FALSE(libc->build_id().empty());
  EXPECT_GT(decoded.functions().size(), 1000u);
}

// The whole of libc: the atomics and fences found are exactly those objdump's sweep shows (glibc's
// code is all inside functions its symbols or FDEs start, so nothing is missed by not sweeping).
TEST(CodeSites, EveryAtomicAndFenceOfLibcIsFoundAndNothingElse) {
  std::set<uint64_t> expected, found;
  for (const auto& [name, function] : Objdump(Libc())) {
    for (const auto& [address, text] : function.instructions) {
      if (AtomicOrFence(text)) expected.insert(address);
    }
  }
  const std::optional<ElfFile> libc = ElfFile::Read(Libc());
  ASSERT_TRUE(libc);
  const DecodedFile decoded = Decode(*libc);
  for (const CodeSite& site : decoded.sites()) {
    if (site.kind != SiteKind::kAccess) found.insert(site.address);
  }
  EXPECT_GT(expected.size(), 100u);
  std::vector<uint64_t> missed, extra;
  std::set_difference(expected.begin(), expected.end(), found.begin(), found.end(), std::back_inserter(missed));
  std::set_difference(found.begin(), found.end(), expected.begin(), expected.end(), std::back_inserter(extra));
  EXPECT_TRUE(missed.empty()) << missed.size() << " missed, the first at 0x" << std::hex
                              << (missed.empty() ? 0 : missed.front());
  EXPECT_TRUE(extra.empty()) << extra.size() << " not in objdump, the first at 0x" << std::hex
                             << (extra.empty() ? 0 : extra.front());
}

TEST(CodeSites, ALibcMappingAnswersInRunTimeAddresses) {
  const std::optional<ElfFile> libc = ElfFile::Read(Libc());
  ASSERT_TRUE(libc);
  ASSERT_FALSE(libc->executable_segments().empty());
  const ExecutableSegment& text = libc->executable_segments().front();
  constexpr uint64_t kBias = 0x7f1234560000;
  const std::optional<uint64_t> bias = libc->LoadBias(kBias + (text.address & ~0xfffull), text.file_offset & ~0xfffull);
  ASSERT_TRUE(bias);
  EXPECT_EQ(*bias, kBias);
  EXPECT_FALSE(libc->LoadBias(kBias, text.file_offset + 0x100000000));
  const MappedCode mapped{std::make_shared<const DecodedFile>(Decode(*libc)), *bias};
  const std::span<const CodeSite> all = mapped.file->sites();
  ASSERT_GT(all.size(), 2u);
  const std::span<const CodeSite> first_two = mapped.SitesIn(all[0].address + kBias, all[1].address + kBias + 1);
  ASSERT_EQ(first_two.size(), 2u);
  EXPECT_EQ(first_two[0].address, all[0].address);
  EXPECT_TRUE(mapped.SitesIn(0, kBias).empty());
}

TEST(CodeCache, DecodesAFileOnceAndACopyWithTheSameBuildIdNotAgain) {
  Workdir dir;
  const std::string binary = dir.Compile("o2", "-O2 -Wl,--build-id");
  std::filesystem::copy_file(binary, dir.path() + "/copy");
  CodeCache cache;
  const std::shared_ptr<const DecodedFile> first = cache.Of(binary);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(cache.Of(binary), first);
  EXPECT_EQ(cache.Of(dir.path() + "/copy"), first);
  EXPECT_EQ(cache.decoded_files(), 1u);
  const std::string other = dir.Compile("o0", "-O0 -Wl,--build-id");
  EXPECT_NE(cache.Of(other), first);
  EXPECT_EQ(cache.decoded_files(), 2u);
  EXPECT_EQ(cache.Of(dir.path() + "/atomics.c"), nullptr);  // not an ELF file
}

}  // namespace
}  // namespace chess::code
