// A classic-BPF interpreter for seccomp programs, enough to run what libseccomp exports: tests
// check the filter's verdict for every syscall number without loading it into a kernel.
#pragma once

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

namespace chess::testing {

inline std::optional<uint32_t> RunSeccompFilter(const std::vector<sock_filter>& program,
                                                const seccomp_data& data) {
  uint32_t a = 0, x = 0;
  uint32_t memory[BPF_MEMWORDS] = {};
  const auto* bytes = reinterpret_cast<const uint8_t*>(&data);
  for (size_t pc = 0; pc < program.size(); ++pc) {
    const sock_filter& insn = program[pc];
    const uint16_t code = insn.code;
    switch (BPF_CLASS(code)) {
      case BPF_LD:
        if (BPF_MODE(code) == BPF_ABS && BPF_SIZE(code) == BPF_W) {
          if (insn.k + 4 > sizeof(data)) return std::nullopt;
          std::memcpy(&a, bytes + insn.k, 4);
        } else if (BPF_MODE(code) == BPF_IMM) {
          a = insn.k;
        } else if (BPF_MODE(code) == BPF_MEM) {
          a = memory[insn.k];
        } else {
          return std::nullopt;
        }
        break;
      case BPF_LDX:
        if (BPF_MODE(code) == BPF_IMM) x = insn.k;
        else if (BPF_MODE(code) == BPF_MEM) x = memory[insn.k];
        else return std::nullopt;
        break;
      case BPF_ST: memory[insn.k] = a; break;
      case BPF_STX: memory[insn.k] = x; break;
      case BPF_ALU: {
        const uint32_t operand = BPF_SRC(code) == BPF_X ? x : insn.k;
        switch (BPF_OP(code)) {
          case BPF_ADD: a += operand; break;
          case BPF_SUB: a -= operand; break;
          case BPF_AND: a &= operand; break;
          case BPF_OR: a |= operand; break;
          case BPF_LSH: a <<= operand; break;
          case BPF_RSH: a >>= operand; break;
          case BPF_NEG: a = -a; break;
          default: return std::nullopt;
        }
        break;
      }
      case BPF_JMP: {
        if (BPF_OP(code) == BPF_JA) {
          pc += insn.k;
          break;
        }
        const uint32_t operand = BPF_SRC(code) == BPF_X ? x : insn.k;
        bool taken = false;
        switch (BPF_OP(code)) {
          case BPF_JEQ: taken = a == operand; break;
          case BPF_JGT: taken = a > operand; break;
          case BPF_JGE: taken = a >= operand; break;
          case BPF_JSET: taken = (a & operand) != 0; break;
          default: return std::nullopt;
        }
        pc += taken ? insn.jt : insn.jf;
        break;
      }
      case BPF_RET: return BPF_RVAL(code) == BPF_A ? a : insn.k;
      case BPF_MISC:
        if (BPF_MISCOP(code) == BPF_TAX) x = a;
        else a = x;
        break;
      default: return std::nullopt;
    }
  }
  return std::nullopt;  // fell off the end: invalid program
}

}  // namespace chess::testing
