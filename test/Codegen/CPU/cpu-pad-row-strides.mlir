// RUN: tfm-opt %s --tfm-cpu-pad-row-strides -split-input-file \
// RUN:   --mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s
// RUN: tfm-opt %s --tfm-cpu-pad-row-strides=min-columns=64 -split-input-file \
// RUN:   | FileCheck %s --check-prefix=LEFT

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

// -----

// The left operand's rows alias too when it is row-major with 128 f32 per
// row: the micro-kernel reads one element from each of its register tile's
// rows per step. With the default min-columns (512), these products of 64
// and 128 columns leave it alone; with 64, an argument is copied into a
// padded buffer, and an elementwise result whose only user is the product
// is written into one by its producer, with no copy. A right operand
// computed the same way is written into a padded buffer too.

// CHECK-LABEL: func.func @left
//  CHECK-SAME:   %[[A:[^:]*]]: tensor<32x128xf32>, %[[B:[^:]*]]: tensor<128x64xf32>
//       CHECK:   linalg.matmul ins(%[[A]], %[[B]] : tensor<32x128xf32>, tensor<128x64xf32>)
//       CHECK:   %[[EXP:.*]] = linalg.exp ins(%[[A]] : tensor<32x128xf32>) outs(%{{.*}} : tensor<32x128xf32>)
//       CHECK:   %[[BUF:.*]] = bufferization.alloc_tensor() : tensor<128x144xf32>
//       CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[BUF]][0, 0] [128, 128] [1, 1]
//       CHECK:   %[[NEG:.*]] = linalg.negf ins(%{{.*}} : tensor<128x128xf32>) outs(%[[SLICE]] : tensor<128x128xf32>)
//       CHECK:   linalg.matmul ins(%[[EXP]], %[[NEG]] : tensor<32x128xf32>, tensor<128x128xf32>)
//   CHECK-NOT:   alloc_tensor

// LEFT-LABEL: func.func @left
//  LEFT-SAME:   %[[A:[^:]*]]: tensor<32x128xf32>, %[[B:[^:]*]]: tensor<128x64xf32>
//       LEFT:   %[[BUF:.*]] = bufferization.alloc_tensor() : tensor<32x144xf32>
//       LEFT:   %[[SLICE:.*]] = tensor.extract_slice %[[BUF]][0, 0] [32, 128] [1, 1]
//       LEFT:   %[[COPY:.*]] = linalg.copy ins(%[[A]] : tensor<32x128xf32>) outs(%[[SLICE]] : tensor<32x128xf32>)
//       LEFT:   linalg.matmul ins(%[[COPY]], %[[B]] : tensor<32x128xf32>, tensor<128x64xf32>)
//       LEFT:   %[[BUF2:.*]] = bufferization.alloc_tensor() : tensor<32x144xf32>
//       LEFT:   %[[SLICE2:.*]] = tensor.extract_slice %[[BUF2]][0, 0] [32, 128] [1, 1]
//       LEFT:   %[[EXP:.*]] = linalg.exp ins(%[[A]] : tensor<32x128xf32>) outs(%[[SLICE2]] : tensor<32x128xf32>)
//       LEFT:   linalg.matmul ins(%[[EXP]], %{{.*}} : tensor<32x128xf32>, tensor<128x128xf32>)
func.func @left(%a: tensor<32x128xf32>, %b: tensor<128x64xf32>,
                %c: tensor<32x64xf32>, %w: tensor<128x128xf32>,
                %d: tensor<32x128xf32>)
    -> (tensor<32x64xf32>, tensor<32x128xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<32x128xf32>, tensor<128x64xf32>)
      outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e = tensor.empty() : tensor<32x128xf32>
  %x = linalg.exp ins(%a : tensor<32x128xf32>) outs(%e : tensor<32x128xf32>)
      -> tensor<32x128xf32>
  %f = tensor.empty() : tensor<128x128xf32>
  %y = linalg.negf ins(%w : tensor<128x128xf32>) outs(%f : tensor<128x128xf32>)
      -> tensor<128x128xf32>
  %1 = linalg.matmul ins(%x, %y : tensor<32x128xf32>, tensor<128x128xf32>)
      outs(%d : tensor<32x128xf32>) -> tensor<32x128xf32>
  return %0, %1 : tensor<32x64xf32>, tensor<32x128xf32>
}

// -----

// The producer writes into the padded buffer through reshapes that keep
// the rows whole: a LayerNorm's [1, S, D] output read as [S, D]; a product's
// epilogue written in panels, [S, N / Nr, Nr], read as [S, N] (the buffer's
// first columns expanded into panels for it); an empty reached through
// reshapes of its own, which other ops share (cloned onto the buffer). A
// reshape that merges rows into a longer one ([32, 16, 32] read as
// [16, 1024]: no dimension of the producer's ends at a padded row) leaves
// the copy.

