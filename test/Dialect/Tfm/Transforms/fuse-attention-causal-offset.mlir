// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention | FileCheck %s

// A decoder with a key/value cache masks the scores of its S queries over
// past + S keys with PyTorch's `tril(ones(S, past + S), past)`: query i is
// position past + i. ONNX's Trilu with a computed k imports as this index
// comparison, negated by masked_fill(~mask, -inf) and widened to the heads;
// it is a causal mask whose queries start at `past`.
// CHECK-LABEL: func.func @causal_after_past(
//  CHECK-SAME:   %[[Q:[^:]*]]: tensor<1x4x?x16xf32>, %[[K:[^:]*]]: tensor<1x4x?x16xf32>, %[[V:[^:]*]]: tensor<1x4x?x16xf32>, %[[PAST:[^:]*]]: index)
//       CHECK:   %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] query_offset(%[[PAST]]) {causal, scale = 2.500000e-01 : f64}
//   CHECK-NOT:   linalg.softmax
//       CHECK:   return %[[O]]
func.func @causal_after_past(%q: tensor<1x4x?x16xf32>, %k: tensor<1x4x?x16xf32>,
                             %v: tensor<1x4x?x16xf32>, %past: index) -> tensor<1x4x?x16xf32> {
  %c2 = arith.constant 2 : index
  %true = arith.constant true
  %zero = arith.constant 0 : i8
  %ninf = arith.constant 0xFF800000 : f32
  %quarter = arith.constant 2.500000e-01 : f32
  %s = tensor.dim %q, %c2 : tensor<1x4x?x16xf32>
  %t = tensor.dim %k, %c2 : tensor<1x4x?x16xf32>
  %scores = tfm.batch_matmul %q, %k {transpose_rhs} : (tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x?xf32>
  %e = tensor.empty(%s, %t) : tensor<1x4x?x?xf32>
  %quarters = linalg.fill ins(%quarter : f32) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %scaled = arith.mulf %scores, %quarters : tensor<1x4x?x?xf32>
  %e2 = tensor.empty(%s, %t) : tensor<?x?xi1>
  %ones = linalg.fill ins(%true : i1) outs(%e2 : tensor<?x?xi1>) -> tensor<?x?xi1>
  %visible = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                             iterator_types = ["parallel", "parallel"]}
      ins(%ones : tensor<?x?xi1>) outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%in: i1, %out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = arith.subi %j, %i : index
    %keep = arith.cmpi sle, %d, %past : index
    linalg.yield %keep : i1
  } -> tensor<?x?xi1>
  %hidden = arith.xori %visible, %ones : tensor<?x?xi1>
  %bytes = arith.extui %hidden : tensor<?x?xi1> to tensor<?x?xi8>
  %e3 = tensor.empty(%s, %t) : tensor<1x4x?x?xi8>
  %wide = linalg.broadcast ins(%bytes : tensor<?x?xi8>) outs(%e3 : tensor<1x4x?x?xi8>) dimensions = [0, 1]
  %zeros = linalg.fill ins(%zero : i8) outs(%e3 : tensor<1x4x?x?xi8>) -> tensor<1x4x?x?xi8>
  %masked = arith.cmpi ne, %wide, %zeros : tensor<1x4x?x?xi8>
  %ninfs = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %filled = arith.select %masked, %ninfs, %scaled : tensor<1x4x?x?xi1>, tensor<1x4x?x?xf32>
  %w = linalg.softmax dimension(3) ins(%filled : tensor<1x4x?x?xf32>) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %o = tfm.batch_matmul %w, %v : (tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x16xf32>
  return %o : tensor<1x4x?x16xf32>
}

// -----

