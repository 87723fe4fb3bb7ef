#include "seccomp/bpf_interpreter.h"

#include <linux/seccomp.h>

#include <cstring>

namespace chess::seccomp {
namespace {

// The kernel orders actions by the upper half of the answer read as a signed number
// (ACTION_ONLY): SECCOMP_RET_KILL_PROCESS, 0x80000000, comes first.
int32_t Precedence(uint32_t verdict) { return static_cast<int32_t>(verdict & SECCOMP_RET_ACTION_FULL); }

}  // namespace

FilterAction ActionOf(uint32_t verdict) {
  switch (verdict & SECCOMP_RET_ACTION_FULL) {
    case SECCOMP_RET_KILL_THREAD: return FilterAction::kKillThread;
    case SECCOMP_RET_TRAP: return FilterAction::kTrap;
    case SECCOMP_RET_ERRNO: return FilterAction::kErrno;
    case SECCOMP_RET_USER_NOTIF: return FilterAction::kUserNotif;
    case SECCOMP_RET_TRACE: return FilterAction::kTrace;
    case SECCOMP_RET_LOG: return FilterAction::kLog;
    case SECCOMP_RET_ALLOW: return FilterAction::kAllow;
    default: return FilterAction::kKillProcess;  // __seccomp_filter's `default:` kills
  }
}

std::string DescribeVerdict(uint32_t verdict) {
  const uint32_t data = verdict & SECCOMP_RET_DATA;
  switch (ActionOf(verdict)) {
    case FilterAction::kKillProcess: return "SECCOMP_RET_KILL_PROCESS";
    case FilterAction::kKillThread: return "SECCOMP_RET_KILL_THREAD";
    case FilterAction::kTrap: return "SECCOMP_RET_TRAP";
    case FilterAction::kErrno: {
      const char* name = data < 4096 ? strerrorname_np(static_cast<int>(data)) : nullptr;
      return "SECCOMP_RET_ERRNO(" + (name != nullptr ? std::string(name) : std::to_string(data)) + ")";
    }
    case FilterAction::kUserNotif: return "SECCOMP_RET_USER_NOTIF";
    case FilterAction::kTrace: return "SECCOMP_RET_TRACE(" + std::to_string(data) + ")";
    case FilterAction::kLog: return "SECCOMP_RET_LOG";
    case FilterAction::kAllow: return "SECCOMP_RET_ALLOW";
  }
  return "SECCOMP_RET_KILL_PROCESS";
}

bool Permits(uint32_t verdict, bool recheck) {
  switch (ActionOf(verdict)) {
    case FilterAction::kAllow:
    case FilterAction::kLog:
      return true;
    case FilterAction::kTrace:
      return recheck;
    default:
      return false;
  }
}

std::optional<uint32_t> RunFilter(std::span<const sock_filter> program, const SyscallData& data) {
  // The instructions seccomp_check_filter accepts (not BPF_MOD, nor loads other than 32-bit
  // words of the data), with the semantics they have once the kernel has converted them
  // (net/core/filter.c): 32-bit arithmetic, shifts by X taken modulo 32, and a division by X = 0
  // ending the program with 0 (SECCOMP_RET_KILL_THREAD).
  uint32_t a = 0;
  uint32_t x = 0;
  uint32_t memory[BPF_MEMWORDS] = {};
  const auto* bytes = reinterpret_cast<const uint8_t*>(&data);
  for (size_t pc = 0; pc < program.size(); ++pc) {
    const sock_filter& insn = program[pc];
    const uint16_t code = insn.code;
    switch (BPF_CLASS(code)) {
      case BPF_LD:
        if (code == (BPF_LD | BPF_W | BPF_ABS)) {
          if (insn.k % 4 != 0 || insn.k >= sizeof(data)) return std::nullopt;
          std::memcpy(&a, bytes + insn.k, 4);
        } else if (code == (BPF_LD | BPF_W | BPF_LEN)) {
          a = sizeof(data);
        } else if (code == (BPF_LD | BPF_IMM)) {
          a = insn.k;
        } else if (code == (BPF_LD | BPF_MEM) && insn.k < BPF_MEMWORDS) {
          a = memory[insn.k];
        } else {
          return std::nullopt;
        }
        break;
      case BPF_LDX:
        if (code == (BPF_LDX | BPF_W | BPF_LEN)) {
          x = sizeof(data);
        } else if (code == (BPF_LDX | BPF_IMM)) {
          x = insn.k;
        } else if (code == (BPF_LDX | BPF_MEM) && insn.k < BPF_MEMWORDS) {
          x = memory[insn.k];
        } else {
          return std::nullopt;
        }
        break;
      case BPF_ST:
      case BPF_STX:
        if (insn.k >= BPF_MEMWORDS) return std::nullopt;
        memory[insn.k] = BPF_CLASS(code) == BPF_ST ? a : x;
        break;
      case BPF_ALU: {
        const bool by_x = BPF_SRC(code) == BPF_X;
        const uint32_t operand = by_x ? x : insn.k;
        switch (BPF_OP(code)) {
          case BPF_ADD: a += operand; break;
          case BPF_SUB: a -= operand; break;
          case BPF_MUL: a *= operand; break;
          case BPF_DIV:
            if (operand == 0) {
              if (!by_x) return std::nullopt;  // refused at load
              return 0u;
            }
            a /= operand;
            break;
          case BPF_AND: a &= operand; break;
          case BPF_OR: a |= operand; break;
          case BPF_XOR: a ^= operand; break;
          case BPF_LSH:
          case BPF_RSH:
            if (!by_x && operand >= 32) return std::nullopt;  // refused at load
            a = BPF_OP(code) == BPF_LSH ? a << (operand & 31) : a >> (operand & 31);
            break;
          case BPF_NEG: a = 0u - a; break;
          default: return std::nullopt;
        }
        break;
      }
      case BPF_JMP: {
        size_t next = pc;
        if (BPF_OP(code) == BPF_JA) {
          next += insn.k;
        } else {
          const uint32_t operand = BPF_SRC(code) == BPF_X ? x : insn.k;
          bool taken = false;
          switch (BPF_OP(code)) {
            case BPF_JEQ: taken = a == operand; break;
            case BPF_JGT: taken = a > operand; break;
            case BPF_JGE: taken = a >= operand; break;
            case BPF_JSET: taken = (a & operand) != 0; break;
            default: return std::nullopt;
          }
          next += taken ? insn.jt : insn.jf;
        }
        if (next + 1 >= program.size()) return std::nullopt;  // a jump out of the program
        pc = next;
        break;
      }
      case BPF_RET:
        if (BPF_RVAL(code) == BPF_A) return a;
        if (BPF_RVAL(code) == BPF_K) return insn.k;
        return std::nullopt;
      case BPF_MISC:
        if (BPF_MISCOP(code) == BPF_TAX) {
          x = a;
        } else if (BPF_MISCOP(code) == BPF_TXA) {
          a = x;
        } else {
          return std::nullopt;
        }
        break;
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;  // fell off the end: the kernel wants a return last
}

FilterChain FilterChain::With(std::vector<sock_filter> program) const {
  FilterChain grown;
  grown.newest_ = std::make_shared<const Filter>(Filter{std::move(program), newest_, Size() + 1});
  return grown;
}

std::optional<uint32_t> FilterChain::Evaluate(const SyscallData& data) const {
  uint32_t verdict = SECCOMP_RET_ALLOW;
  for (const Filter* filter = newest_.get(); filter != nullptr; filter = filter->previous.get()) {
    const std::optional<uint32_t> answer = RunFilter(filter->program, data);
    if (!answer) return std::nullopt;
    // Strictly first: of two equal actions the newer filter's answer stays.
    if (Precedence(*answer) < Precedence(verdict)) verdict = *answer;
  }
  return verdict;
}

}  // namespace chess::seccomp
