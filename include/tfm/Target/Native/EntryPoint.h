//===- EntryPoint.h - The interface of a compiled model ---------*- C++ -*-===//
//
// tfm-compile compiles one entry function. Before lowering it checks that the
// entry can cross the boundary of a native binary (static shapes, element
// types a .npy file can hold) and records its signature (tfm-prepare-entry);
// after lowering it adds, in the LLVM dialect, the C entry points
// (`tfm_<entry>`, `tfm_run`) and the signature text (`tfm_signature`) that
// the runtime and the generated C header rely on (tfm-emit-c-interface).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_NATIVE_ENTRYPOINT_H
#define TFM_TARGET_NATIVE_ENTRYPOINT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir {
namespace tfm {

/// One input or output of the entry function.
struct TensorSpec {
  std::string name;
  mlir::RankedTensorType type;
  /// Per dimension: its size if the binary fixes it (a static size of
  /// `type`, or one the graph implies), else symbolDim(i) for the entry's
  /// i-th dynamic size (EntrySignature::dimNames).
  std::vector<int64_t> dims;
  /// For an output that holds an attention's weights
  /// (tfm-expose-attention-weights), the attention's location; else empty.
  std::string attention;
  /// For an input, what the generation runtime gives it: a key/value cache
  /// that the model updates in place, or the number of positions the
  /// caches hold (tfm-kv-cache); else an input the caller fills.
  enum class Role { Data, KvCache, KvPosition } role = Role::Data;

  static int64_t symbolDim(int64_t symbol) { return -2 - symbol; }
  /// The dynamic size that `dim` (an element of `dims`) is, if any.
  static std::optional<int64_t> getSymbol(int64_t dim) {
    return dim <= -2 ? std::optional<int64_t>(-2 - dim) : std::nullopt;
  }
};

struct EntrySignature {
  /// The entry's name in the graph file, e.g. "main".
  std::string name;
  /// The entry's distinct dynamic sizes, each a C identifier: the
  /// parameters that precede the buffers of its C function.
  std::vector<std::string> dimNames;
  /// Per dynamic size its upper bound (--max-size), or 0 for none.
  std::vector<int64_t> dimBounds;
  /// Per dynamic size, empty where an input has it; else the terms whose
  /// sum it is (symbolDim(i) for the i-th size, or a constant): a size that
  /// only outputs have, such as the `past + seq` of a concatenation. These
  /// come after the inputs' sizes, and the caller passes them too, summed.
  /// Shorter than dimNames when no size is a sum.
  std::vector<std::vector<int64_t>> dimSums;

