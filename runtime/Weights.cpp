//===- Weights.cpp - A binary's weights moved into anonymous memory -------===//
//
// tfm-compile writes a model's weights into a section of their own,
// `tfm_weights` (lib/Target/Native/WeightsObject.cpp), whose object asks
// for this file's symbol, so that the binaries with weights, and only
// those, carry the constructor below.
//
// Left where the loader maps them, the weights are pages of the binary's
// file, shared with the page cache. On the machines tfm is measured on, a
// model whose weights outgrow the caches (ViT-B/16: 330 MB) ran its
// products up to three times slower in bursts at two threads (runs from
// 103 to 300 ms), and steadily from the same binary copied to /dev/shm;
// why the kernel treats file pages so (their reclaim's aging of accessed
// bits is the likely cause) was not measured. So, before main() or when a
// library is loaded, the whole pages of the section move into anonymous
// memory at the same addresses (the code refers to the weights by
// address): a copy, then mremap over the file's pages. ONNX Runtime's
// weights live in anonymous memory too. The pages are private to the
// process, as the mapped file's were counted in its RSS before.
//
// The copy reads the file (pread: the kernel copies from the page cache),
// so that the process never maps the file's pages and holds one copy of
// the weights (peak RSS); through the mapping where that fails. Where
// anything fails, the weights stay where they are: the move is an
// optimization. TFM_MAP_WEIGHTS=1 in the environment skips it, for
// processes that should share the page cache's copy of one model.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

// The bounds of the section, defined by the linker (it names a section
// after a C identifier that way) in the binary that links this file.
extern "C" __attribute__((visibility("hidden"))) const char
    __start_tfm_weights[];
extern "C" __attribute__((visibility("hidden"))) const char
    __stop_tfm_weights[];

/// Referenced by the weights' object: pulls this file out of the runtime's
/// archive into the binaries that have weights.
extern "C" const char tfm_runtime_weights_in_anonymous_memory = 1;

namespace {

/// The bytes copied between two releases of the file's pages.
constexpr uintptr_t kChunk = uintptr_t(8) << 20;

/// The kernel's huge pages (transparent huge pages, x86-64's 2 MiB).
constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

/// Where the byte at `address` of a loaded object comes from: its file and
/// the offset in it.
struct FileOffset {
  uintptr_t address;
  const char *path = nullptr;
  off_t offset = 0;
};

int findFileOffset(dl_phdr_info *info, size_t, void *data) {
  auto *where = static_cast<FileOffset *>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &segment = info->dlpi_phdr[i];
    uintptr_t low = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type != PT_LOAD || where->address < low ||
        where->address >= low + segment.p_filesz)
      continue;
    // The executable's name is empty.
    where->path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name
                                                      : "/proc/self/exe";
    where->offset = off_t(segment.p_offset + (where->address - low));
    return 1;
  }
  return 0;
}

/// Reads `size` bytes of the binary's file at `from`'s place into `to`:
/// the kernel copies them from the page cache, and the file's pages are
/// never mapped into this process. False if anything fails.
bool readFromFile(char *to, uintptr_t from, uintptr_t size) {
  FileOffset where{from};
  if (!dl_iterate_phdr(findFileOffset, &where) || !where.path)
    return false;
  int fd = open(where.path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  uintptr_t done = 0;
  while (done < size) {
    ssize_t got = pread(fd, to + done, size - done, where.offset + off_t(done));
    if (got <= 0)
      break;
    done += uintptr_t(got);
  }
  close(fd);
  return done == size;
}

/// Moves the whole pages of [first, last) into anonymous memory.
void moveWeightsToAnonymousMemory(const char *first, const char *last) {
  if (const char *keep = std::getenv("TFM_MAP_WEIGHTS"); keep && *keep == '1')
    return;
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pageSize <= 0)
    return;
  uintptr_t page = uintptr_t(pageSize);
  uintptr_t begin = (uintptr_t(first) + page - 1) & ~(page - 1);
  uintptr_t end = uintptr_t(last) & ~(page - 1);
  if (end <= begin)
    return;
  uintptr_t size = end - begin;
  // The new pages at the section's offset within a huge page, so that the
  // huge pages the kernel may give them (transparent huge pages, asked for
  // below) survive the move: both sides' 2 MiB-aligned ranges coincide.
  uintptr_t slack = size >= kHugePage ? kHugePage : 0;
  void *mapped = mmap(nullptr, size + slack, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED)
    return;
  uintptr_t base = uintptr_t(mapped), start = base;
  if (slack) {
    start = base + ((begin - base) & (kHugePage - 1));
    if (start > base)
      munmap(mapped, start - base);
    if (base + slack > start)
      munmap(reinterpret_cast<void *>(start + size), base + slack - start);
#ifdef MADV_HUGEPAGE
    (void)madvise(reinterpret_cast<void *>(start), size, MADV_HUGEPAGE);
#endif
  }
  void *fresh = reinterpret_cast<void *>(start);
  char *to = static_cast<char *>(fresh);
  if (!readFromFile(to, begin, size)) {
    // Through the file's mapping instead, releasing its pages as they are
    // copied: read again, they would come back from the file, unchanged.
    char *from = reinterpret_cast<char *>(begin);
    for (uintptr_t offset = 0; offset < size; offset += kChunk) {
      uintptr_t bytes = size - offset < kChunk ? size - offset : kChunk;
      std::memcpy(to + offset, from + offset, bytes);
      (void)madvise(from + offset, bytes, MADV_DONTNEED);
    }
  }
  if (mprotect(fresh, size, PROT_READ) != 0 ||
      mremap(fresh, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
             reinterpret_cast<void *>(begin)) == MAP_FAILED)
    munmap(fresh, size);
}

} // namespace

/// A tensor-parallel model's table of where each rank's weights lie
/// (lib/Target/Native/WeightsObject.h's kRankWeightsSymbol): N, the end of
/// the weights every rank reads, then each rank's begin and end, offsets
/// from the table. Absent (null) in other binaries.
extern "C" __attribute__((weak, visibility("hidden"))) const uint64_t
    tfm_weights_ranks[];

__attribute__((constructor)) static void placeWeights() {
  // A tensor-parallel model's process moves the weights every rank reads
  // now and its rank's when it knows its rank (tfmMoveRankWeights); the
  // other ranks' pages are never read, and stay out of its memory.
  if (tfm_weights_ranks) {
    const char *table = reinterpret_cast<const char *>(tfm_weights_ranks);
    moveWeightsToAnonymousMemory(__start_tfm_weights,
                                 table + tfm_weights_ranks[1]);
    return;
  }
  moveWeightsToAnonymousMemory(__start_tfm_weights, __stop_tfm_weights);
}

/// Called by runtime/Distributed.cpp once MPI says which rank this process
/// is: moves that rank's weights as the constructor moved the others.
extern "C" void tfmMoveRankWeights(int rank) {
  if (!tfm_weights_ranks || rank < 0 ||
      uint64_t(rank) >= tfm_weights_ranks[0])
    return;
  const char *table = reinterpret_cast<const char *>(tfm_weights_ranks);
  moveWeightsToAnonymousMemory(table + tfm_weights_ranks[2 + 2 * rank],
                               table + tfm_weights_ranks[3 + 2 * rank]);
}
