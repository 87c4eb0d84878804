// RUN: tfm-opt %s --tfm-cpu-pad-row-strides -split-input-file \
// RUN:   --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s

// A constant right operand with rows of 128 f32 (512 bytes, 8 cache lines:
// every row in the same 8 of L1's 64 sets) becomes a constant with rows of
// 144, the 16 more being zeros, read through a slice of its first 128
// columns.

// CHECK-LABEL: func.func @constant
//       CHECK:   %[[PADDED:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, {{.*}}, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [4.000000e+00, {{.*}}, 5.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x144xf32>
//       CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[PADDED]][0, 0] [2, 128] [1, 1] : tensor<2x144xf32> to tensor<2x128xf32>
//       CHECK:   linalg.matmul ins(%{{.*}}, %[[SLICE]] : tensor<4x2xf32>, tensor<2x128xf32>)
func.func @constant(%a: tensor<4x2xf32>, %c: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0],
                             [4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                              0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0]]> : tensor<2x128xf32>
  %0 = linalg.matmul ins(%a, %w : tensor<4x2xf32>, tensor<2x128xf32>)
      outs(%c : tensor<4x128xf32>) -> tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}

// -----

// A value computed at run time is copied into the first columns of a padded
// buffer when the product has 16 rows or more; with fewer, the copy would
// cost more than it saves. Rows of 192 f32 (12 lines, 16 sets) are left
// alone, and so is a product inside a parallel loop.

// CHECK-LABEL: func.func @runtime
//  CHECK-SAME:   %[[B:[^:]*]]: tensor<64x256xf32>
//       CHECK:   %[[BUF:.*]] = bufferization.alloc_tensor() : tensor<64x272xf32>
//       CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[BUF]][0, 0] [64, 256] [1, 1]
//       CHECK:   %[[COPY:.*]] = linalg.copy ins(%[[B]] : tensor<64x256xf32>) outs(%[[SLICE]] : tensor<64x256xf32>)
//       CHECK:   linalg.matmul ins(%{{.*}}, %[[COPY]] : tensor<32x64xf32>, tensor<64x256xf32>)
//       CHECK:   linalg.matmul ins(%{{.*}}, %[[B]] : tensor<8x64xf32>, tensor<64x256xf32>)
//       CHECK:   linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x64xf32>, tensor<64x192xf32>)
//       CHECK:   scf.forall
//       CHECK:     linalg.matmul ins(%{{.*}}, %[[B]] : tensor<32x64xf32>, tensor<64x256xf32>)
//   CHECK-NOT:   alloc_tensor
func.func @runtime(%a: tensor<32x64xf32>, %b: tensor<64x256xf32>, %c: tensor<32x256xf32>,
                   %s: tensor<8x64xf32>, %d: tensor<8x256xf32>,
                   %n: tensor<64x192xf32>, %e: tensor<32x192xf32>)
    -> (tensor<32x256xf32>, tensor<8x256xf32>, tensor<32x192xf32>, tensor<32x256xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x256xf32>)
      outs(%c : tensor<32x256xf32>) -> tensor<32x256xf32>
  %1 = linalg.matmul ins(%s, %b : tensor<8x64xf32>, tensor<64x256xf32>)
      outs(%d : tensor<8x256xf32>) -> tensor<8x256xf32>
  %2 = linalg.matmul ins(%a, %n : tensor<32x64xf32>, tensor<64x192xf32>)
      outs(%e : tensor<32x192xf32>) -> tensor<32x192xf32>
  %3 = scf.forall (%i) in (1) shared_outs(%out = %c) -> (tensor<32x256xf32>) {
    %p = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x256xf32>)
        outs(%out : tensor<32x256xf32>) -> tensor<32x256xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %p into %out[0, 0] [32, 256] [1, 1] : tensor<32x256xf32> into tensor<32x256xf32>
    }
  }
  return %0, %1, %2, %3 : tensor<32x256xf32>, tensor<8x256xf32>, tensor<32x192xf32>, tensor<32x256xf32>
}

// -----

// A transpose (attention's Kᵀ, [12, 64, 1024]: rows of 4 KiB, all in one
// set) writes into the first columns of a padded buffer; one whose rows do
// not alias ([12, 64, 197]) keeps its empty.

// CHECK-LABEL: func.func @transpose
//       CHECK:   %[[BUF:.*]] = bufferization.alloc_tensor() : tensor<12x64x1040xf32>
//       CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[BUF]][0, 0, 0] [12, 64, 1024] [1, 1, 1]
//       CHECK:   linalg.transpose ins(%{{.*}} : tensor<12x1024x64xf32>) outs(%[[SLICE]] : tensor<12x64x1024xf32>)
//       CHECK:   %[[EMPTY:.*]] = tensor.empty() : tensor<12x64x197xf32>
//       CHECK:   linalg.transpose ins(%{{.*}} : tensor<12x197x64xf32>) outs(%[[EMPTY]] : tensor<12x64x197xf32>)
func.func @transpose(%k: tensor<12x1024x64xf32>, %j: tensor<12x197x64xf32>)
    -> (tensor<12x64x1024xf32>, tensor<12x64x197xf32>) {
  %e = tensor.empty() : tensor<12x64x1024xf32>
  %0 = linalg.transpose ins(%k : tensor<12x1024x64xf32>) outs(%e : tensor<12x64x1024xf32>) permutation = [0, 2, 1]
  %f = tensor.empty() : tensor<12x64x197xf32>
  %1 = linalg.transpose ins(%j : tensor<12x197x64xf32>) outs(%f : tensor<12x64x197xf32>) permutation = [0, 2, 1]
  return %0, %1 : tensor<12x64x1024xf32>, tensor<12x64x197xf32>
}
