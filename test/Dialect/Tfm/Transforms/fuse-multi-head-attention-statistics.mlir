// RUN: tfm-opt %s --tfm-decompose --tfm-fuse-multi-head-attention | FileCheck %s --check-prefix=COUNT
// RUN: tfm-opt %s --tfm-decompose --tfm-fuse-multi-head-attention --mlir-pass-statistics \
// RUN:     --mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS

// The `fused` statistic of tfm-fuse-multi-head-attention counts the blocks
// fused: the two that tfm-decompose wrote out.
//
// Debian's LLVM 22 is a release build: `llvm::Statistic` is a no-op there
// (no LLVM_FORCE_ENABLE_STATS) and the statistics report is empty. So the
// STATS run only fails if a report shows another count than the expected
// `(S) 2 fused - Multi-head attention blocks fused`, and the COUNT run checks the same number on the
// output, where every increment of the statistic is one rewrite.

// STATS: Pass statistics report
// STATS-NOT: {{\(S\) ([013-9]|[0-9][0-9]+) fused}}
// COUNT-LABEL: func.func @blocks
// COUNT-COUNT-2: tfm.multi_head_attention
// COUNT-NOT:     tfm.attention

func.func @blocks(%x: tensor<2x10x32xf32>, %mem: tensor<2x6x32xf32>,
                  %w: tensor<32x32xf32>, %lens: tensor<2xi32>)
    -> tensor<2x10x32xf32> {
  %0 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w)
      valid_lens(%lens) {num_heads = 4 : i64}
      : (tensor<2x10x32xf32>, tensor<2x10x32xf32>, tensor<2x10x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>, tensor<2xi32>) -> tensor<2x10x32xf32>
  %1 = tfm.multi_head_attention %0, %mem, %mem weights(%w, %w, %w, %w)
      {num_heads = 2 : i64}
      : (tensor<2x10x32xf32>, tensor<2x6x32xf32>, tensor<2x6x32xf32>,
         tensor<32x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>,
         tensor<32x32xf32>) -> tensor<2x10x32xf32>
  return %1 : tensor<2x10x32xf32>
}
