#include "supervisor/code/elf_file.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace chess::code {
namespace {

template <typename T>
bool ReadAt(std::string_view bytes, uint64_t offset, T* value) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(value, bytes.data() + offset, sizeof(T));
  return true;
}

bool ReadHeader(std::string_view bytes, Elf64_Ehdr* header) {
  return ReadAt(bytes, 0, header) && std::memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 &&
         header->e_ident[EI_CLASS] == ELFCLASS64 && header->e_machine == EM_X86_64;
}

std::vector<Elf64_Shdr> Sections(std::string_view bytes, const Elf64_Ehdr& header) {
  std::vector<Elf64_Shdr> sections;
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section{};
    if (!ReadAt(bytes, header.e_shoff + uint64_t{i} * header.e_shentsize, &section)) break;
    sections.push_back(section);
  }
  return sections;
}

std::string_view SectionName(std::string_view bytes, const Elf64_Ehdr& header, const std::vector<Elf64_Shdr>& sections,
                             const Elf64_Shdr& section) {
  if (header.e_shstrndx >= sections.size()) return {};
  const uint64_t at = sections[header.e_shstrndx].sh_offset + section.sh_name;
  if (at >= bytes.size()) return {};
  return std::string_view(bytes.data() + at, strnlen(bytes.data() + at, bytes.size() - at));
}

// A cursor over .eh_frame bytes; every read fails (and stays failed) past the end.
class EhCursor {
 public:
  EhCursor(std::string_view bytes, uint64_t address, uint64_t at) : bytes_(bytes), address_(address), at_(at) {}
  bool ok() const { return ok_; }
  uint64_t at() const { return at_; }
  template <typename T>
  T Fixed() {
    T value{};
    if (!ReadAt(bytes_, at_, &value)) ok_ = false;
    at_ += sizeof(T);
    return value;
  }
  uint64_t Uleb() {
    uint64_t value = 0;
    for (unsigned shift = 0;; shift += 7) {
      const uint8_t byte = Fixed<uint8_t>();
      if (!ok_) return 0;
      if (shift < 64) value |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) return value;
    }
  }
  int64_t Sleb() {
    int64_t value = 0;
    unsigned shift = 0;
    uint8_t byte = 0;
    do {
      byte = Fixed<uint8_t>();
      if (!ok_) return 0;
      if (shift < 64) value |= int64_t(uint64_t{byte & 0x7fu} << shift);
      shift += 7;
    } while (byte & 0x80);
    if (shift < 64 && (byte & 0x40)) value |= -(int64_t{1} << shift);
    return value;
  }
  std::string_view CString() {
    if (at_ >= bytes_.size()) return ok_ = false, std::string_view();
    const std::string_view text(bytes_.data() + at_, strnlen(bytes_.data() + at_, bytes_.size() - at_));
    at_ += text.size() + 1;
    return text;
  }
  // A DW_EH_PE-encoded pointer. `apply_relative` is false for an FDE's range, which is a length
  // in the pointer's format only. Text- and data-relative bases are not used on x86-64 .eh_frame.
  uint64_t Pointer(uint8_t encoding, bool apply_relative) {
    if (encoding == DW_EH_PE_omit) return 0;
    const uint64_t field_address = address_ + at_;
    uint64_t value = 0;
    switch (encoding & 0x0f) {
      case DW_EH_PE_absptr: value = Fixed<uint64_t>(); break;
      case DW_EH_PE_uleb128: value = Uleb(); break;
      case DW_EH_PE_udata2: value = Fixed<uint16_t>(); break;
      case DW_EH_PE_udata4: value = Fixed<uint32_t>(); break;
      case DW_EH_PE_udata8: value = Fixed<uint64_t>(); break;
      case DW_EH_PE_sleb128: value = uint64_t(Sleb()); break;
      case DW_EH_PE_sdata2: value = uint64_t(int64_t{Fixed<int16_t>()}); break;
      case DW_EH_PE_sdata4: value = uint64_t(int64_t{Fixed<int32_t>()}); break;
      case DW_EH_PE_sdata8: value = uint64_t(Fixed<int64_t>()); break;
      default: ok_ = false; return 0;
    }
    if (!apply_relative) return value;
    switch (encoding & 0x70) {
      case DW_EH_PE_absptr: return value;
      case DW_EH_PE_pcrel: return value + field_address;
      default: ok_ = false; return 0;  // datarel/textrel/funcrel/aligned: not emitted for x86-64
    }
  }

  // The DW_EH_PE constants, spelled here because <elf.h> does not carry them.
  static constexpr uint8_t DW_EH_PE_absptr = 0x00, DW_EH_PE_uleb128 = 0x01, DW_EH_PE_udata2 = 0x02,
                           DW_EH_PE_udata4 = 0x03, DW_EH_PE_udata8 = 0x04, DW_EH_PE_sleb128 = 0x09,
                           DW_EH_PE_sdata2 = 0x0a, DW_EH_PE_sdata4 = 0x0b, DW_EH_PE_sdata8 = 0x0c,
                           DW_EH_PE_pcrel = 0x10, DW_EH_PE_omit = 0xff;

 private:
  std::string_view bytes_;
  uint64_t address_;
  uint64_t at_;
  bool ok_ = true;
};

