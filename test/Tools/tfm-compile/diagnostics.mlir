// RUN: not tfm-compile %s --tensor-parallel=2 --emit=mlir -o %t 2>&1 | FileCheck %s
// RUN: not tfm-compile %s --tensor-parallel=2 --emit=mlir -o %t --mlir-print-op-on-diagnostic 2>&1 | FileCheck %s --check-prefix=OP

// tfm-compile's diagnostics give the location, not the op: an error at a
// function would otherwise print the whole function, weights and all.
// --mlir-print-op-on-diagnostic brings the op back.

// CHECK:     diagnostics.mlir:[[# @LINE + 3]]:1: error: found no attention or feed-forward block to split over 2 ranks
// CHECK-NOT: see current operation
// OP:        note: see current operation
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<0.5> : tensor<2x4xf32>
  %y = tfm.linear %x, %w : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
