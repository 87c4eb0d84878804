// RUN: tfm-opt %s --tfm-fuse-linear | FileCheck %s --check-prefix=COUNT
// RUN: tfm-opt %s --tfm-fuse-linear --mlir-pass-statistics \
// RUN:     --mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS

// The `fused` statistic of tfm-fuse-linear counts every bias and activation
// fused: a bias and a ReLU on the first linear, a GELU on the second, and
// nothing on the third, whose result has another user.
//
// Debian's LLVM 22 is a release build: `llvm::Statistic` is a no-op there
// (no LLVM_FORCE_ENABLE_STATS) and the statistics report is empty. So the
// STATS run only fails if a report shows another count than the expected
// `(S) 3 fused - Bias additions and activations fused`, and the COUNT run checks the same number on the
// output, where every increment of the statistic is one rewrite.

// STATS: Pass statistics report
// STATS-NOT: {{\(S\) ([0-24-9]|[0-9][0-9]+) fused}}
// COUNT-LABEL: func.func @linears
// COUNT:         tfm.linear %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} {activation = #tfm.activation<relu>}
// COUNT:         tfm.linear %{{[^,]*}}, %{{[^,]*}}, %{{[^ ]*}} {activation = #tfm.activation<gelu>}
// COUNT:         %[[L:.*]] = tfm.linear %{{[^,]*}}, %{{[^ ]*}} : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
// COUNT:         arith.addf %[[L]]

func.func @linears(%x: tensor<5x8xf32>, %w: tensor<4x8xf32>,
                   %b: tensor<4xf32>)
    -> (tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>) {
  %zero = arith.constant dense<0.0> : tensor<5x4xf32>
  %e = tensor.empty() : tensor<5x4xf32>
  %bb = linalg.broadcast ins(%b : tensor<4xf32>)
      outs(%e : tensor<5x4xf32>) dimensions = [0]
  %0 = tfm.linear %x, %w : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %1 = arith.addf %0, %bb : tensor<5x4xf32>
  %2 = arith.maximumf %1, %zero : tensor<5x4xf32>
  %3 = tfm.linear %x, %w, %b : (tensor<5x8xf32>, tensor<4x8xf32>, tensor<4xf32>)
      -> tensor<5x4xf32>
  %4 = tfm.gelu %3 : tensor<5x4xf32>
  %5 = tfm.linear %x, %w : (tensor<5x8xf32>, tensor<4x8xf32>) -> tensor<5x4xf32>
  %6 = arith.addf %5, %bb : tensor<5x4xf32>
  return %2, %4, %6, %5
      : tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>
}
