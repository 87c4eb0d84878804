// RUN: tfm-opt %s --tfm-decompose-aggregates -split-input-file | FileCheck %s

// Untiled, tfm.online_attention decomposes into attention's reference
// lowering: the score product, one masking generic (scale, then the mask,
// then valid_lens, then causal), the running max, exp, the running sum and
// the product with V, all on the whole key range.

//   CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
//   CHECK-DAG: #[[$BATCH:.*]] = affine_map<(d0, d1, d2) -> (d0)>
//   CHECK-DAG: #[[$SHARED:.*]] = affine_map<(d0, d1, d2) -> (0, d1, d2)>
// CHECK-LABEL: func.func @reference
//  CHECK-SAME:   %[[Q:[a-z0-9]*]]: tensor<2x7x8xf32>, %[[KT:[a-z0-9]*]]: tensor<2x8x6xf32>, %[[V:[a-z0-9]*]]: tensor<2x6x3xf32>, %[[LENS:[a-z0-9]*]]: tensor<2xi32>, %[[MASK:[a-z0-9]*]]: tensor<1x7x6xf32>
//   CHECK-NOT:   scf.if
//       CHECK:   %[[S:.*]] = linalg.batch_matmul ins(%[[Q]], %[[KT]] : tensor<2x7x8xf32>, tensor<2x8x6xf32>) outs(%{{.*}} : tensor<2x7x6xf32>)
//       CHECK:   linalg.generic {indexing_maps = [#[[$ID]], #[[$BATCH]], #[[$SHARED]], #[[$ID]]], {{.*}} ins(%[[S]], %[[LENS]], %[[MASK]] :
//       CHECK:   ^bb0(%[[X:.*]]: f32, %[[LEN:.*]]: i32, %[[M:.*]]: f32, %{{.*}}: f32):
//       CHECK:     %[[COL:.*]] = linalg.index 2
//       CHECK:     %[[ROW:.*]] = linalg.index 1
//       CHECK:     %[[SCALED:.*]] = arith.mulf %[[X]], %{{.*}} : f32
//       CHECK:     %[[ADDED:.*]] = arith.addf %[[SCALED]], %[[M]]
//       CHECK:     arith.cmpi sge, %[[COL]]
//       CHECK:     %[[VALID:.*]] = arith.select %{{.*}}, %{{.*}}, %[[ADDED]]
//       CHECK:     %[[ABOVE:.*]] = arith.cmpi sgt, %[[COL]], %[[ROW]] : index
//       CHECK:     arith.select %[[ABOVE]], %{{.*}}, %[[VALID]]
//       CHECK:   arith.maxnumf
//       CHECK:   math.exp
//       CHECK:   math.exp
//       CHECK:   arith.addf
//       CHECK:   %[[PV:.*]] = linalg.batch_matmul ins(%{{.*}}, %[[V]] : tensor<2x7x6xf32>, tensor<2x6x3xf32>) outs(%{{.*}} : tensor<2x7x3xf32>)
//       CHECK:   return %[[PV]]
func.func @reference(%q: tensor<2x7x8xf32>, %kt: tensor<2x8x6xf32>, %v: tensor<2x6x3xf32>, %lens: tensor<2xi32>, %mask: tensor<1x7x6xf32>, %acc: tensor<2x7x3xf32>, %max: tensor<2x7xf32>, %sum: tensor<2x7xf32>) -> tensor<2x7x3xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v valid_lens(%lens : tensor<2xi32>) mask(%mask : tensor<1x7x6xf32>) {causal, scale = 0.5 : f64}
      outs(%acc, %max, %sum : tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>)
      : tensor<2x7x8xf32>, tensor<2x8x6xf32>, tensor<2x6x3xf32> -> tensor<2x7x3xf32>, tensor<2x7xf32>, tensor<2x7xf32>
  return %r#0 : tensor<2x7x3xf32>
}

// -----

// A tile (unit batch, with offsets) works on matrices: linalg.matmul. Its
// positions shift the causal comparison, and a causal step that no query of
// the tile can see (first key past the last query) is skipped.

// CHECK-LABEL: func.func @causal_tile
//  CHECK-SAME:   %[[Q0:[a-z0-9]*]]: index, %[[K0:[a-z0-9]*]]: index
//       CHECK:   %[[END:.*]] = arith.addi %[[Q0]], %{{.*}} : index
//       CHECK:   %[[SEEN:.*]] = arith.cmpi ult, %[[K0]], %[[END]] : index
//       CHECK:   %[[STEP:.*]]:3 = scf.if %[[SEEN]] -> (tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>)
//       CHECK:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x4xf32>) outs(%{{.*}} : tensor<8x4xf32>)
//       CHECK:       linalg.index 1
//       CHECK:       arith.addi %{{.*}}, %[[K0]]
//       CHECK:       linalg.index 0
//       CHECK:       arith.addi %{{.*}}, %[[Q0]]
//       CHECK:     linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
//       CHECK:   } else {
//       CHECK:     scf.yield
//       CHECK:   tensor.insert_slice %[[STEP]]#0 into %{{.*}}[0, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<8x16xf32> into tensor<1x8x16xf32>
func.func @causal_tile(%q: tensor<1x8x16xf32>, %kt: tensor<1x16x4xf32>, %v: tensor<1x4x16xf32>, %q0: index, %k0: index, %acc: tensor<1x8x16xf32>, %max: tensor<1x8xf32>, %sum: tensor<1x8xf32>) -> tensor<1x8x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v offsets(%q0, %k0) {causal}
      outs(%acc, %max, %sum : tensor<1x8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
      : tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1x4x16xf32> -> tensor<1x8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>
  return %r#0 : tensor<1x8x16xf32>
}

