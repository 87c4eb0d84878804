// RUN: tfm-opt %s --tfm-expose-attention-weights -split-input-file -verify-diagnostics | FileCheck %s

// The weights are recomputed beside the attention, which stays as it was,
// and returned after the results, named and located: Q Kᵀ, then one
// elementwise pass (scale, mask, valid_lens' -1e6, causal's -inf) and a
// softmax over the keys.

// CHECK-LABEL: func.func @attention
//  CHECK-SAME:   -> (tensor<2x6x8xf32>, tensor<2x6x7xf32> {tfm.attention = "{{.*}}expose-attention-weights.mlir:{{[0-9]+}}:8", tfm.name = "attention_0"})
//       CHECK:   %[[S:.*]] = tfm.batch_matmul %arg0, %arg1 {transpose_rhs}
//       CHECK:   %[[M:.*]] = linalg.generic {{.*}} ins(%[[S]], %arg4, %arg3 : tensor<2x6x7xf32>, tensor<6x7xf32>, tensor<2xi64>)
//       CHECK:     arith.mulf {{.*}}, %{{.*}} : f32
//       CHECK:     arith.addf
//       CHECK:     arith.cmpi sge
//       CHECK:     arith.cmpi sgt
//       CHECK:   %[[W:.*]] = linalg.softmax dimension(2) ins(%[[M]]
//       CHECK:   %[[OUT:.*]] = tfm.attention %arg0, %arg1, %arg2 valid_lens(%arg3) mask(%arg4) {causal}
//       CHECK:   return %[[OUT]], %[[W]]
func.func @attention(%q: tensor<2x6x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x8xf32>,
                     %lens: tensor<2xi64>, %mask: tensor<6x7xf32>) -> tensor<2x6x8xf32> {
  %0 = tfm.attention %q, %k, %v valid_lens(%lens) mask(%mask) {causal} : (tensor<2x6x8xf32>, tensor<2x7x8xf32>, tensor<2x7x8xf32>, tensor<2xi64>, tensor<6x7xf32>) -> tensor<2x6x8xf32>
  return %0 : tensor<2x6x8xf32>
}

// -----

// The pass needs batch dimensions (rank 3 or more).
func.func @unbatched(%q: tensor<6x8xf32>, %k: tensor<7x8xf32>, %v: tensor<7x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{cannot expose the weights of an attention of rank 2 (tfm-expose-attention-weights takes [batch..., S, D] with a known scale)}}
  %0 = tfm.attention %q, %k, %v : (tensor<6x8xf32>, tensor<7x8xf32>, tensor<7x8xf32>) -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

// A grouped-query attention's weights would be per query head over the
// shared key heads: refused, with the group.
func.func @grouped_query(%q: tensor<1x8x6x8xf32>, %k: tensor<1x2x7x8xf32>, %v: tensor<1x2x7x8xf32>) -> tensor<1x8x6x8xf32> {
  // expected-error @+1 {{cannot expose the weights of a grouped-query attention (4 query heads per key/value head)}}
  %0 = tfm.attention %q, %k, %v : (tensor<1x8x6x8xf32>, tensor<1x2x7x8xf32>, tensor<1x2x7x8xf32>) -> tensor<1x8x6x8xf32>
  return %0 : tensor<1x8x6x8xf32>
}

// -----

func.func @nested(%q: tensor<2x6x8xf32>, %k: tensor<2x7x8xf32>, %v: tensor<2x7x8xf32>, %c: i1) -> tensor<2x6x8xf32> {
  %r = scf.if %c -> tensor<2x6x8xf32> {
    // expected-error @+1 {{cannot expose the weights of an attention nested in a region}}
    %0 = tfm.attention %q, %k, %v : (tensor<2x6x8xf32>, tensor<2x7x8xf32>, tensor<2x7x8xf32>) -> tensor<2x6x8xf32>
    scf.yield %0 : tensor<2x6x8xf32>
  } else {
    scf.yield %q : tensor<2x6x8xf32>
  }
  return %r : tensor<2x6x8xf32>
}
