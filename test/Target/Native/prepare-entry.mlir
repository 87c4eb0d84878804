// RUN: tfm-opt %s --tfm-prepare-entry -split-input-file | FileCheck %s

// The entry is renamed, asks for its C interface and loses its names, which
// go into the signature on the module (an unnamed input is argN); other
// functions become private.

// CHECK: module attributes {tfm.entry_signature = {inputs = [{name = "x", type = tensor<2x8xf32>}, {name = "arg1", type = tensor<2xi64>}], name = "main", outputs = [{name = "y", type = tensor<2x8xf32>}]}}
// CHECK: func.func private @helper
// CHECK: func.func @__tfm_entry(%{{.*}}: tensor<2x8xf32>, %{{.*}}: tensor<2xi64>) -> tensor<2x8xf32> attributes {llvm.emit_c_interface}
// CHECK:   call @helper
func.func @helper(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  return %x : tensor<2x8xf32>
}
func.func @main(%x: tensor<2x8xf32> {tfm.name = "x"}, %l: tensor<2xi64>)
    -> (tensor<2x8xf32> {tfm.name = "y"}) {
  %0 = call @helper(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
