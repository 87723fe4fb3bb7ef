// The one file that includes Zydis: decoding a file's functions and classifying each instruction.
#include <Zydis/Zydis.h>

#include <algorithm>

#include "supervisor/code/code_sites.h"

namespace chess::code {
namespace {

AddressRegister Named(ZydisRegister reg) {
  if (reg == ZYDIS_REGISTER_NONE) return AddressRegister::kNone;
  if (reg == ZYDIS_REGISTER_FS) return AddressRegister::kFs;
  if (reg == ZYDIS_REGISTER_GS) return AddressRegister::kGs;
  if (reg == ZYDIS_REGISTER_RIP || reg == ZYDIS_REGISTER_EIP) return AddressRegister::kRip;
  // An address of a 32-bit register (addr32 prefix) is named by its 64-bit register; the
  // consumer truncates with the operand's address width, which no site of ours needs today.
  const ZydisRegister wide = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
  switch (wide) {
    case ZYDIS_REGISTER_RAX: return AddressRegister::kRax;
    case ZYDIS_REGISTER_RCX: return AddressRegister::kRcx;
    case ZYDIS_REGISTER_RDX: return AddressRegister::kRdx;
    case ZYDIS_REGISTER_RBX: return AddressRegister::kRbx;
    case ZYDIS_REGISTER_RSP: return AddressRegister::kRsp;
    case ZYDIS_REGISTER_RBP: return AddressRegister::kRbp;
    case ZYDIS_REGISTER_RSI: return AddressRegister::kRsi;
    case ZYDIS_REGISTER_RDI: return AddressRegister::kRdi;
    case ZYDIS_REGISTER_R8: return AddressRegister::kR8;
    case ZYDIS_REGISTER_R9: return AddressRegister::kR9;
    case ZYDIS_REGISTER_R10: return AddressRegister::kR10;
    case ZYDIS_REGISTER_R11: return AddressRegister::kR11;
    case ZYDIS_REGISTER_R12: return AddressRegister::kR12;
    case ZYDIS_REGISTER_R13: return AddressRegister::kR13;
    case ZYDIS_REGISTER_R14: return AddressRegister::kR14;
    case ZYDIS_REGISTER_R15: return AddressRegister::kR15;
    default: return AddressRegister::kOther;
  }
}

// Whether a plain (not locked) access can touch memory another thread uses. Two kinds cannot:
// - rsp-based operands, explicit or the implicit ones of push, pop, call and ret: rsp is the
//   stack pointer everywhere in the SysV ABI, and a thread's own stack slots addressed from it
//   are its own unless their address escapes, and an escaped slot is then reached by others
//   through another register, which stays a site. rbp is NOT excluded: at -O2 it is a general
//   register and may hold any pointer.
// - fs-based operands: fs is the thread pointer on x86-64 Linux, so fs:x is this thread's own
//   TLS block (the stack canary, errno); another thread reaches TLS through a plain pointer.
// Atomic instructions are kept whatever their address (a `lock or [rsp], 0` is a full fence).
bool ThreadLocal(const MemoryAccess& access) {
  return access.segment == AddressRegister::kFs ||
         (access.base == AddressRegister::kRsp && access.index == AddressRegister::kNone);
}

std::vector<MemoryAccess> Accesses(const ZydisDecodedInstruction& instruction, const ZydisDecodedOperand* operands,
                                   uint64_t address, std::optional<uint8_t>& rip_displacement_at) {
  std::vector<MemoryAccess> accesses;
  for (unsigned i = 0; i < instruction.operand_count; ++i) {
    const ZydisDecodedOperand& operand = operands[i];
    if (operand.type != ZYDIS_OPERAND_TYPE_MEMORY) continue;
    // lea's operand is an address computation (AGEN), bndldx's a bound-table key (MIB): no access.
    if (operand.mem.type != ZYDIS_MEMOP_TYPE_MEM && operand.mem.type != ZYDIS_MEMOP_TYPE_VSIB) continue;
    const bool reads = operand.actions & ZYDIS_OPERAND_ACTION_MASK_READ;
    const bool writes = operand.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE;
    if (!reads && !writes) continue;  // the long nops' operand and prefetches touch nothing
    MemoryAccess access;
    access.mode = reads && writes ? AccessMode::kReadWrite : writes ? AccessMode::kWrite : AccessMode::kRead;
    access.vector_index = operand.mem.type == ZYDIS_MEMOP_TYPE_VSIB;
    access.size = static_cast<uint16_t>((access.vector_index ? operand.element_size : operand.size) / 8);
    access.base = Named(operand.mem.base);
    access.index = Named(operand.mem.index);
    access.scale = operand.mem.scale;
    access.displacement = operand.mem.disp.has_displacement ? operand.mem.disp.value : 0;
    if (operand.mem.segment == ZYDIS_REGISTER_FS || operand.mem.segment == ZYDIS_REGISTER_GS) {
      access.segment = Named(operand.mem.segment);
    }
    if (access.base == AddressRegister::kRip) {
      rip_displacement_at = instruction.raw.disp.offset;
      access.absolute = true;
      access.address = address + instruction.length + static_cast<uint64_t>(access.displacement);
      access.base = AddressRegister::kNone;
      access.displacement = 0;
    }
    access.repeated = instruction.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE);
    accesses.push_back(access);
  }
  return accesses;
}

std::optional<CodeSite> Classify(const ZydisDecodedInstruction& instruction, const ZydisDecodedOperand* operands,
                                 uint64_t address) {
  CodeSite site;
  site.address = address;
  site.length = instruction.length;
  if (instruction.mnemonic == ZYDIS_MNEMONIC_MFENCE || instruction.mnemonic == ZYDIS_MNEMONIC_LFENCE ||
      instruction.mnemonic == ZYDIS_MNEMONIC_SFENCE) {
    site.kind = SiteKind::kFence;
    return site;
  }
  site.accesses = Accesses(instruction, operands, address, site.rip_displacement_at);
  if (site.accesses.empty()) return std::nullopt;
  // xchg with a memory operand is locked by the processor with or without the prefix; a locked
  // cmpxchg8b/16b carries the prefix like every other locked RMW.
  if ((instruction.attributes & ZYDIS_ATTRIB_HAS_LOCK) || instruction.mnemonic == ZYDIS_MNEMONIC_XCHG) {
    site.kind = SiteKind::kAtomic;
    return site;
  }
  // An indirect call or jump through memory reads a code pointer: a GOT slot, which the dynamic
  // linker fills lazily while other threads' PLT stubs read it (a race by design), or a vtable's
  // slot, written once before the object is shared. Neither is a race a search should chase.
  if (instruction.meta.category == ZYDIS_CATEGORY_CALL || instruction.meta.category == ZYDIS_CATEGORY_UNCOND_BR) {
    return std::nullopt;
  }
  std::erase_if(site.accesses, ThreadLocal);
  if (site.accesses.empty()) return std::nullopt;
  site.kind = SiteKind::kAccess;
  return site;
}

// [begin, end) minus the sorted, possibly overlapping `covered` ranges.
void AddGaps(uint64_t begin, uint64_t end, const std::vector<FunctionRange>& covered, std::vector<FunctionRange>* gaps) {
  uint64_t at = begin;
  for (const FunctionRange& range : covered) {
    if (range.end <= at || range.start >= end) continue;
    if (range.start > at) gaps->push_back({at, range.start});
    at = std::max(at, range.end);
    if (at >= end) return;
  }
  if (at < end) gaps->push_back({at, end});
}

}  // namespace

