// RUN: tfm-opt %s --tfm-fuse-attention=remarks=true -o /dev/null 2>&1 \
// RUN:   | sed -n -e 's/.*remark: fused attention.*/fused/p' \
// RUN:       -e 's/.*remark: attention not fused (\([a-z-]*\)).*/\1/p' \
// RUN:   | sort | uniq -c | FileCheck %s --check-prefix=COUNT
// RUN: tfm-opt %s --tfm-fuse-attention --mlir-pass-statistics \
// RUN:     --mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=STATS

// The statistics of tfm-fuse-attention, over one module holding three
// fusions, one rejection of each of four kinds, two scale rejections, and
// ops that are not candidates (counted nowhere).
//
// Debian's LLVM 22 is a release build: `llvm::Statistic` is a no-op there
// (no LLVM_FORCE_ENABLE_STATS) and the statistics report is empty. So the
// STATS run only fails if a report shows other counts than the expected
// ones, and the COUNT run checks the same numbers on the remarks: the pass
// increments exactly one statistic per candidate, where it emits the
// candidate's one remark, which names that statistic.

// STATS: Pass statistics report
// STATS-NOT: {{\(S\) *([0-24-9]|[0-9][0-9]+) fused }}
// STATS-NOT: {{\(S\) *([02-9]|[0-9][0-9]+) rejected-mask }}
// STATS-NOT: {{\(S\) *([02-9]|[0-9][0-9]+) rejected-multi-use }}
// STATS-NOT: {{\(S\) *([013-9]|[0-9][0-9]+) rejected-scale }}
// STATS-NOT: {{\(S\) *([02-9]|[0-9][0-9]+) rejected-shape }}
// STATS-NOT: {{\(S\) *([02-9]|[0-9][0-9]+) rejected-softmax-axis }}

// COUNT:      {{^ *}}3 fused{{$}}
// COUNT-NEXT: {{^ *}}1 rejected-mask{{$}}
// COUNT-NEXT: {{^ *}}1 rejected-multi-use{{$}}
// COUNT-NEXT: {{^ *}}2 rejected-scale{{$}}
// COUNT-NEXT: {{^ *}}1 rejected-shape{{$}}
// COUNT-NEXT: {{^ *}}1 rejected-softmax-axis{{$}}
// COUNT-NOT:  {{.}}

#id3 = affine_map<(b, i, j) -> (b, i, j)>

func.func @counts(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                  %v: tensor<2x5x6xf32>, %t: tensor<2x3x5xf32>,
                  %keep: tensor<2x3x5xi1>, %lens: tensor<2xi32>,
                  %q16: tensor<2x3x4xf16>, %k16: tensor<2x5x4xf16>)
    -> (tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>,
        tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>,
        tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>,
        tensor<2x3x5xf32>, tensor<2x3x6xf32>) {
  %e = tensor.empty() : tensor<2x3x5xf32>
  %half = arith.constant dense<0.5> : tensor<2x3x5xf32>

  // Fused: d2l's attention.
  %s1 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %t1 = arith.mulf %s1, %half : tensor<2x3x5xf32>
  %w1 = tfm.masked_softmax %t1 valid_lens(%lens)
      : (tensor<2x3x5xf32>, tensor<2xi32>) -> tensor<2x3x5xf32>
  %o1 = tfm.batch_matmul %w1, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // Fused: linalg.softmax with an additive mask.
  %s2 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %m2 = arith.addf %s2, %t : tensor<2x3x5xf32>
  %w2 = linalg.softmax dimension(2) ins(%m2 : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o2 = tfm.batch_matmul %w2, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // Fused: no scale.
  %s3 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w3 = tfm.masked_softmax %s3 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o3 = tfm.batch_matmul %w3, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // rejected-softmax-axis.
  %s4 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w4 = linalg.softmax dimension(1) ins(%s4 : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o4 = tfm.batch_matmul %w4, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // rejected-scale, twice: by an argument, and in a linalg.generic by an
  // argument.
  %s5 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %t5 = arith.divf %s5, %t : tensor<2x3x5xf32>
  %w5 = tfm.masked_softmax %t5 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o5 = tfm.batch_matmul %w5, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  %s6 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %t6 = linalg.generic {indexing_maps = [#id3, #id3, #id3],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s6, %t : tensor<2x3x5xf32>, tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %c: f32, %out: f32):
    %y = arith.mulf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5xf32>
  %w6 = tfm.masked_softmax %t6 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o6 = tfm.batch_matmul %w6, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // rejected-mask: masking by select.
  %s7 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x5xf32>
  %m7 = arith.select %keep, %s7, %ninf : tensor<2x3x5xi1>, tensor<2x3x5xf32>
  %w7 = tfm.masked_softmax %m7 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o7 = tfm.batch_matmul %w7, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // rejected-shape: f16 Q and K, f32 scores.
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s8 = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q16, %k16 : tensor<2x3x4xf16>, tensor<2x5x4xf16>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %w8 = tfm.masked_softmax %s8 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o8 = tfm.batch_matmul %w8, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // rejected-multi-use: the weights are returned too.
  %s9 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w9 = tfm.masked_softmax %s9 : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o9 = tfm.batch_matmul %w9, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  // Not a candidate: no softmax.
  %o10 = tfm.batch_matmul %t, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>

  return %o1, %o2, %o3, %o4, %o5, %o6, %o7, %o8, %o9, %w9, %o10
      : tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>,
        tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>,
        tensor<2x3x6xf32>, tensor<2x3x6xf32>, tensor<2x3x6xf32>,
        tensor<2x3x5xf32>, tensor<2x3x6xf32>
}
