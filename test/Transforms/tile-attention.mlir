// RUN: tfm-opt %s --tfm-tile-attention="q-tile=8 kv-tile=16" --cse -split-input-file | FileCheck %s

// Causal attention on [B*H, S, D] with S = 20: two full query tiles and a
// remainder tile of 4 rows, each in its own scf.forall over (batch, tile);
// the key loop stops at the diagonal (min with q0 + rows) and a static
// remainder block of 4 keys runs only when a tile reaches it.

// CHECK-LABEL: func.func @causal
// CHECK: %[[KT:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x20x16xf32>) outs(%{{.*}} : tensor<2x16x20xf32>) permutation = [0, 2, 1]
// CHECK: scf.forall (%[[B:.*]], %[[T:.*]]) in (2, 2) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<2x20x16xf32>)
// CHECK:   tensor.extract_slice %{{.*}}[%[[B]], %[[Q0:.*]], 0] [1, 8, 16] [1, 1, 1] : tensor<2x20x16xf32> to tensor<8x16xf32>
// CHECK:   arith.minui
// CHECK:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<8xf32>, tensor<8xf32>, tensor<8x16xf32>)
// CHECK:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK:     arith.cmpi ugt
// CHECK:     arith.select
// CHECK:     math.exp
// CHECK:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK:   scf.if
// CHECK:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>) outs(%{{.*}} : tensor<8x4xf32>)
// CHECK:   linalg.generic
// CHECK:     arith.divf
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[B]], %{{.*}}, 0] [1, 8, 16] [1, 1, 1]
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (2, 1)
// CHECK:   tensor.extract_slice %{{.*}} [1, 4, 16] [1, 1, 1] : tensor<2x20x16xf32> to tensor<4x16xf32>
// CHECK-NOT: tfm.attention
func.func @causal(%q: tensor<2x20x16xf32>, %k: tensor<2x20x16xf32>,
                  %v: tensor<2x20x16xf32>) -> tensor<2x20x16xf32> {
  %0 = tfm.attention %q, %k, %v {causal}
      : (tensor<2x20x16xf32>, tensor<2x20x16xf32>, tensor<2x20x16xf32>)
      -> tensor<2x20x16xf32>
  return %0 : tensor<2x20x16xf32>
}

// -----

// A per-batch valid length bounds the key loop: a length of 0 or less keeps
// all the keys (d2l's uniform weights), others stop at the length.

// CHECK-LABEL: func.func @valid_lens
// CHECK: scf.forall
// CHECK:   %[[LEN:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<2xi32>
// CHECK:   %[[IDX:.*]] = arith.index_cast %[[LEN]] : i32 to index
// CHECK:   %[[EMPTY:.*]] = arith.cmpi sle, %[[IDX]], %{{.*}}
// CHECK:   %[[END:.*]] = arith.select %[[EMPTY]], %{{.*}}, %{{.*}}
// CHECK:   arith.ceildivui
// CHECK:   scf.for
// CHECK:     arith.cmpi sge
// CHECK:     arith.constant -1.000000e+06 : f32
func.func @valid_lens(%q: tensor<2x16x8xf32>, %k: tensor<2x32x8xf32>,
                      %v: tensor<2x32x8xf32>, %lens: tensor<2xi32>)
    -> tensor<2x16x8xf32> {
  %0 = tfm.attention %q, %k, %v valid_lens(%lens)
      : (tensor<2x16x8xf32>, tensor<2x32x8xf32>, tensor<2x32x8xf32>,
         tensor<2xi32>) -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}

// -----

// A mask that differs between batches keeps the reference lowering.

// CHECK-LABEL: func.func @batched_mask
// CHECK: tfm.attention
func.func @batched_mask(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>,
                        %v: tensor<2x16x8xf32>, %m: tensor<2x16x16xf32>)
    -> tensor<2x16x8xf32> {
  %0 = tfm.attention %q, %k, %v mask(%m)
      : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>,
         tensor<2x16x16xf32>) -> tensor<2x16x8xf32>
  return %0 : tensor<2x16x8xf32>
}
