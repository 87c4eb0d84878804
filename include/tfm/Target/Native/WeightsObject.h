//===- WeightsObject.h - Weights written straight to an object --*- C++ -*-===//
//
// A model's weights are most of its binary (ViT-B/16: 330 of 335 MB) and,
// through LLVM, most of its compile: each one becomes an LLVM constant
// (copied and hashed), then bytes in the assembler's fragments (copied
// again), then the object. Their bytes are already laid out in the
// attributes of the lowered module, exactly as the binary holds them, so
// tfm takes them out of the module before its translation and writes them
// into a relocatable object of their own, one write per weight; the module
// keeps hidden declarations, which the linker resolves.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_NATIVE_WEIGHTSOBJECT_H
#define TFM_TARGET_NATIVE_WEIGHTSOBJECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/TargetParser/Triple.h"

#include <string>

namespace mlir {
namespace tfm {

/// The weights of a model are its large constant globals: below this size
/// a global stays with the code that reads it (here and in the LLVM path
/// of Backend.cpp's object files).
constexpr uint64_t kWeightBytes = 4096;

/// The runtime's symbol that the weights' object refers to, so that a
/// binary with weights links runtime/Weights.cpp, which moves them from the
/// binary's file into anonymous memory when it is loaded.
constexpr const char *kWeightsLoaderSymbol =
    "tfm_runtime_weights_in_anonymous_memory";

/// One weight taken out of a module: the symbol its code refers to, the
/// alignment of its first byte and its bytes (those of `value`, not a
/// splat).
struct ExternalWeight {
  std::string name;
  uint64_t alignment;
  DenseElementsAttr value;
  /// In a tensor-parallel model, the rank whose slice it is (only the clone
  /// of that rank, `tfm.rank`, reads it), or -1 for every rank's.
  int64_t rank = -1;
};

/// The symbol, in the weights' section of a tensor-parallel model, of the
/// table that says where each rank's weights lie: uint64 values, the number
/// of ranks N, the end of the weights every rank reads, then N pairs of
/// begin and end of each rank's, all offsets from the table, each rank's
/// range on whole pages of its own. runtime/Weights.cpp moves the shared
/// pages when the binary loads and a rank's when the process knows its
/// rank, so that each process holds one rank's share.
constexpr const char *kRankWeightsSymbol = "tfm_weights_ranks";

/// Takes the weights out of `module`, a module in the LLVM dialect:
/// each constant `llvm.mlir.global` of at least 4 KiB whose initializer is
/// a dense, non-splat attribute of byte-sized integers or floats laid out
/// as the global's type (nested arrays of that element type) becomes a
/// hidden, dso-local external declaration, and is returned. Nothing is
/// taken for a target other than little-endian x86-64 ELF, the object
/// format writeWeightsObject writes, or on a big-endian host (the
/// attributes hold the host's bytes).
SmallVector<ExternalWeight> externalizeWeights(ModuleOp module,
                                               const llvm::Triple &triple);

/// Writes `weights` as an ELF relocatable object for x86-64 at `path`: one
/// read-only section, `tfm_weights` (which the linker keeps as a section of
/// the binary: `readelf -S` shows the weights' size), holding each weight
/// at its alignment, and a hidden global object symbol for each; and an
/// undefined reference to kWeightsLoaderSymbol.
LogicalResult writeWeightsObject(ArrayRef<ExternalWeight> weights,
                                 StringRef path, std::string &error);

} // namespace tfm
} // namespace mlir

#endif // TFM_TARGET_NATIVE_WEIGHTSOBJECT_H
