// RUN: tfm-opt %s --tfm-fuse-gelu | FileCheck %s --check-prefix=COUNT
// RUN: tfm-opt %s --tfm-fuse-gelu --mlir-pass-statistics \
// RUN:     --mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS

// The `fused` statistic of tfm-fuse-gelu counts the GELUs fused: two here,
// an erf and a tanh one, and not the erf one with a wrong constant.
//
// Debian's LLVM 22 is a release build: `llvm::Statistic` is a no-op there
// (no LLVM_FORCE_ENABLE_STATS) and the statistics report is empty. So the
// STATS run only fails if a report shows another count than the expected
// `(S) 2 fused - GELUs fused`, and the COUNT run checks the same number on the
// output, where every increment of the statistic is one rewrite.

// STATS: Pass statistics report
// STATS-NOT: {{\(S\) ([013-9]|[0-9][0-9]+) fused}}
// COUNT-LABEL: func.func @gelus
// COUNT-COUNT-2: tfm.gelu %
// COUNT-NOT:     tfm.gelu %
// COUNT:         math.erf
// COUNT-NOT:     tfm.gelu %

func.func @gelus(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %c = arith.constant dense<0.707106769> : tensor<4xf32>
  %bad_c = arith.constant dense<0.7> : tensor<4xf32>
  %k = arith.constant dense<0.797884583> : tensor<4xf32>
  %a = arith.constant dense<0.044715> : tensor<4xf32>
  %three = arith.constant dense<3.0> : tensor<4xf32>
  %e0 = arith.mulf %half, %x : tensor<4xf32>
  %e1 = arith.mulf %x, %c : tensor<4xf32>
  %e2 = math.erf %e1 : tensor<4xf32>
  %e3 = arith.addf %one, %e2 : tensor<4xf32>
  %e4 = arith.mulf %e0, %e3 : tensor<4xf32>
  %t0 = math.powf %x, %three : tensor<4xf32>
  %t1 = arith.mulf %a, %t0 : tensor<4xf32>
  %t2 = arith.addf %x, %t1 : tensor<4xf32>
  %t3 = arith.mulf %k, %t2 : tensor<4xf32>
  %t4 = math.tanh %t3 : tensor<4xf32>
  %t5 = arith.addf %one, %t4 : tensor<4xf32>
  %t6 = arith.mulf %half, %x : tensor<4xf32>
  %t7 = arith.mulf %t6, %t5 : tensor<4xf32>
  %b0 = arith.mulf %half, %x : tensor<4xf32>
  %b1 = arith.mulf %x, %bad_c : tensor<4xf32>
  %b2 = math.erf %b1 : tensor<4xf32>
  %b3 = arith.addf %one, %b2 : tensor<4xf32>
  %b4 = arith.mulf %b0, %b3 : tensor<4xf32>
  return %e4, %t7, %b4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