// The same comparison the other way round (key masked when j - i > past,
// masked_fill(mask, -inf) without the negation).
// CHECK-LABEL: func.func @masked_after_past(
//       CHECK:   tfm.attention %{{.*}} query_offset(%{{.*}}) {causal, scale = 2.500000e-01 : f64}
func.func @masked_after_past(%q: tensor<1x4x?x16xf32>, %k: tensor<1x4x?x16xf32>,
                             %v: tensor<1x4x?x16xf32>, %past: index) -> tensor<1x4x?x16xf32> {
  %c2 = arith.constant 2 : index
  %true = arith.constant true
  %ninf = arith.constant 0xFF800000 : f32
  %quarter = arith.constant 2.500000e-01 : f32
  %s = tensor.dim %q, %c2 : tensor<1x4x?x16xf32>
  %t = tensor.dim %k, %c2 : tensor<1x4x?x16xf32>
  %scores = tfm.batch_matmul %q, %k {transpose_rhs} : (tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x?xf32>
  %e = tensor.empty(%s, %t) : tensor<1x4x?x?xf32>
  %quarters = linalg.fill ins(%quarter : f32) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %scaled = arith.mulf %scores, %quarters : tensor<1x4x?x?xf32>
  %e2 = tensor.empty(%s, %t) : tensor<?x?xi1>
  %after = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                           iterator_types = ["parallel", "parallel"]}
      outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = arith.subi %j, %i : index
    %hide = arith.cmpi sgt, %d, %past : index
    linalg.yield %hide : i1
  } -> tensor<?x?xi1>
  %e3 = tensor.empty(%s, %t) : tensor<1x4x?x?xi1>
  %wide = linalg.broadcast ins(%after : tensor<?x?xi1>) outs(%e3 : tensor<1x4x?x?xi1>) dimensions = [0, 1]
  %ninfs = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %filled = arith.select %wide, %ninfs, %scaled : tensor<1x4x?x?xi1>, tensor<1x4x?x?xf32>
  %w = linalg.softmax dimension(3) ins(%filled : tensor<1x4x?x?xf32>) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %o = tfm.batch_matmul %w, %v : (tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x16xf32>
  return %o : tensor<1x4x?x16xf32>
}

// -----

// An offset the wrong way (j - i <= past masked: the keys before the
// query) is not causal: not fused.
// CHECK-LABEL: func.func @not_causal(
//   CHECK-NOT:   tfm.attention
//       CHECK:   linalg.softmax
func.func @not_causal(%q: tensor<1x4x?x16xf32>, %k: tensor<1x4x?x16xf32>,
                      %v: tensor<1x4x?x16xf32>, %past: index) -> tensor<1x4x?x16xf32> {
  %c2 = arith.constant 2 : index
  %ninf = arith.constant 0xFF800000 : f32
  %s = tensor.dim %q, %c2 : tensor<1x4x?x16xf32>
  %t = tensor.dim %k, %c2 : tensor<1x4x?x16xf32>
  %scores = tfm.batch_matmul %q, %k {transpose_rhs} : (tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x?xf32>
  %e = tensor.empty(%s, %t) : tensor<1x4x?x?xf32>
  %e2 = tensor.empty(%s, %t) : tensor<?x?xi1>
  %before = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                            iterator_types = ["parallel", "parallel"]}
      outs(%e2 : tensor<?x?xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = arith.subi %j, %i : index
    %hide = arith.cmpi sle, %d, %past : index
    linalg.yield %hide : i1
  } -> tensor<?x?xi1>
  %e3 = tensor.empty(%s, %t) : tensor<1x4x?x?xi1>
  %wide = linalg.broadcast ins(%before : tensor<?x?xi1>) outs(%e3 : tensor<1x4x?x?xi1>) dimensions = [0, 1]
  %ninfs = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %filled = arith.select %wide, %ninfs, %scores : tensor<1x4x?x?xi1>, tensor<1x4x?x?xf32>
  %w = linalg.softmax dimension(3) ins(%filled : tensor<1x4x?x?xf32>) outs(%e : tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32>
  %o = tfm.batch_matmul %w, %v : (tensor<1x4x?x?xf32>, tensor<1x4x?x16xf32>) -> tensor<1x4x?x16xf32>
  return %o : tensor<1x4x?x16xf32>
}
