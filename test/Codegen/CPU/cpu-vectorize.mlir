// RUN: tfm-opt %s --tfm-cpu-vectorize -split-input-file -verify-diagnostics | FileCheck %s

// A tile of static shape is vectorized whole, whatever its sizes.

// CHECK-LABEL: func.func @static_tile
//       CHECK:   vector.transfer_read {{.*}} : tensor<5x3xf32>, vector<5x3xf32>
//       CHECK:   math.exp {{.*}} : vector<5x3xf32>
//       CHECK:   vector.transfer_write {{.*}} : vector<5x3xf32>, tensor<5x3xf32>
//   CHECK-NOT:   linalg.generic
func.func @static_tile(%x: tensor<5x3xf32>, %y: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<5x3xf32>) outs(%y : tensor<5x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}

// -----

// A tile of dynamic shape, as tiling a loop of dynamic size makes it, is
// vectorized with masks to the vector shape: one register of 16 f32 along
// the innermost loop, one row.

// CHECK-LABEL: func.func @dynamic_tile
//       CHECK:   vector.create_mask {{.*}} : vector<1x16xi1>
//       CHECK:   vector.mask {{.*}} vector.transfer_read {{.*}} : tensor<1x?xf32>, vector<1x16xf32>
//       CHECK:   math.exp {{.*}} : vector<1x16xf32>
func.func @dynamic_tile(%x: tensor<1x?xf32>, %y: tensor<1x?xf32>, %i: index, %n: index) -> tensor<1x?xf32> {
  %size = affine.min affine_map<(d0)[s0] -> (16, s0 - d0)>(%i)[%n]
  %xs = tensor.extract_slice %x[0, %i] [1, %size] [1, 1] : tensor<1x?xf32> to tensor<1x?xf32>
  %ys = tensor.extract_slice %y[0, %i] [1, %size] [1, 1] : tensor<1x?xf32> to tensor<1x?xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xs : tensor<1x?xf32>) outs(%ys : tensor<1x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<1x?xf32>
  return %0 : tensor<1x?xf32>
}

// -----

// Ops on boolean tensors stay scalar: vectors of i1 are bit-packed in
// memory, scalar i1 loads and stores are not.

// CHECK-LABEL: func.func @boolean
//       CHECK:   linalg.generic
//   CHECK-NOT:   vector.transfer_read
func.func @boolean(%x: tensor<4x8xi1>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xi1>) outs(%y : tensor<4x8xf32>) {
  ^bb0(%a: i1, %b: f32):
    %f = arith.uitofp %a : i1 to f32
    linalg.yield %f : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// The remainder of a register tile (at most 5 of 6 rows, here `m mod 6`)
// becomes a loop over its rows, each one unmasked vector: a 5-row masked
// tile would cost more in masks, selects and spills than its rows.

// CHECK-LABEL: func.func @register_tile_remainder
//       CHECK:   scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
//       CHECK:     tensor.extract_slice %{{.*}}[%[[ROW]], 0] [1, 16] [1, 1] : tensor<?x16xf32> to tensor<1x16xf32>
//       CHECK:     vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
//       CHECK:     vector.multi_reduction <add>, %{{.*}}, %{{.*}} [2] : vector<1x16x1xf32> to vector<1x16xf32>
//   CHECK-NOT:   vector.create_mask
//   CHECK-NOT:   linalg.matmul
func.func @register_tile_remainder(%a: tensor<?x64xf32>, %b: tensor<64x16xf32>, %c: tensor<?x16xf32>, %m: index, %k: index) -> tensor<?x16xf32> {
  %rows = affine.apply affine_map<()[s0] -> (s0 mod 6)>()[%m]
  %as = tensor.extract_slice %a[0, %k] [%rows, 1] [1, 1] : tensor<?x64xf32> to tensor<?x1xf32>
  %bs = tensor.extract_slice %b[%k, 0] [1, 16] [1, 1] : tensor<64x16xf32> to tensor<1x16xf32>
  %cs = tensor.extract_slice %c[0, 0] [%rows, 16] [1, 1] : tensor<?x16xf32> to tensor<?x16xf32>
  %0 = linalg.matmul ins(%as, %bs : tensor<?x1xf32>, tensor<1x16xf32>) outs(%cs : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// A tile of dynamic shape without a small constant bound (a strategy set
// by hand, or none) is left for the loop lowering, with a remark.

func.func @unbounded(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-remark @below {{not vectorized: its tile of dynamic shape has no small constant bound; lowered to loops}}
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%y : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A product's register tile whose columns are more than a vector (16 f32
// by default, AVX-512) but not whole vectors (17: the last columns of 49
// after tiles of 32) is vectorized with its columns rounded up to whole
// vectors under a constant mask, so that a row is two registers, the
// second masked. Whole vectors (16) and less than one (5) keep the tile's
// shape.

// CHECK-LABEL: func.func @masked_columns
//       CHECK:   %[[MASK:.*]] = vector.create_mask %c12, %c17 : vector<12x32xi1>
//       CHECK:   vector.mask %[[MASK]] { vector.transfer_read {{.*}} : tensor<12x17xf32>, vector<12x32xf32> }
//       CHECK:   vector.mask %[[MASK]] { vector.transfer_write {{.*}} : vector<12x32xf32>, tensor<12x17xf32> }
// CHECK-LABEL: func.func @whole_columns
//   CHECK-NOT:   mask
//       CHECK:   vector.transfer_write {{.*}} : vector<12x16xf32>, tensor<12x16xf32>
// CHECK-LABEL: func.func @few_columns
//   CHECK-NOT:   mask
//       CHECK:   vector.transfer_write {{.*}} : vector<12x5xf32>, tensor<12x5xf32>
func.func @masked_columns(%a: tensor<12x1xf32>, %b: tensor<1x17xf32>, %c: tensor<12x17xf32>) -> tensor<12x17xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<12x1xf32>, tensor<1x17xf32>) outs(%c : tensor<12x17xf32>) -> tensor<12x17xf32>
  return %0 : tensor<12x17xf32>
}
func.func @whole_columns(%a: tensor<12x1xf32>, %b: tensor<1x16xf32>, %c: tensor<12x16xf32>) -> tensor<12x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<12x1xf32>, tensor<1x16xf32>) outs(%c : tensor<12x16xf32>) -> tensor<12x16xf32>
  return %0 : tensor<12x16xf32>
}
func.func @few_columns(%a: tensor<12x1xf32>, %b: tensor<1x5xf32>, %c: tensor<12x5xf32>) -> tensor<12x5xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<12x1xf32>, tensor<1x5xf32>) outs(%c : tensor<12x5xf32>) -> tensor<12x5xf32>
  return %0 : tensor<12x5xf32>
}
