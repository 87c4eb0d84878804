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

def TfmKvCache : Pass<"tfm-kv-cache", "::mlir::ModuleOp"> {
  let summary = "Turn a decoder exported with past into a step over "
                "in-place key/value caches";
  let description = [{
    A decoder exported "with past" (Hugging Face / optimum's layout) takes
    the keys and values of the earlier positions, `past_key_<i>` of
    `[batch, heads, past, head_dim]`, and returns them with this call's
    appended, `present_key_<i> = concat(past_key_<i>, k)`: every step
    copies the whole cache twice. This pass rewrites the entry into a step
    over caches of `max-len` positions that the caller allocates once:

    - each past argument becomes a cache `[batch, heads, max-len,
      head_dim]` (`tfm.kv_cache`), and a new rank-0 `i64` argument says how
      many positions the caches hold (`tfm.kv_position`); every use of the
      past length reads it;
    - each concat becomes `tfm.kv_cache_append`, whose prefix the
      attention reads and whose updated cache replaces the present result
      (`tfm.kv_cache` = the cache argument's index).

    The caches are found by the graph's structure, not by names: a result
    that is an argument concatenated with new rows along its
    second-to-last dimension (the past axis) is a cache. The caches share
    one position, named like their past axis where they agree on a name
    (ONNX's dim_param: `past`, `past_sequence_length`), else `past`.

    Bufferization then writes the new positions into the caller's buffers
    in place, and tfm-prepare-entry leaves the updated caches out of the
    outputs. `tfm-compile --kv-cache=N` runs it with `max-len=N`.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"",
           "The entry function (default: the only public one, or @main)">,
    Option<"maxLen", "max-len", "int64_t", /*default=*/"0",
           "The positions a cache holds (prompt and generated tokens)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::tfm::TfmDialect"];
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
    private. `tfm-compile` runs it before its pipeline, so that

        tfm-opt graph.mlir --tfm-prepare-entry --tfm-cpu-pipeline=stop-after=S

    prints what `tfm-compile graph.mlir --emit=mlir --stage=S` does; after
    the pipeline, `tfm-emit-c-interface` reads the signature back to write
    the C entry points.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"",
           "The entry function (default: the only public one, or @main)">,
    ListOption<"maxSizes", "max-sizes", "std::string",
               "Upper bounds of dynamic sizes, each NAME=N (a size the "
               "signature names): the entry checks them and the "
               "signature records them">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TfmSetCpuTarget : Pass<"tfm-set-cpu-target", "::mlir::ModuleOp"> {
  let summary = "Record the CPU that code is generated for on the module";
  let description = [{
    Writes `tfm.target = #tfm.cpu<...>` on the module: the ISA, vector
    registers, features and caches of `cpu`, which the CPU pipeline's
    strategy passes read. tfm-compile runs it with its `--cpu=`; in tfm-opt
    it makes a test compile for a given ISA on any machine:

    ```sh
    tfm-opt --tfm-set-cpu-target=cpu=avx2 --tfm-cpu-pipeline model.mlir
    ```
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"native\"",
           "The CPU: native (the host's), avx2, avx512, or an LLVM CPU "
           "name such as haswell or sapphirerapids">,
  ];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
}

def TfmEmitCInterface : Pass<"tfm-emit-c-interface", "::mlir::ModuleOp"> {
  let summary = "Add the C entry points of a native binary";
  let description = [{
    Runs on the module lowered to the LLVM dialect, and adds, from the
    signature that `tfm-prepare-entry` recorded as `tfm.entry_signature`,
    what the runtime and the C header of a compiled model rely on:

    - `int32_t tfm_<entry>(i64 size0, ..., ptr in0, ..., ptr out0, ...)`,
      which takes the entry's dynamic sizes (if any), then one dense
      row-major buffer per input and per output, puts a memref descriptor
      for each on the stack (both pointers the buffer, offset 0, the sizes
      and row-major strides) and calls `_mlir_ciface___tfm_entry`, the C
      interface that func-to-llvm generates for the entry; it returns 0;
    - `int32_t tfm_run_dims(ptr dims, ptr buffers)`, which calls
      `tfm_<entry>` with `dims[0]`, ..., then `buffers[0]`, ...; and for an
      entry of static shape `int32_t tfm_run(ptr buffers)`;
    - `const char tfm_signature[]`, the signature as text (see
      `runtime/Signature.h`).

    `prefix` replaces `tfm` in these names. The entry and its C interface
    get internal linkage, so that two binaries of different prefixes link
    into one program. The signature stays on the module, for the driver's C
    header. A module without the signature or without
    `_mlir_ciface___tfm_entry`, or one that already defines one of these
    names, is an error. `tfm-compile` runs it after the last stage of either
    pipeline, so that

        tfm-opt graph.mlir --tfm-prepare-entry --tfm-cpu-pipeline \
            --tfm-emit-c-interface

    prints what `tfm-compile graph.mlir --emit=mlir` does.
  }];
  let options = [
    Option<"prefix", "prefix", "std::string", /*default=*/"\"tfm\"",
           "The prefix of the C names (a C identifier)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TFM_TARGET_NATIVE_PASSES_TD