DecodedFile Decode(const ElfFile& file) {
  ZydisDecoder decoder;
  ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  std::vector<CodeSite> sites;
  std::vector<FunctionRange> failed_tails;
  uint64_t instructions = 0;
  ZydisDecodedInstruction instruction;
  ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT];
  for (const FunctionRange& function : file.functions()) {
    const std::string_view code = *file.CodeAt(function.start, function.end - function.start);
    for (uint64_t at = 0; at < code.size();) {
      if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, code.data() + at, code.size() - at, &instruction, operands))) {
        failed_tails.push_back({function.start + at, function.end});  // not guessed past a byte we cannot read
        break;
      }
      ++instructions;
      if (std::optional<CodeSite> site = Classify(instruction, operands, function.start + at)) sites.push_back(*site);
      at += instruction.length;
    }
  }
  // Overlapping ranges (aliases, a symbol and its FDE) decode the same instructions twice.
  std::stable_sort(sites.begin(), sites.end(), [](const CodeSite& a, const CodeSite& b) { return a.address < b.address; });
  sites.erase(std::unique(sites.begin(), sites.end(),
                          [](const CodeSite& a, const CodeSite& b) { return a.address == b.address; }),
              sites.end());
  std::vector<FunctionRange> covered = file.functions();
  std::vector<FunctionRange> undecoded;
  for (const ExecutableSegment& segment : file.executable_segments()) {
    AddGaps(segment.address, segment.address + segment.size, covered, &undecoded);
  }
  undecoded.insert(undecoded.end(), failed_tails.begin(), failed_tails.end());
  std::sort(undecoded.begin(), undecoded.end(),
            [](const FunctionRange& a, const FunctionRange& b) { return a.start < b.start; });
  return DecodedFile(file.functions(), std::move(sites), std::move(undecoded), instructions,
                     file.executable_segments());
}

}  // namespace chess::code
