// RUN: tfm-opt %s --tfm-emit-c-interface -split-input-file -verify-diagnostics

// expected-error @+1 {{expected the entry signature that tfm-prepare-entry records as 'tfm.entry_signature'}}
module {
  llvm.func @_mlir_ciface___tfm_entry(!llvm.ptr, !llvm.ptr)
}

// -----

// A dynamic shape needs the dims that say which sizes it has.
// expected-error @+1 {{expected the entry signature that tfm-prepare-entry records as 'tfm.entry_signature'}}
module attributes {tfm.entry_signature = {name = "main",
    inputs = [{name = "x", type = tensor<?x4xf32>}],
    outputs = [{name = "y", type = tensor<?x4xf32>}]}} {
  llvm.func @_mlir_ciface___tfm_entry(!llvm.ptr, !llvm.ptr)
}

// -----

// Not lowered to the LLVM dialect: no C interface yet.
// expected-error @+1 {{expected @_mlir_ciface___tfm_entry, the C interface that func-to-llvm generates for the entry that tfm-prepare-entry marks; run this pass on the module lowered to the LLVM dialect}}
module attributes {tfm.entry_signature = {name = "main",
    inputs = [{name = "x", type = tensor<4xf32>}],
    outputs = [{name = "y", type = tensor<4xf32>}]}} {
  func.func @__tfm_entry(%x: tensor<4xf32>) -> tensor<4xf32>
      attributes {llvm.emit_c_interface} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.entry_signature = {name = "main",
    inputs = [{name = "x", type = tensor<4xf32>}],
    outputs = [{name = "y", type = tensor<4xf32>}]}} {
  // expected-error @+1 {{expected @_mlir_ciface___tfm_entry to take 2 descriptor pointers (one per input and output of the entry signature) and return nothing, found '!llvm.func<void (ptr)>'}}
  llvm.func @_mlir_ciface___tfm_entry(!llvm.ptr)
}

// -----

module attributes {tfm.entry_signature = {name = "main",
    inputs = [{name = "x", type = tensor<4xf32>}],
    outputs = [{name = "y", type = tensor<4xf32>}]}} {
  llvm.func @_mlir_ciface___tfm_entry(!llvm.ptr, !llvm.ptr)
  // A helper of the graph, made private but still named @tfm_run.
  // expected-error @+1 {{@tfm_run is a name of the C interface that tfm-emit-c-interface adds; the module must not define it}}
  llvm.func private @tfm_run() {
    llvm.return
  }
}
