//===- WeightsObject.cpp - Weights written straight to an object ----------===//
//
// See WeightsObject.h. The object is the smallest relocatable ELF that a
// linker takes: a header, the weights' section, a symbol table with its
// string table, the section names and an empty .note.GNU-stack (the
// weights need no executable stack). No relocations: weights are bytes.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/WeightsObject.h"

#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tfm;
namespace ELF = llvm::ELF;

/// Weights start at a cache line at least: the kernels' vector loads of
/// them are then never split across lines.
static constexpr uint64_t kMinAlignment = 64;

/// The page size that each rank's weights start on (x86-64's small pages;
/// a process of one rank maps and moves only its pages).
static constexpr uint64_t kRankPage = 4096;

/// The number of elements of `type` if it is `element` in nested arrays.
static std::optional<int64_t> countElements(Type type, Type element) {
  int64_t count = 1;
  while (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    count *= array.getNumElements();
    type = array.getElementType();
  }
  if (type != element)
    return std::nullopt;
  return count;
}

/// The bytes of one element of `value`, if its elements are byte-sized
/// integers or floats (not i1, which dense attributes pack as bits).
static std::optional<uint64_t> elementBytes(DenseElementsAttr value) {
  Type element = value.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  return element.getIntOrFloatBitWidth() / 8;
}

SmallVector<ExternalWeight>
mlir::tfm::externalizeWeights(ModuleOp module, const llvm::Triple &triple) {
  SmallVector<ExternalWeight> weights;
  if (!llvm::sys::IsLittleEndianHost || !triple.isOSBinFormatELF() ||
      triple.getArch() != llvm::Triple::x86_64)
    return weights;
  // The ranks whose clones read each global (-1: a function of no rank).
  llvm::StringMap<llvm::SmallSet<int64_t, 2>> readers;
  module.walk([&](LLVM::AddressOfOp address) {
    auto func = address->getParentOfType<LLVM::LLVMFuncOp>();
    auto rank = func ? func->getAttrOfType<IntegerAttr>(kRankAttr) : nullptr;
    readers[address.getGlobalName()].insert(rank ? rank.getInt() : -1);
  });
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto value = dyn_cast_or_null<DenseElementsAttr>(global.getValueAttr());
    // A splat's attribute holds one element; the rare large one (most
    // become fills before this) stays with LLVM.
    if (!global.getConstant() || !value || value.isSplat() ||
        global.getThreadLocal_() ||
        global.getSection() || global.getAddrSpace() != 0)
      continue;
    std::optional<uint64_t> bytes = elementBytes(value);
    std::optional<int64_t> count =
        countElements(global.getGlobalType(), value.getElementType());
    if (!bytes || count != value.getNumElements() ||
        *bytes * value.getNumElements() < kWeightBytes)
      continue;
    uint64_t alignment =
        std::max<uint64_t>(global.getAlignment().value_or(1), kMinAlignment);
    int64_t rank = -1;
    if (auto it = readers.find(global.getSymName());
        it != readers.end() && it->second.size() == 1)
      rank = *it->second.begin();
    weights.push_back({global.getSymName().str(), alignment, value, rank});
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setVisibility_(LLVM::Visibility::Hidden);
    global.setDsoLocal(true);
    global.setAlignment(alignment);
    global.removeUnnamedAddrAttr();
  }
  return weights;
}

/// The size of `weight`'s bytes.
static uint64_t sizeOf(const ExternalWeight &weight) {
  return weight.value.getRawData().size();
}

/// A string table: names appended, each ending with a NUL.
class StringTable {
public:
  StringTable() : text(1, '\0') {}
  uint32_t add(StringRef name) {
    uint32_t offset = text.size();
    text += name;
    text += '\0';
    return offset;
  }
  const std::string &str() const { return text; }

private:
  std::string text;
};

template <typename T>
static void writeStruct(const T &value, llvm::raw_ostream &os) {
  os.write(reinterpret_cast<const char *>(&value), sizeof(T));
}