// CHECK-LABEL: func.func @through_reshape
//       CHECK:   %[[BUF:.*]] = bufferization.alloc_tensor() : tensor<1x32x528xf32>
//       CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[BUF]][0, 0, 0] [1, 32, 512] [1, 1, 1]
//       CHECK:   %[[EXP:.*]] = linalg.exp ins(%{{.*}} : tensor<1x32x512xf32>) outs(%[[SLICE]] : tensor<1x32x512xf32>)
//       CHECK:   %[[ROWS:.*]] = tensor.collapse_shape %[[EXP]] {{\[}}[0, 1], [2]]
//       CHECK:   linalg.matmul ins(%[[ROWS]], %{{.*}} : tensor<32x512xf32>, tensor<512x512xf32>)
//       CHECK:   %[[BUF2:.*]] = bufferization.alloc_tensor() : tensor<32x528xf32>
//       CHECK:   %[[SLICE2:.*]] = tensor.extract_slice %[[BUF2]][0, 0] [32, 512] [1, 1]
//       CHECK:   %[[PANELS:.*]] = tensor.expand_shape %[[SLICE2]] {{\[}}[0], [1, 2]] output_shape [32, 16, 32]
//       CHECK:   %[[EXP2:.*]] = linalg.exp ins(%{{.*}} : tensor<32x16x32xf32>) outs(%[[PANELS]] : tensor<32x16x32xf32>)
//       CHECK:   %[[FLAT:.*]] = tensor.collapse_shape %[[EXP2]] {{\[}}[0], [1, 2]]
//       CHECK:   linalg.copy ins(%{{.*}} : tensor<512x512xf32>)
//       CHECK:   linalg.matmul ins(%[[FLAT]], %{{.*}} : tensor<32x512xf32>, tensor<512x512xf32>)
//       CHECK:   %[[G3:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [32, 16, 32]
//       CHECK:   %[[BUF3:.*]] = bufferization.alloc_tensor() : tensor<1x32x528xf32>
//       CHECK:   %[[SLICE3:.*]] = tensor.extract_slice %[[BUF3]][0, 0, 0] [1, 32, 512] [1, 1, 1]
//       CHECK:   %[[ROWS3:.*]] = tensor.collapse_shape %[[SLICE3]] {{\[}}[0, 1], [2]]
//       CHECK:   %[[PANELS3:.*]] = tensor.expand_shape %[[ROWS3]] {{\[}}[0], [1, 2]] output_shape [32, 16, 32]
//       CHECK:   %[[EXP3:.*]] = linalg.exp ins(%{{.*}} : tensor<32x16x32xf32>) outs(%[[PANELS3]] : tensor<32x16x32xf32>)
//       CHECK:   %[[FLAT3:.*]] = tensor.collapse_shape %[[EXP3]] {{\[}}[0], [1, 2]]
//       CHECK:   linalg.matmul ins(%[[FLAT3]], %{{.*}} : tensor<32x512xf32>, tensor<512x512xf32>)
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<32x16x32xf32>) outs(%[[G3]] : tensor<32x16x32xf32>)
//       CHECK:   linalg.exp
//       CHECK:   bufferization.alloc_tensor() : tensor<16x1040xf32>
//       CHECK:   %[[COPY:.*]] = linalg.copy ins(%{{.*}} : tensor<16x1024xf32>)
//       CHECK:   linalg.matmul ins(%[[COPY]], %{{.*}} : tensor<16x1024xf32>, tensor<1024x512xf32>)
func.func @through_reshape(%a: tensor<1x32x512xf32>, %w: tensor<512x512xf32>,
                           %c: tensor<32x512xf32>, %p: tensor<32x16x32xf32>,
                           %v: tensor<1024x512xf32>, %d: tensor<16x512xf32>)
    -> (tensor<32x512xf32>, tensor<32x512xf32>, tensor<32x512xf32>,
        tensor<16x512xf32>, tensor<32x16x32xf32>) {
  %e = tensor.empty() : tensor<1x32x512xf32>
  %x = linalg.exp ins(%a : tensor<1x32x512xf32>) outs(%e : tensor<1x32x512xf32>)
      -> tensor<1x32x512xf32>
  %rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<1x32x512xf32> into tensor<32x512xf32>
  %0 = linalg.matmul ins(%rows, %w : tensor<32x512xf32>, tensor<512x512xf32>)
      outs(%c : tensor<32x512xf32>) -> tensor<32x512xf32>
  %f = tensor.empty() : tensor<32x16x32xf32>
  %y = linalg.exp ins(%p : tensor<32x16x32xf32>) outs(%f : tensor<32x16x32xf32>)
      -> tensor<32x16x32xf32>
  %flat = tensor.collapse_shape %y [[0], [1, 2]] : tensor<32x16x32xf32> into tensor<32x512xf32>
  %1 = linalg.matmul ins(%flat, %w : tensor<32x512xf32>, tensor<512x512xf32>)
      outs(%c : tensor<32x512xf32>) -> tensor<32x512xf32>
  // An empty in panels through reshapes that the next exp shares.
  %g = tensor.empty() : tensor<1x32x512xf32>
  %g2 = tensor.collapse_shape %g [[0, 1], [2]] : tensor<1x32x512xf32> into tensor<32x512xf32>
  %g3 = tensor.expand_shape %g2 [[0], [1, 2]] output_shape [32, 16, 32] : tensor<32x512xf32> into tensor<32x16x32xf32>
  %z = linalg.exp ins(%p : tensor<32x16x32xf32>) outs(%g3 : tensor<32x16x32xf32>)
      -> tensor<32x16x32xf32>
  %zflat = tensor.collapse_shape %z [[0], [1, 2]] : tensor<32x16x32xf32> into tensor<32x512xf32>
  %2 = linalg.matmul ins(%zflat, %w : tensor<32x512xf32>, tensor<512x512xf32>)
      outs(%c : tensor<32x512xf32>) -> tensor<32x512xf32>
  %shared = linalg.exp ins(%p : tensor<32x16x32xf32>) outs(%g3 : tensor<32x16x32xf32>)
      -> tensor<32x16x32xf32>
  // Two rows of 512 merged into one of 1024.
  %m = linalg.exp ins(%p : tensor<32x16x32xf32>) outs(%f : tensor<32x16x32xf32>)
      -> tensor<32x16x32xf32>
  %long = tensor.collapse_shape %m [[0, 1], [2]] : tensor<32x16x32xf32> into tensor<512x32xf32>
  %long2 = tensor.expand_shape %long [[0, 1], [2]] output_shape [16, 32, 32] : tensor<512x32xf32> into tensor<16x32x32xf32>
  %long3 = tensor.collapse_shape %long2 [[0], [1, 2]] : tensor<16x32x32xf32> into tensor<16x1024xf32>
  %3 = linalg.matmul ins(%long3, %v : tensor<16x1024xf32>, tensor<1024x512xf32>)
      outs(%d : tensor<16x512xf32>) -> tensor<16x512xf32>
  return %0, %1, %2, %3, %shared : tensor<32x512xf32>, tensor<32x512xf32>, tensor<32x512xf32>, tensor<16x512xf32>, tensor<32x16x32xf32>
}

