// RUN: tfm-opt %s --tfm-fuse-layer-norm | FileCheck %s --check-prefix=COUNT
// RUN: tfm-opt %s --tfm-fuse-layer-norm --mlir-pass-statistics \
// RUN:     --mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS

// The `fused` statistic of tfm-fuse-layer-norm counts the normalizations
// fused: the one of x, not the one of y, whose variance divides by D - 1.
//
// Debian's LLVM 22 is a release build: `llvm::Statistic` is a no-op there
// (no LLVM_FORCE_ENABLE_STATS) and the statistics report is empty. So the
// STATS run only fails if a report shows another count than the expected
// `(S) 1 fused - Layer and RMS normalizations fused`, and the COUNT run checks the same number on the
// output, where every increment of the statistic is one rewrite.

// STATS: Pass statistics report
// STATS-NOT: {{\(S\) ([02-9]|[0-9][0-9]+) fused}}
// COUNT-LABEL: func.func @norms
// COUNT-COUNT-1: tfm.layer_norm
// COUNT-NOT:     tfm.layer_norm

func.func @norms(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %dim = arith.constant dense<16.0> : tensor<4xf32>
  %dim1 = arith.constant dense<15.0> : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %sum = linalg.reduce { arith.addf } ins(%x : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %mean = arith.divf %sum, %dim : tensor<4xf32>
  %mean_b = linalg.broadcast ins(%mean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %d = arith.subf %x, %mean_b : tensor<4x16xf32>
  %sq = arith.mulf %d, %d : tensor<4x16xf32>
  %sq_sum = linalg.reduce { arith.addf } ins(%sq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %var = arith.divf %sq_sum, %dim : tensor<4xf32>
  %var_eps = arith.addf %var, %eps : tensor<4xf32>
  %rstd = math.rsqrt %var_eps : tensor<4xf32>
  %rstd_b = linalg.broadcast ins(%rstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %n = arith.mulf %d, %rstd_b : tensor<4x16xf32>
  %ysum = linalg.reduce { arith.addf } ins(%y : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %ymean = arith.divf %ysum, %dim : tensor<4xf32>
  %ymean_b = linalg.broadcast ins(%ymean : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %yd = arith.subf %y, %ymean_b : tensor<4x16xf32>
  %ysq = arith.mulf %yd, %yd : tensor<4x16xf32>
  %ysq_sum = linalg.reduce { arith.addf } ins(%ysq : tensor<4x16xf32>)
      outs(%zero : tensor<4xf32>) dimensions = [1]
  %yvar = arith.divf %ysq_sum, %dim1 : tensor<4xf32>
  %yvar_eps = arith.addf %yvar, %eps : tensor<4xf32>
  %yrstd = math.rsqrt %yvar_eps : tensor<4xf32>
  %yrstd_b = linalg.broadcast ins(%yrstd : tensor<4xf32>)
      outs(%e2 : tensor<4x16xf32>) dimensions = [1]
  %yn = arith.mulf %yd, %yrstd_b : tensor<4x16xf32>
  return %n, %yn : tensor<4x16xf32>, tensor<4x16xf32>
}
