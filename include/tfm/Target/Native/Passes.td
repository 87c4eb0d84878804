//===- Passes.td - preparing a graph for a native binary ---*- tablegen -*-===//

#ifndef TFM_TARGET_NATIVE_PASSES_TD
#define TFM_TARGET_NATIVE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmBindWeights : Pass<"tfm-bind-weights", "::mlir::ModuleOp"> {
  let summary = "Replace the weight arguments of the entry by constants";
  let description = [{
    Every argument of the entry function marked `{tfm.weight = "NAME"}`
    becomes a constant holding the tensor NAME of the safetensors file
    `file` (docs/tfm-compile.md). Without a file, a marked argument is an
    error. The entry is `entry`, or the only public function, or `@main`.
    This is what `tfm-compile --weights` runs first.
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"",
           "The safetensors file">,
    Option<"entry", "entry", "std::string", /*default=*/"",
           "The entry function (default: the only public one, or @main)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TfmPrepareEntry : Pass<"tfm-prepare-entry", "::mlir::ModuleOp"> {
  let summary = "Make the entry function the interface of a native binary";
  let description = [{
    Checks that the entry function (`entry`, or the only public function,
    or `@main`) can cross the boundary of a native binary (static shapes,
    element types a .npy file holds), records its signature (names from
    `tfm.name`, types) as the module's `tfm.entry_signature`, renames it to
    `@__tfm_entry` (so that a graph's `@main` cannot clash with the
    executable's), asks for its C interface, and makes every other function
    private. `tfm-compile` runs it before its pipeline and reads the
    signature back to write the C entry points and the header, so that

        tfm-opt graph.mlir --tfm-prepare-entry --tfm-cpu-pipeline=stop-after=S

    prints what `tfm-compile graph.mlir --emit=mlir --stage=S` does.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"",
           "The entry function (default: the only public one, or @main)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TFM_TARGET_NATIVE_PASSES_TD