// -----

// A dynamic number of rows: the buffer takes the empty's number.

// CHECK-LABEL: func.func @dynamic_rows
//       CHECK:   %[[EMPTY:.*]] = tensor.empty
//       CHECK:   %[[N:.*]] = tensor.dim %[[EMPTY]], %{{.*}} : tensor<?x16x32xf32>
//       CHECK:   %[[BUF:.*]] = bufferization.alloc_tensor(%[[N]]) : tensor<?x528xf32>
//       CHECK:   %[[SLICE:.*]] = tensor.extract_slice %[[BUF]][0, 0] [%[[N]], 512] [1, 1]
//       CHECK:   %[[PANELS:.*]] = tensor.expand_shape %[[SLICE]] {{\[}}[0], [1, 2]] output_shape [%[[N]], 16, 32]
//       CHECK:   linalg.exp ins(%{{.*}} : tensor<?x16x32xf32>) outs(%[[PANELS]] : tensor<?x16x32xf32>)
//   CHECK-NOT:   linalg.copy ins(%{{.*}} : tensor<?x512xf32>)
func.func @dynamic_rows(%p: tensor<?x16x32xf32>, %n: index, %w: tensor<512x512xf32>,
                        %c: tensor<?x512xf32>) -> tensor<?x512xf32> {
  %e = tensor.empty(%n) : tensor<?x16x32xf32>
  %y = linalg.exp ins(%p : tensor<?x16x32xf32>) outs(%e : tensor<?x16x32xf32>)
      -> tensor<?x16x32xf32>
  %flat = tensor.collapse_shape %y [[0], [1, 2]] : tensor<?x16x32xf32> into tensor<?x512xf32>
  %0 = linalg.matmul ins(%flat, %w : tensor<?x512xf32>, tensor<512x512xf32>)
      outs(%c : tensor<?x512xf32>) -> tensor<?x512xf32>
  return %0 : tensor<?x512xf32>
}
