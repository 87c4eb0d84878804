// RUN: tfm-opt %s --tfm-emit-c-interface=prefix=my-lib -verify-diagnostics

// The prefix starts every exported C name: it must be a C identifier.

// expected-error @+1 {{the symbol prefix 'my-lib' is not a C identifier}}
module attributes {tfm.entry_signature = {name = "main",
    inputs = [{name = "x", type = tensor<4xf32>}],
    outputs = [{name = "y", type = tensor<4xf32>}]}} {
  llvm.func @_mlir_ciface___tfm_entry(!llvm.ptr, !llvm.ptr)
}