// -----

// A per-batch length skips the steps past it; a length of 0 or less keeps
// every step (d2l's uniform weights over all keys).

// CHECK-LABEL: func.func @valid_lens_tile
//  CHECK-SAME:   %[[LENS:[a-z0-9]*]]: tensor<1xi64>, %[[Q0:[a-z0-9]*]]: index, %[[K0:[a-z0-9]*]]: index
//       CHECK:   %[[LEN:.*]] = tensor.extract %{{.*}}[] : tensor<i64>
//       CHECK:   %[[IDX:.*]] = arith.index_cast %[[LEN]] : i64 to index
//       CHECK:   %[[NONE:.*]] = arith.cmpi sle, %[[IDX]], %{{.*}} : index
//       CHECK:   %[[BEFORE:.*]] = arith.cmpi slt, %[[K0]], %[[IDX]] : index
//       CHECK:   %[[SEEN:.*]] = arith.ori %[[NONE]], %[[BEFORE]] : i1
//       CHECK:   scf.if %[[SEEN]]
//       CHECK:     arith.constant -1.000000e+06 : f32
func.func @valid_lens_tile(%q: tensor<1x8x16xf32>, %kt: tensor<1x16x4xf32>, %v: tensor<1x4x16xf32>, %lens: tensor<1xi64>, %q0: index, %k0: index, %acc: tensor<1x8x16xf32>, %max: tensor<1x8xf32>, %sum: tensor<1x8xf32>) -> tensor<1x8x16xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v valid_lens(%lens : tensor<1xi64>) offsets(%q0, %k0)
      outs(%acc, %max, %sum : tensor<1x8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>)
      : tensor<1x8x16xf32>, tensor<1x16x4xf32>, tensor<1x4x16xf32> -> tensor<1x8x16xf32>, tensor<1x8xf32>, tensor<1x8xf32>
  return %r#0 : tensor<1x8x16xf32>
}

// -----

// A dynamic head size: the default scale 1/sqrt(D) is computed at run time.

// CHECK-LABEL: func.func @dynamic_head_dim
//  CHECK-SAME:   %[[Q:[a-z0-9]*]]: tensor<?x?x?xf32>
//       CHECK:   %[[D:.*]] = tensor.dim %[[Q]], %c2
//       CHECK:   %[[DI:.*]] = arith.index_cast %[[D]] : index to i64
//       CHECK:   %[[DF:.*]] = arith.sitofp %[[DI]] : i64 to f32
//       CHECK:   %[[SQRT:.*]] = math.sqrt %[[DF]] : f32
//       CHECK:   %[[SCALE:.*]] = arith.divf %{{.*}}, %[[SQRT]] : f32
//       CHECK:   linalg.batch_matmul
//       CHECK:   linalg.generic
//       CHECK:     arith.mulf %{{.*}}, %[[SCALE]] : f32
func.func @dynamic_head_dim(%q: tensor<?x?x?xf32>, %kt: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>, %acc: tensor<?x?x?xf32>, %max: tensor<?x?xf32>, %sum: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
      : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
  return %r#0 : tensor<?x?x?xf32>
}

// -----

// Two batch dimensions: the products are contraction generics over
// (b0, b1, i, j, r).

//   CHECK-DAG: #[[$LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
//   CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-LABEL: func.func @two_batch_dims
//       CHECK:   linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
func.func @two_batch_dims(%q: tensor<?x2x7x8xf16>, %kt: tensor<?x2x8x6xf16>, %v: tensor<?x2x6x3xf16>, %acc: tensor<?x2x7x3xf32>, %max: tensor<?x2x7xf32>, %sum: tensor<?x2x7xf32>) -> tensor<?x2x7x3xf32> {
  %r:3 = tfm.online_attention %q, %kt, %v
      outs(%acc, %max, %sum : tensor<?x2x7x3xf32>, tensor<?x2x7xf32>, tensor<?x2x7xf32>)
      : tensor<?x2x7x8xf16>, tensor<?x2x8x6xf16>, tensor<?x2x6x3xf16> -> tensor<?x2x7x3xf32>, tensor<?x2x7xf32>, tensor<?x2x7xf32>
  return %r#0 : tensor<?x2x7x3xf32>
}
