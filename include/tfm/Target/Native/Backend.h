//===- Backend.h - Object code and linking ----------------------*- C++ -*-===//

#ifndef TFM_TARGET_NATIVE_BACKEND_H
#define TFM_TARGET_NATIVE_BACKEND_H

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <optional>
#include <string>
#include <system_error>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir {
namespace tfm {

/// A TargetMachine for the host's triple and `cpu`, producing
/// position-independent code. `cpu` is an LLVM CPU name ("haswell",
/// "sapphirerapids", "x86-64-v3"), "native" for the host's own CPU and
/// features, or "avx2" / "avx512", short for x86-64-v3 / x86-64-v4.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(llvm::StringRef cpu, unsigned optLevel,
                    std::string &error);

/// The facts about `machine`'s CPU that code generation reads (#tfm.cpu):
/// with `host`, the caches are the host's where the OS reports them.
CpuTargetAttr describeCpu(MLIRContext *context,
                          const llvm::TargetMachine &machine, bool host);

/// Runs LLVM's optimization pipeline at `optLevel` over `module`.
mlir::LogicalResult optimizeModule(llvm::Module &module,
                                   llvm::TargetMachine &machine,
                                   unsigned optLevel, std::string &error);

/// Writes one of the compiler's outputs to `path` as a whole: `write`
/// fills a temporary file next to it, which is then renamed over `path`
/// (a symbolic link's target), so that a process that has the old file
/// mapped (a loaded library, a running executable) keeps it intact and a
/// failed write leaves `path` as it was. "-" is stdout, and a path that is
/// not a regular file (/dev/null, /dev/full, a pipe) is written in place.
/// `executable` makes the file rwxr-xr-x. On failure sets `error`, which
/// names `path`, or leaves the one that `write` set.
mlir::LogicalResult writeOutputFile(
    llvm::StringRef path, bool executable,
    llvm::function_ref<mlir::LogicalResult(llvm::raw_pwrite_stream &os,
                                           std::string &error)>
        write,
    std::string &error);

/// Creates an empty file for a result that replaceOutputFile will make the
/// output `path`: beside `path` where it can be (a regular file or a new
/// path), so that a rename does it, in the temporary directory otherwise.
std::error_code createOutputTemporary(llvm::StringRef path,
                                      llvm::SmallVectorImpl<char> &temporary);

/// Makes the finished file `from` (a linked binary, say) the output `path`
/// as writeOutputFile would write it, rwxr-xr-x: renamed over a regular
/// file or a new path on the same file system (no copy of a binary of
/// hundreds of megabytes), copied with writeOutputFile otherwise (another
/// file system, "-", a device). `from` is gone or left to its owner to
/// remove.
mlir::LogicalResult replaceOutputFile(llvm::StringRef path,
                                      llvm::StringRef from,
                                      std::string &error);

/// Writes `module` as an object file to `path` (with writeOutputFile).
mlir::LogicalResult emitObjectFile(llvm::Module &module,
                                   llvm::TargetMachine &machine,
                                   llvm::StringRef path, std::string &error);

/// Optimizes `module` (optimizeModule) and compiles it to object code for
/// `cpu` (createTargetMachine), into temporary files whose paths are
/// appended to `objects` (the caller removes them). The module is split into
/// a fixed number of partitions (llvm::SplitModule, which makes internal
/// symbols hidden globals: the objects belong in one binary), optimized and
/// compiled on up to `jobs` threads (0: the cores this process may run
/// on), each partition in an LLVM context of its own: the objects are the
/// same for any `jobs`.
mlir::LogicalResult
compileToObjects(llvm::Module &module, llvm::StringRef cpu, unsigned optLevel,
                 unsigned jobs, llvm::SmallVectorImpl<std::string> &objects,
                 std::string &error);

enum class LinkKind { Executable, SharedLibrary };

/// What a shared library exports: the symbols that match `pattern` (a
/// version-script glob, `gpt_*`), among them `aliases`, each a name the
/// library gives a runtime function (`gpt_kv_state_run` for
/// `tfm_kv_state_run`, linked in even if the object does not call it).
/// Every other symbol, the runtime's included, is local to the library, so
/// that libraries of different prefixes, or of different tfm versions,
/// never bind each other's runtime in one process.
struct LibraryExports {
  std::string pattern;
  std::vector<std::pair<std::string, std::string>> aliases;
};

/// Links `objects` with tfm's runtime archives into an executable or a
/// shared library (exporting `exports`), using the system's clang++ and lld.
mlir::LogicalResult linkBinary(LinkKind kind,
                               llvm::ArrayRef<std::string> objects,
                               llvm::ArrayRef<std::string> runtimeArchives,
                               llvm::StringRef output, std::string &error,
                               const LibraryExports *exports = nullptr);

/// What of CUDA's toolkit is here: its prefix, where it has libdevice
/// (empty when none is found), and whether ptxas runs.
struct CudaTools {
  std::string prefix;
  bool hasPtxas = false;
};

/// Looks for libdevice under $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT,
/// /usr/local/cuda and the toolkit of the ptxas on PATH, and for ptxas on
/// PATH or in that toolkit.
CudaTools findCudaTools();

/// The PTX features an architecture needs ("+ptx80" for sm_90), or nullopt
/// for a name that is not sm_XX[a|f].
std::optional<std::string> getDefaultPtxFeatures(llvm::StringRef arch);

} // namespace tfm
} // namespace mlir

#endif // TFM_TARGET_NATIVE_BACKEND_H