  /// The terms of size `symbol` if it is a sum, else empty.
  llvm::ArrayRef<int64_t> getSum(size_t symbol) const {
    return symbol < dimSums.size() ? llvm::ArrayRef<int64_t>(dimSums[symbol])
                                   : llvm::ArrayRef<int64_t>();
  }
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
};

/// The entry argument attribute that names an input's dynamic dimensions
/// (`["batch", "seq", ""]`; ONNX's dim_param): dimensions of one name are
/// one size.
constexpr const char *kEntryDimsAttr = "tfm.dims";

/// `name` as a C identifier.
std::string sanitizeName(llvm::StringRef name);

/// Finds which dynamic dimensions of the inputs and outputs of `entry`
/// (whose specs `signature` holds) the graph requires to be equal, gives
/// each class of them a name in `signature.dimNames`, and fills in the
/// specs' `dims`. An output's dynamic size that is a sum of the inputs'
/// (a concatenation's, `past + seq`) becomes a size of its own, in
/// `signature.dimSums`. Emits an error if an output's dynamic size is
/// neither.
mlir::LogicalResult bindEntryDims(mlir::func::FuncOp entry,
                                  EntrySignature &signature);

/// The argument attribute of a key/value cache that the entry updates in
/// place (tfm-kv-cache), and the result attribute, holding that argument's
/// index, of the cache it returns updated.
constexpr const char *kKvCacheAttr = "tfm.kv_cache";
/// The argument attribute of the caches' length before the call.
constexpr const char *kKvPositionAttr = "tfm.kv_position";

/// Rewrites `entry`, a decoder exported "with past" (each `present` result
/// the `concat(past, new)` of a `past` argument along its second-to-last
/// dimension, whose dynamic length is the past's, whatever its name), into a
/// step over key/value caches of `maxLen` positions: each past argument
/// becomes a cache of `maxLen` positions (kKvCacheAttr), a rank-0 i64
/// argument (kKvPositionAttr) says how many of them are filled, and each
/// concat a tfm.kv_cache_append whose updated cache is returned in place of
/// the present. Emits an error naming what does not fit.
mlir::LogicalResult convertToKvCache(mlir::func::FuncOp entry, int64_t maxLen);

/// The symbol the entry function is renamed to before lowering, so that a
/// graph's `@main` cannot collide with the C `main` of the executable.
constexpr const char *kEntrySymbol = "__tfm_entry";

/// Finds the entry function: `entryName` if given, else the only public
/// function, else `@main`. Emits an error and returns null if none fits.
mlir::func::FuncOp findEntry(mlir::ModuleOp module, llvm::StringRef entryName);

/// Checks that `entry` can be compiled to a native interface, records its
/// signature, renames it to kEntrySymbol and asks for its C interface. Every
/// other function becomes private. Emits errors at the entry's location.
mlir::FailureOr<EntrySignature>
prepareEntry(mlir::func::FuncOp entry,
             llvm::ArrayRef<std::string> maxSizes = {});

/// The module attribute in which tfm-prepare-entry leaves the signature.
constexpr const char *kEntrySignatureAttr = "tfm.entry_signature";

/// Records `signature` on `module` as kEntrySignatureAttr:
/// `{name = "main", inputs = [{name = "x", type = tensor<...>}, ...],
/// outputs = [...]}`.
void recordEntrySignature(mlir::ModuleOp module,
                          const EntrySignature &signature);

/// Reads back the signature that recordEntrySignature left on `module`;
/// emits an error if there is none.
mlir::FailureOr<EntrySignature> readEntrySignature(mlir::ModuleOp module);

/// Adds to `module`, lowered to the LLVM dialect, the C interface of the
/// binary for `signature`: `int32_t tfm_<entry>(ptr, ...)`, which puts a
/// memref descriptor for each dense row-major buffer on the stack and calls
/// `_mlir_ciface___tfm_entry`; `int32_t tfm_run(ptr buffers)`, which calls
/// it with buffers[0..n); and `const char tfm_signature[]`. Emits an error
/// if the module lacks `_mlir_ciface___tfm_entry` or already defines one of
/// these names.
///
/// With another `prefix`, the names are `<prefix>_<entry>`, `<prefix>_run`,
/// ...; the entry and its C interface get internal linkage either way, so
/// that binaries of different prefixes link into one program.
mlir::LogicalResult emitCInterface(mlir::ModuleOp module,
                                   const EntrySignature &signature,
                                   llvm::StringRef prefix = "tfm");

/// The name of `type`'s elements in signatures ("f32", "i64", ...), or ""
/// if a binary's interface cannot carry it.
llvm::StringRef getDTypeName(mlir::Type type);

/// The signature as the text binaries carry (runtime/Signature.h): version
/// 1 for entries of static shape; version 2 lists the dynamic sizes first
/// (`dim batch`, or `dim seq 4096` with its bound) and names them in the
/// shapes.
std::string renderSignatureText(const EntrySignature &signature);

/// The runtime's generation functions (`tfm_kv_state_run`, ...), which a
/// library of a model with key/value caches exports under its prefix
/// (`gpt_kv_state_run`) and its header declares: those of
/// runtime/Generate.h.
std::vector<std::string> getGenerationFunctions();

/// The C header that declares the entry points of a shared library.
std::string renderHeader(const EntrySignature &signature,
                         llvm::StringRef source, llvm::StringRef prefix = "tfm");

} // namespace tfm
} // namespace mlir

#endif // TFM_TARGET_NATIVE_ENTRYPOINT_H