struct CieEncoding {
  uint8_t fde_pointer = EhCursor::DW_EH_PE_absptr;
  bool augmented = false;  // 'z': FDEs carry an augmentation length to skip
};

std::optional<CieEncoding> ReadCie(std::string_view section, uint64_t section_address, uint64_t cie_at) {
  EhCursor cursor(section, section_address, cie_at);
  uint64_t length = cursor.Fixed<uint32_t>();
  if (length == 0xffffffff) length = cursor.Fixed<uint64_t>();
  const uint64_t end = cursor.at() + length;
  if (cursor.Fixed<uint32_t>() != 0) return std::nullopt;  // not a CIE
  const uint8_t version = cursor.Fixed<uint8_t>();
  const std::string_view augmentation = cursor.CString();
  if (augmentation.find("eh") != std::string_view::npos) cursor.Fixed<uint64_t>();
  cursor.Uleb();  // code alignment
  cursor.Sleb();  // data alignment
  if (version == 1) cursor.Fixed<uint8_t>(); else cursor.Uleb();  // return address register
  CieEncoding encoding;
  if (!augmentation.empty() && augmentation[0] == 'z') {
    encoding.augmented = true;
    cursor.Uleb();
    for (char letter : augmentation.substr(1)) {
      if (letter == 'R') {
        encoding.fde_pointer = cursor.Fixed<uint8_t>();
      } else if (letter == 'P') {
        cursor.Pointer(cursor.Fixed<uint8_t>(), false);
      } else if (letter == 'L') {
        cursor.Fixed<uint8_t>();
      } else if (letter != 'S' && letter != 'B' && letter != 'G') {
        return std::nullopt;  // an augmentation we cannot skip
      }
    }
  }
  if (!cursor.ok() || cursor.at() > end) return std::nullopt;
  return encoding;
}

}  // namespace

std::vector<FunctionRange> EhFrameRanges(std::string_view section, uint64_t section_address) {
  std::vector<FunctionRange> ranges;
  uint64_t at = 0;
  while (at + 4 <= section.size()) {
    EhCursor cursor(section, section_address, at);
    uint64_t length = cursor.Fixed<uint32_t>();
    if (length == 0) break;  // the terminator
    if (length == 0xffffffff) length = cursor.Fixed<uint64_t>();
    const uint64_t end = cursor.at() + length;
    if (!cursor.ok() || end > section.size() || end <= at) break;
    const uint64_t id_at = cursor.at();
    const uint32_t cie_pointer = cursor.Fixed<uint32_t>();
    if (cie_pointer != 0) {  // an FDE: its CIE lies cie_pointer bytes before this field
      if (cie_pointer > id_at) break;
      const std::optional<CieEncoding> cie = ReadCie(section, section_address, id_at - cie_pointer);
      if (!cie) break;
      const uint64_t start = cursor.Pointer(cie->fde_pointer, true);
      const uint64_t size = cursor.Pointer(cie->fde_pointer & 0x0f, false);
      if (!cursor.ok() || cursor.at() > end) break;
      if (start != 0 && size != 0) ranges.push_back({start, start + size});
    }
    at = end;
  }
  return ranges;
}

std::vector<FunctionSymbol> FunctionSymbols(std::string_view bytes) {
  std::vector<FunctionSymbol> symbols;
  Elf64_Ehdr header{};
  if (!ReadHeader(bytes, &header)) return symbols;
  const std::vector<Elf64_Shdr> sections = Sections(bytes, header);
  for (const Elf64_Shdr& section : sections) {
    if ((section.sh_type != SHT_SYMTAB && section.sh_type != SHT_DYNSYM) || section.sh_entsize != sizeof(Elf64_Sym) ||
        section.sh_link >= sections.size()) {
      continue;
    }
    const Elf64_Shdr& strings = sections[section.sh_link];
    for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= section.sh_size; at += sizeof(Elf64_Sym)) {
      Elf64_Sym symbol{};
      if (!ReadAt(bytes, section.sh_offset + at, &symbol)) break;
      if (ELF64_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_value == 0 || symbol.st_shndx == SHN_UNDEF) continue;
      const uint64_t name_at = strings.sh_offset + symbol.st_name;
      std::string name;
      if (name_at < bytes.size()) name.assign(bytes.data() + name_at, strnlen(bytes.data() + name_at, bytes.size() - name_at));
      symbols.push_back({symbol.st_value, symbol.st_size, std::move(name)});
    }
  }
  return symbols;
}

