// RUN: tfm-opt %s --tfm-fold-transposes-into-products -split-input-file | FileCheck %s

// x · wᵀ as the lowering writes it (w transposed once, then multiplied):
// the product reads w [n, k] itself, through the map (m, n, k) -> (n, k),
// and the transpose is gone.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x64xf16>, %[[W:[^:]*]]: tensor<48x64xf16>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[A]], #[[B]], #[[C]]] ins(%[[X]], %[[W]] : tensor<8x64xf16>, tensor<48x64xf16>)
func.func @linear(%x: tensor<8x64xf16>, %w: tensor<48x64xf16>,
                  %acc: tensor<8x48xf32>) -> tensor<8x48xf32> {
  %e = tensor.empty() : tensor<64x48xf16>
  %wt = linalg.transpose ins(%w : tensor<48x64xf16>) outs(%e : tensor<64x48xf16>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %wt : tensor<8x64xf16>, tensor<64x48xf16>) outs(%acc : tensor<8x48xf32>) -> tensor<8x48xf32>
  return %r : tensor<8x48xf32>
}

// -----

// A batched product's right operand transposed in its last two
// dimensions: the same, with the batch dimension kept. The left operand
// transposed likewise reads through (b, k, m).
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batched(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<4x16x32xf32>, %[[K:[^:]*]]: tensor<4x24x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.batch_matmul indexing_maps = [#[[A]], #[[B]], #[[C]]] ins(%[[Q]], %[[K]] : tensor<4x16x32xf32>, tensor<4x24x16xf32>)
func.func @batched(%q: tensor<4x16x32xf32>, %k: tensor<4x24x16xf32>,
                   %acc: tensor<4x32x24xf32>) -> tensor<4x32x24xf32> {
  %e0 = tensor.empty() : tensor<4x32x16xf32>
  %qt = linalg.transpose ins(%q : tensor<4x16x32xf32>) outs(%e0 : tensor<4x32x16xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %kt = linalg.transpose ins(%k : tensor<4x24x16xf32>) outs(%e1 : tensor<4x16x24xf32>) permutation = [0, 2, 1]
  %r = linalg.batch_matmul ins(%qt, %kt : tensor<4x32x16xf32>, tensor<4x16x24xf32>) outs(%acc : tensor<4x32x24xf32>) -> tensor<4x32x24xf32>
  return %r : tensor<4x32x24xf32>
}

// -----

// A transpose that moves a batch dimension is not a named batched
// product's transposed operand: left alone there. A contraction
// linalg.generic takes any permutation: its map is composed with it
// (result dimension d of the transpose is dimension perm[d] of its input).
// A transpose that something else also reads stays for that reader.
// CHECK-DAG: #[[G:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
// CHECK-LABEL: func.func @kept(
// CHECK-SAME: %{{.*}}: tensor<4x32x16xf32>, %[[V:[^:]*]]: tensor<16x4x24xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[V]]
// CHECK: linalg.batch_matmul ins(%{{.*}}, %[[T]] :
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[G]], #{{.*}}]
// CHECK-SAME: ins(%{{.*}}, %[[V]] : tensor<4x32x16xf32>, tensor<16x4x24xf32>)
// CHECK: return
func.func @kept(%a: tensor<4x32x16xf32>, %v: tensor<16x4x24xf32>,
                %acc: tensor<4x32x24xf32>) -> (tensor<4x32x24xf32>, tensor<4x32x24xf32>) {
  %e = tensor.empty() : tensor<4x16x24xf32>
  %vt = linalg.transpose ins(%v : tensor<16x4x24xf32>) outs(%e : tensor<4x16x24xf32>) permutation = [1, 0, 2]
  %r0 = linalg.batch_matmul ins(%a, %vt : tensor<4x32x16xf32>, tensor<4x16x24xf32>) outs(%acc : tensor<4x32x24xf32>) -> tensor<4x32x24xf32>
  %r1 = linalg.generic {
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, k, n)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %vt : tensor<4x32x16xf32>, tensor<4x16x24xf32>) outs(%acc : tensor<4x32x24xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x32x24xf32>
  return %r0, %r1 : tensor<4x32x24xf32>, tensor<4x32x24xf32>
}

// -----

// Flash attention's keys: transposed once, then sliced per head and key
// block (the last slice rank-reducing) for the tiled Q·Kᵀ. The slices move
// above the transpose (the input's block: [1, 24, 16], [1, 8, 16], then
// [8, 16]), and the
// transpose of the block folds into the product: it reads the keys' rows.
// A slice that does not lead to a product keeps its transpose.
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @key_blocks(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<32x16xf16>, %[[K:[^:]*]]: tensor<4x24x16xf16>, %[[H:[^:]*]]: index, %[[KV:[^:]*]]: index
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[K]]
// CHECK: %[[HEAD:.*]] = tensor.extract_slice %[[K]][%[[H]], 0, 0] [1, 24, 16] [1, 1, 1] : tensor<4x24x16xf16> to tensor<1x24x16xf16>
// CHECK: %[[KEYS:.*]] = tensor.extract_slice %[[HEAD]][0, %[[KV]], 0] [1, 8, 16] [1, 1, 1] : tensor<1x24x16xf16> to tensor<1x8x16xf16>
// CHECK: %[[BLOCK:.*]] = tensor.extract_slice %[[KEYS]][0, 0, 0] [1, 8, 16] [1, 1, 1] : tensor<1x8x16xf16> to tensor<8x16xf16>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #[[B]], #{{.*}}] ins(%[[Q]], %[[BLOCK]] : tensor<32x16xf16>, tensor<8x16xf16>)
// CHECK: %[[OTHER:.*]] = tensor.extract_slice %[[T]][%[[H]], 0, 0] [1, 16, 24]
// CHECK: return %{{.*}}, %[[OTHER]]
func.func @key_blocks(%q: tensor<32x16xf16>, %k: tensor<4x24x16xf16>, %h: index,
                      %kv: index, %acc: tensor<32x8xf32>)
    -> (tensor<32x8xf32>, tensor<1x16x24xf16>) {
  %e = tensor.empty() : tensor<4x16x24xf16>
  %kt = linalg.transpose ins(%k : tensor<4x24x16xf16>) outs(%e : tensor<4x16x24xf16>) permutation = [0, 2, 1]
  %head = tensor.extract_slice %kt[%h, 0, 0] [1, 16, 24] [1, 1, 1] : tensor<4x16x24xf16> to tensor<1x16x24xf16>
  %block = tensor.extract_slice %head[0, 0, %kv] [1, 16, 8] [1, 1, 1] : tensor<1x16x24xf16> to tensor<1x16x8xf16>
  %b = tensor.extract_slice %block[0, 0, 0] [1, 16, 8] [1, 1, 1] : tensor<1x16x8xf16> to tensor<16x8xf16>
  %r = linalg.matmul ins(%q, %b : tensor<32x16xf16>, tensor<16x8xf16>) outs(%acc : tensor<32x8xf32>) -> tensor<32x8xf32>
  %other = tensor.extract_slice %kt[%h, 0, 0] [1, 16, 24] [1, 1, 1] : tensor<4x16x24xf16> to tensor<1x16x24xf16>
  return %r, %other : tensor<32x8xf32>, tensor<1x16x24xf16>
}
