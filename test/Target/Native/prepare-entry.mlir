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

// -----

// Dynamic sizes: one per class of input dimensions that the graph ties
// together (the key's batch is the query's; its sequence is its own), named
// by `tfm.dims` where given and after the first input that has it
// otherwise. The result's sizes are the query's. `dims` encodes a size as
// -2 - its index in `dim_names`.

// CHECK: module attributes {tfm.entry_signature = {dim_names = ["batch", "q_dim1", "k_dim1"], inputs = [{dims = array<i64: -2, -3, 16>, name = "q", type = tensor<?x?x16xf32>}, {dims = array<i64: -2, -4, 16>, name = "k", type = tensor<?x?x16xf32>}, {dims = array<i64: -2, -4, 16>, name = "v", type = tensor<?x?x16xf32>}], name = "main", outputs = [{dims = array<i64: -2, -3, 16>, name = "out", type = tensor<?x?x16xf32>}]}}
// CHECK: func.func @__tfm_entry(%{{.*}}: tensor<?x?x16xf32>, %{{.*}}: tensor<?x?x16xf32>, %{{.*}}: tensor<?x?x16xf32>) -> tensor<?x?x16xf32> attributes {llvm.emit_c_interface}
func.func @main(%q: tensor<?x?x16xf32> {tfm.name = "q", tfm.dims = ["batch", "", ""]},
                %k: tensor<?x?x16xf32> {tfm.name = "k"},
                %v: tensor<?x?x16xf32> {tfm.name = "v"})
    -> (tensor<?x?x16xf32> {tfm.name = "out"}) {
  %r = tfm.attention %q, %k, %v : (tensor<?x?x16xf32>, tensor<?x?x16xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %r : tensor<?x?x16xf32>
}

// -----

// A size that the graph fixes (the residual adds a [4, 16] tensor) is no
// dynamic size of the binary: the input's dims say 4.

// CHECK: module attributes {tfm.entry_signature = {inputs = [{dims = array<i64: 4, 16>, name = "x", type = tensor<?x16xf32>}, {name = "y", type = tensor<4x16xf32>}], name = "main", outputs = [{name = "z", type = tensor<4x16xf32>}]}}
func.func @main(%x: tensor<?x16xf32> {tfm.name = "x"}, %y: tensor<4x16xf32> {tfm.name = "y"})
    -> (tensor<4x16xf32> {tfm.name = "z"}) {
  %c = tensor.cast %x : tensor<?x16xf32> to tensor<4x16xf32>
  %z = arith.addf %c, %y : tensor<4x16xf32>
  return %z : tensor<4x16xf32>
}

// -----

// The names become C parameters: a keyword gets a `_`; names that
// sanitize alike, an output named like an input and a size named like
// either get a number.

// CHECK: module attributes {tfm.entry_signature = {dim_names = ["x_2"], inputs = [{dims = array<i64: -2>, name = "x", type = tensor<?xf32>}, {name = "int_", type = tensor<4xf32>}, {name = "a_b", type = tensor<4xf32>}, {name = "a_b_1", type = tensor<4xf32>}], name = "main", outputs = [{dims = array<i64: -2>, name = "x_1", type = tensor<?xf32>}]}}
func.func @main(%x: tensor<?xf32> {tfm.name = "x", tfm.dims = ["x"]},
                %i: tensor<4xf32> {tfm.name = "int"},
                %a: tensor<4xf32> {tfm.name = "a.b"},
                %b: tensor<4xf32> {tfm.name = "a:b"})
    -> (tensor<?xf32> {tfm.name = "x"}) {
  return %x : tensor<?xf32>
}