static void pad(llvm::raw_ostream &os, uint64_t &offset, uint64_t alignment) {
  uint64_t aligned = llvm::alignTo(offset, alignment);
  os.write_zeros(aligned - offset);
  offset = aligned;
}

LogicalResult
mlir::tfm::writeWeightsObject(ArrayRef<ExternalWeight> unorderedWeights,
                              StringRef path, std::string &error) {
  enum Section : uint16_t { Null, Data, SymTab, StrTab, ShStrTab, Note, Count };
  StringTable names, sectionNames;
  SmallVector<ELF::Elf64_Shdr> sections(Count, ELF::Elf64_Shdr{});
  sections[Data].sh_name = sectionNames.add("tfm_weights");
  sections[SymTab].sh_name = sectionNames.add(".symtab");
  sections[StrTab].sh_name = sectionNames.add(".strtab");
  sections[ShStrTab].sh_name = sectionNames.add(".shstrtab");
  sections[Note].sh_name = sectionNames.add(".note.GNU-stack");

  // A tensor-parallel model's weights by rank, those of every rank first,
  // each rank's on pages of its own behind the table of their places
  // (kRankWeightsSymbol).
  int64_t ranks = 0;
  for (const ExternalWeight &weight : unorderedWeights)
    ranks = std::max(ranks, weight.rank + 1);
  SmallVector<ExternalWeight> ordered;
  for (int64_t rank = -1; rank < ranks; ++rank)
    for (const ExternalWeight &weight : unorderedWeights)
      if (weight.rank == rank)
        ordered.push_back(weight);
  ArrayRef<ExternalWeight> weights = ordered;
  SmallVector<uint64_t> table;
  if (ranks > 0)
    table.assign(2 + 2 * ranks, 0);

  // The weights' places in their section, and their symbols: the null
  // symbol first, then one global per weight (no locals).
  SmallVector<ELF::Elf64_Sym> symbols(1, ELF::Elf64_Sym{});
  uint64_t dataSize = 0, dataAlignment = 1;
  if (!table.empty()) {
    ELF::Elf64_Sym &symbol = symbols.emplace_back(ELF::Elf64_Sym{});
    symbol.st_name = names.add(kRankWeightsSymbol);
    symbol.setBindingAndType(ELF::STB_GLOBAL, ELF::STT_OBJECT);
    symbol.st_other = ELF::STV_HIDDEN;
    symbol.st_shndx = Data;
    symbol.st_size = table.size() * sizeof(uint64_t);
    dataSize = symbol.st_size;
    dataAlignment = kRankPage;
    table[1] = dataSize;
  }
  // Where each weight starts (its symbol's value), for the writing below.
  SmallVector<uint64_t> starts;
  for (auto [i, weight] : llvm::enumerate(weights)) {
    // A rank's weights begin on a page of their own.
    if (!table.empty() && weight.rank >= 0 &&
        (i == 0 || weights[i - 1].rank != weight.rank)) {
      dataSize = llvm::alignTo(dataSize, kRankPage);
      table[2 + 2 * weight.rank] = dataSize;
    }
    dataSize = llvm::alignTo(dataSize, weight.alignment);
    dataAlignment = std::max(dataAlignment, weight.alignment);
    ELF::Elf64_Sym &symbol = symbols.emplace_back(ELF::Elf64_Sym{});
    symbol.st_name = names.add(weight.name);
    symbol.setBindingAndType(ELF::STB_GLOBAL, ELF::STT_OBJECT);
    symbol.st_other = ELF::STV_HIDDEN;
    symbol.st_shndx = Data;
    symbol.st_value = dataSize;
    symbol.st_size = sizeOf(weight);
    starts.push_back(dataSize);
    dataSize += symbol.st_size;
    // The end, so far, of the weights of every rank or of this one.
    if (!table.empty())
      table[weight.rank < 0 ? 1 : 3 + 2 * weight.rank] = dataSize;
  }
  // An undefined symbol, which the linker resolves from the runtime's
  // archive: the file that moves the weights into anonymous memory when the
  // binary is loaded (runtime/Weights.cpp) comes with them.
  ELF::Elf64_Sym &loader = symbols.emplace_back(ELF::Elf64_Sym{});
  loader.st_name = names.add(kWeightsLoaderSymbol);
  loader.setBindingAndType(ELF::STB_GLOBAL, ELF::STT_NOTYPE);
  loader.st_shndx = ELF::SHN_UNDEF;

  // The file: header, data, symbols, strings, section names, headers.
  uint64_t offset = sizeof(ELF::Elf64_Ehdr);
  auto place = [&](Section index, uint64_t size, uint64_t alignment) {
    offset = llvm::alignTo(offset, alignment);
    sections[index].sh_offset = offset;
    sections[index].sh_size = size;
    sections[index].sh_addralign = alignment;
    offset += size;
  };
  place(Data, dataSize, dataAlignment);
  sections[Data].sh_type = ELF::SHT_PROGBITS;
  sections[Data].sh_flags = ELF::SHF_ALLOC;
  place(SymTab, symbols.size() * sizeof(ELF::Elf64_Sym), 8);
  sections[SymTab].sh_type = ELF::SHT_SYMTAB;
  sections[SymTab].sh_link = StrTab;
  sections[SymTab].sh_info = 1; // the first global symbol
  sections[SymTab].sh_entsize = sizeof(ELF::Elf64_Sym);
  place(StrTab, names.str().size(), 1);
  sections[StrTab].sh_type = ELF::SHT_STRTAB;
  place(ShStrTab, sectionNames.str().size(), 1);
  sections[ShStrTab].sh_type = ELF::SHT_STRTAB;
  place(Note, 0, 1);
  sections[Note].sh_type = ELF::SHT_PROGBITS;
  uint64_t sectionHeaders = llvm::alignTo(offset, 8);

  ELF::Elf64_Ehdr header{};
  memcpy(header.e_ident, ELF::ElfMagic, strlen(ELF::ElfMagic));
  header.e_ident[ELF::EI_CLASS] = ELF::ELFCLASS64;
  header.e_ident[ELF::EI_DATA] = ELF::ELFDATA2LSB;
  header.e_ident[ELF::EI_VERSION] = ELF::EV_CURRENT;
  header.e_ident[ELF::EI_OSABI] = ELF::ELFOSABI_NONE;
  header.e_type = ELF::ET_REL;
  header.e_machine = ELF::EM_X86_64;
  header.e_version = ELF::EV_CURRENT;
  header.e_shoff = sectionHeaders;
  header.e_ehsize = sizeof(ELF::Elf64_Ehdr);
  header.e_shentsize = sizeof(ELF::Elf64_Shdr);
  header.e_shnum = Count;
  header.e_shstrndx = ShStrTab;

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  offset = 0;
  writeStruct(header, os);
  offset += sizeof(header);
  pad(os, offset, dataAlignment);
  uint64_t start = offset;
  if (!table.empty()) {
    table[0] = ranks;
    for (uint64_t value : table)
      writeStruct(value, os);
    offset += table.size() * sizeof(uint64_t);
  }
  for (auto [weight, at] : llvm::zip(weights, starts)) {
    os.write_zeros(start + at - offset);
    offset = start + at;
    ArrayRef<char> bytes = weight.value.getRawData();
    os.write(bytes.data(), bytes.size());
    offset += sizeOf(weight);
  }
  assert(offset - start == dataSize && "weights written where placed");
  (void)start;
  pad(os, offset, 8);
  for (const ELF::Elf64_Sym &symbol : symbols)
    writeStruct(symbol, os);
  os << names.str() << sectionNames.str();
  offset += symbols.size() * sizeof(ELF::Elf64_Sym) + names.str().size() +
            sectionNames.str().size();
  pad(os, offset, 8);
  assert(offset == sectionHeaders && "section headers where placed");
  for (const ELF::Elf64_Shdr &section : sections)
    writeStruct(section, os);
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path.str() + "': " + os.error().message();
    os.clear_error();
    return failure();
  }
  return success();
}