std::optional<ElfFile> ElfFile::Read(const std::string& path) {
  // One read of the whole file: a debug build of a large program is hundreds of megabytes, which
  // a character iterator reads ten times slower.
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  std::string bytes(static_cast<size_t>(in.tellg()), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) return std::nullopt;
  return FromBytes(std::move(bytes));
}

std::optional<ElfFile> ElfFile::FromBytes(std::string bytes) {
  Elf64_Ehdr header{};
  if (!ReadHeader(bytes, &header)) return std::nullopt;
  ElfFile file;
  file.bytes_ = std::move(bytes);
  const std::string_view view = file.bytes_;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!ReadAt(view, header.e_phoff + uint64_t{i} * header.e_phentsize, &segment)) break;
    if (segment.p_type == PT_LOAD && (segment.p_flags & PF_X) && segment.p_offset <= view.size()) {
      const uint64_t size = std::min<uint64_t>(segment.p_filesz, view.size() - segment.p_offset);
      file.segments_.push_back({segment.p_vaddr, size, segment.p_offset});
    }
    if (segment.p_type == PT_NOTE) {
      // Notes: namesz, descsz, type, then name and descriptor, each padded to 4 bytes.
      for (uint64_t at = segment.p_offset; at + sizeof(Elf64_Nhdr) <= segment.p_offset + segment.p_filesz;) {
        Elf64_Nhdr note{};
        if (!ReadAt(view, at, &note)) break;
        const uint64_t name_at = at + sizeof(note);
        const uint64_t desc_at = name_at + ((note.n_namesz + 3) & ~3ull);
        if (desc_at + note.n_descsz > view.size()) break;
        if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && view.substr(name_at, 4) == std::string_view("GNU\0", 4)) {
          static constexpr char kHex[] = "0123456789abcdef";
          for (uint64_t k = 0; k < note.n_descsz; ++k) {
            const auto byte = static_cast<uint8_t>(view[desc_at + k]);
            file.build_id_ += kHex[byte >> 4];
            file.build_id_ += kHex[byte & 15];
          }
        }
        at = desc_at + ((note.n_descsz + 3) & ~3ull);
      }
    }
  }
  std::vector<FunctionRange> ranges;
  for (const FunctionSymbol& symbol : FunctionSymbols(view)) {
    if (symbol.size != 0) ranges.push_back({symbol.start, symbol.start + symbol.size});
  }
  const std::vector<Elf64_Shdr> sections = Sections(view, header);
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_type != SHT_PROGBITS || SectionName(view, header, sections, section) != ".eh_frame") continue;
    if (section.sh_offset > view.size() || view.size() - section.sh_offset < section.sh_size) continue;
    for (const FunctionRange& range : EhFrameRanges(view.substr(section.sh_offset, section.sh_size), section.sh_addr)) {
      ranges.push_back(range);
    }
  }
  std::sort(ranges.begin(), ranges.end(),
            [](const FunctionRange& a, const FunctionRange& b) { return a.start != b.start ? a.start < b.start : a.end > b.end; });
  ranges.erase(std::unique(ranges.begin(), ranges.end()), ranges.end());
  for (const FunctionRange& range : ranges) {
    if (file.CodeAt(range.start, range.end - range.start)) file.functions_.push_back(range);
  }
  return file;
}

std::optional<std::string_view> ElfFile::CodeAt(uint64_t address, uint64_t size) const {
  for (const ExecutableSegment& segment : segments_) {
    if (address >= segment.address && address - segment.address <= segment.size &&
        segment.size - (address - segment.address) >= size) {
      return std::string_view(bytes_).substr(segment.file_offset + (address - segment.address), size);
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> ElfFile::LoadBias(uint64_t mapping_start, uint64_t mapping_file_offset) const {
  return LoadBiasOf(segments_, mapping_start, mapping_file_offset);
}

std::optional<uint64_t> LoadBiasOf(const std::vector<ExecutableSegment>& segments, uint64_t mapping_start,
                                   uint64_t mapping_file_offset) {
  constexpr uint64_t kPage = 4096;
  for (const ExecutableSegment& segment : segments) {
    if (segment.file_offset >= mapping_file_offset && segment.file_offset - mapping_file_offset < kPage) {
      return mapping_start + (segment.file_offset - mapping_file_offset) - segment.address;
    }
  }
  return std::nullopt;
}

}  // namespace chess::code
