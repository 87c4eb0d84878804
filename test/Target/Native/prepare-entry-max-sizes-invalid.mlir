// RUN: tfm-opt %s --tfm-prepare-entry="max-sizes=len=8" -split-input-file -verify-diagnostics

// A bound of a size the entry does not have lists the sizes it has.

// expected-error @+1 {{max size 'len=8': entry @main has no dynamic size named 'len' (its sizes: batch, seq)}}
func.func @main(%x: tensor<?x?x4xf32> {tfm.name = "x", tfm.dims = ["batch", "seq", ""]})
    -> (tensor<?x?x4xf32> {tfm.name = "y"}) {
  %y = arith.addf %x, %x : tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

// expected-error @+1 {{max size 'len=8': entry @main has no dynamic size named 'len' (its shapes are static)}}
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %y = arith.addf %x, %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}
