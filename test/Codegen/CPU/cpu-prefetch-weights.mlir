// RUN: tfm-opt %s --tfm-cpu-prefetch-weights -split-input-file | FileCheck %s

// A decoding step's micro-kernel: 8 rows against one panel of packed
// weights, marked by tiling to prefetch 16 steps ahead. Each step reads a
// row of the panel (32 floats, two lines) at 32 floats past the last, so
// the prefetches point 16 x 32 = 512 and 528 floats past the read, in the
// constant as a whole (its collapsed view): from one panel into the next.
// The loop is split where they would point past the constant's end (8192
// floats): the iterations before it prefetch, those after it (the last
// panel's last 16 steps) do not.

memref.global "private" constant @w : memref<4x64x32xf32> = dense<1.0> {alignment = 64 : i64}

// CHECK-LABEL: func.func @few_rows(
//  CHECK-SAME:     %[[A:.*]]: memref<8x64xf32>, %[[P:.*]]: index, %[[INIT:.*]]: vector<8x1x32xf32>)
//       CHECK:   %[[W:.*]] = memref.get_global @w
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[W]] {{\[\[}}0, 1, 2]] : memref<4x64x32xf32> into memref<8192xf32>
//       CHECK:   %[[PANEL:.*]] = memref.subview %[[W]][%[[P]], 0, 0]
//       CHECK:   %[[FIRST:.*]] = memref.subview %[[PANEL]][0, %c0, 0] [1, 1, 32]
//       CHECK:   %{{.*}}, %[[OFF0:.*]], %{{.*}}:3, %{{.*}}:3 = memref.extract_strided_metadata %[[FIRST]]
//       CHECK:   %[[ROOM:.*]] = arith.subi %c7663{{.*}}, %[[OFF0]]
//       CHECK:   %[[STEPS:.*]] = arith.floordivsi %[[ROOM]], %c32
//       CHECK:   %[[SPLIT:.*]] = arith.minsi %{{.*}}, %c64
//       CHECK:   %[[PART:.*]] = scf.for %[[K:.*]] = %c0 to %[[SPLIT]] step %c1 iter_args(%{{.*}} = %[[INIT]])
//       CHECK:     %[[ROW:.*]] = memref.subview %[[PANEL]][0, %[[K]], 0]
//       CHECK:     %{{.*}}, %[[OFF:.*]], %{{.*}}:3, %{{.*}}:3 = memref.extract_strided_metadata %[[ROW]]
//       CHECK:     %[[AT0:.*]] = arith.addi %[[OFF]], %c512
//       CHECK:     memref.prefetch %[[FLAT]][%[[AT0]]], read, locality<3>, data
//       CHECK:     %[[AT1:.*]] = arith.addi %[[OFF]], %c528
//       CHECK:     memref.prefetch %[[FLAT]][%[[AT1]]], read, locality<3>, data
//       CHECK:     vector.transfer_read %[[ROW]]
//   CHECK-NOT:     memref.prefetch
//       CHECK:     scf.yield
//   CHECK-NOT:   tfm.prefetch_distance
//       CHECK:   %[[REST:.*]] = scf.for %{{.*}} = %[[SPLIT]] to %c64 step %c1 iter_args(%{{.*}} = %[[PART]])
//   CHECK-NOT:     memref.prefetch
//   CHECK-NOT:   tfm.prefetch_distance
//       CHECK:   return %[[REST]]
func.func @few_rows(%a: memref<8x64xf32>, %p: index, %init: vector<8x1x32xf32>)
    -> vector<8x1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<4x64x32xf32>
  %panel = memref.subview %w[%p, 0, 0] [1, 64, 32] [1, 1, 1]
      : memref<4x64x32xf32> to memref<1x64x32xf32, strided<[2048, 32, 1], offset: ?>>
  %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (vector<8x1x32xf32>) {
    %col = memref.subview %a[0, %k] [8, 1] [1, 1]
        : memref<8x64xf32> to memref<8x1xf32, strided<[64, 1], offset: ?>>
    %row = memref.subview %panel[0, %k, 0] [1, 1, 32] [1, 1, 1]
        : memref<1x64x32xf32, strided<[2048, 32, 1], offset: ?>> to memref<1x1x32xf32, strided<[2048, 32, 1], offset: ?>>
    %x = vector.transfer_read %col[%c0, %c0], %pad
        {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0, d1) -> (d0, 0, 0, d1)>}
        : memref<8x1xf32, strided<[64, 1], offset: ?>>, vector<8x1x32x1xf32>
    %y = vector.transfer_read %row[%c0, %c0, %c0], %pad
        {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0, d1, d2) -> (0, d0, d2, d1)>}
        : memref<1x1x32xf32, strided<[2048, 32, 1], offset: ?>>, vector<8x1x32x1xf32>
    %m = arith.mulf %x, %y : vector<8x1x32x1xf32>
    %s = vector.shape_cast %m : vector<8x1x32x1xf32> to vector<8x1x32xf32>
    %n = arith.addf %acc, %s : vector<8x1x32xf32>
    scf.yield %n : vector<8x1x32xf32>
  } {tfm.prefetch_distance = 16 : i64}
  return %r : vector<8x1x32xf32>
}

// -----

// A marked loop that reads only a buffer the function computes (an
// allocation of its own, which its producer has just written) prefetches
// nothing and loses its marker; a loop without the marker is left alone.

// CHECK-LABEL: func.func @computed(
//   CHECK-NOT:   memref.prefetch
//   CHECK-NOT:   tfm.prefetch_distance
//       CHECK:   scf.for
//   CHECK-NOT:   scf.for
//       CHECK:   return
func.func @computed(%init: vector<32xf32>) -> vector<32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %b = memref.alloc() : memref<64x32xf32>
  %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (vector<32xf32>) {
    %y = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<64x32xf32>, vector<32xf32>
    %n = arith.addf %acc, %y : vector<32xf32>
    scf.yield %n : vector<32xf32>
  } {tfm.prefetch_distance = 16 : i64}
  memref.dealloc %b : memref<64x32xf32>
  return %r : vector<32xf32>
}

// -----

// A decoding step's attention: the values of one batch x head, a row of
// 64 floats (four lines) a step, read from the caller's cache, an argument
// of dynamic shape. Its prefetches point 64 rows ahead in the argument as a
// whole (collapsed at the start of the function). Outside a parallel loop
// no iteration's view bounds the stream, so they run on past this head's
// positions, and the split is where they would pass the cache's last
// element, known at run time: its elements less 1 + 48 + 64 x 64 = 4145.

// CHECK-LABEL: func.func @cache(
//  CHECK-SAME:     %[[V:.*]]: memref<?x137x64xf32>, %[[H:.*]]: index, %[[N:.*]]: index,
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[V]] {{\[\[}}0, 1, 2]] : memref<?x137x64xf32> into memref<?xf32>
//       CHECK:   %[[HEAD:.*]] = memref.subview %[[V]][%[[H]], 0, 0] [1, %[[N]], 64]
//       CHECK:   %[[ELEMENTS:.*]] = memref.dim %[[FLAT]], %c0
//       CHECK:   %[[ROOM:.*]] = arith.subi %[[ELEMENTS]], %c4145
//       CHECK:   arith.floordivsi %{{.*}}, %c64
//       CHECK:   %[[SPLIT:.*]] = arith.minsi %[[N]], %{{.*}}
//       CHECK:   %[[PART:.*]] = scf.for %[[J:.*]] = %c0 to %[[SPLIT]] step %c1
//       CHECK:     %[[ROW:.*]] = memref.subview %[[HEAD]][0, %[[J]], 0]
//       CHECK:     %{{.*}}, %[[OFF:.*]], %{{.*}}:3, %{{.*}}:3 = memref.extract_strided_metadata %[[ROW]]
//       CHECK:     %[[AT0:.*]] = arith.addi %[[OFF]], %c4096
//       CHECK:     memref.prefetch %[[FLAT]][%[[AT0]]], read, locality<3>, data : memref<?xf32>
//       CHECK:     arith.addi %[[OFF]], %c4112
//       CHECK:     memref.prefetch %[[FLAT]]
//       CHECK:     arith.addi %[[OFF]], %c4128
//       CHECK:     memref.prefetch %[[FLAT]]
//       CHECK:     arith.addi %[[OFF]], %c4144
//       CHECK:     memref.prefetch %[[FLAT]]
//       CHECK:     vector.transfer_read %[[ROW]]
//       CHECK:   scf.for %{{.*}} = %[[SPLIT]] to %[[N]] step %c1 iter_args(%{{.*}} = %[[PART]])
//   CHECK-NOT:     memref.prefetch
//       CHECK:   return
func.func @cache(%v: memref<?x137x64xf32>, %h: index, %n: index,
                 %init: vector<64xf32>) -> vector<64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %head = memref.subview %v[%h, 0, 0] [1, %n, 64] [1, 1, 1]
      : memref<?x137x64xf32> to memref<1x?x64xf32, strided<[8768, 64, 1], offset: ?>>
  %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %init) -> (vector<64xf32>) {
    %row = memref.subview %head[0, %j, 0] [1, 1, 64] [1, 1, 1]
        : memref<1x?x64xf32, strided<[8768, 64, 1], offset: ?>> to memref<1x1x64xf32, strided<[8768, 64, 1], offset: ?>>
    %y = vector.transfer_read %row[%c0, %c0, %c0], %pad
        {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2) -> (d2)>}
        : memref<1x1x64xf32, strided<[8768, 64, 1], offset: ?>>, vector<64xf32>
    %s = arith.addf %acc, %y : vector<64xf32>
    scf.yield %s : vector<64xf32>
  } {tfm.prefetch_distance = 64 : i64}
  return %r : vector<64xf32>
}

// -----

// The step is read from the index of the read itself where the induction
// variable indexes the constant directly: a row of 32 floats a step, one
// prefetch per 16-float line.

memref.global "private" constant @v : memref<256x32xf32> = dense<2.0> {alignment = 64 : i64}

// CHECK-LABEL: func.func @direct_index(
//       CHECK:   %[[V:.*]] = memref.get_global @v
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[V]] {{\[\[}}0, 1]] : memref<256x32xf32> into memref<8192xf32>
//       CHECK:   scf.for %[[K:.*]] = %c0 to %{{.*}} step %c1
//       CHECK:     %{{.*}}, %[[OFF:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[V]]
//       CHECK:     %[[ROW:.*]] = arith.muli %[[K]], %[[STRIDES]]#0
//       CHECK:     %[[AT:.*]] = arith.addi %[[OFF]], %[[ROW]]
//       CHECK:     arith.addi %[[AT]], %c256
//       CHECK:     memref.prefetch %[[FLAT]]
//       CHECK:     arith.addi %[[AT]], %c272
//       CHECK:     memref.prefetch %[[FLAT]]
//       CHECK:     vector.transfer_read %[[V]][%[[K]], %c0]
func.func @direct_index(%init: vector<32xf32>) -> vector<32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %v = memref.get_global @v : memref<256x32xf32>
  %r = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc = %init) -> (vector<32xf32>) {
    %y = vector.transfer_read %v[%k, %c0], %pad {in_bounds = [true]} : memref<256x32xf32>, vector<32xf32>
    %n = arith.addf %acc, %y : vector<32xf32>
    scf.yield %n : vector<32xf32>
  } {tfm.prefetch_distance = 8 : i64}
  return %r : vector<32xf32>
}

// -----

// The same values inside the parallel loop over the batch x heads, as a
// decoding step has them: each iteration's view is one head's first %n
// positions of a cache that has room for 137. The stream ends where the
// head's view does, not at the cache's end: rows %n to 136 are the cache's
// room for later steps, which nothing reads, and the next head's rows are
// 137 rows on. So the split is where the prefetches would pass the view's
// last element: the view's end (its offset + 1 + (%n - 1) x 64 + 63)
// less 4145, the first read's offset, over 64 floats a step, plus one;
// measured on a Zen 5, a GPT-2-size step at batch 8 and 128 positions read
// its caches 18% faster than when the last 64 rows of each head
// prefetched the room after them.

// CHECK-LABEL: func.func @cache_per_head(
//  CHECK-SAME:     %[[V:.*]]: memref<?x137x64xf32>, %[[N:.*]]: index,
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[V]]
//       CHECK:   scf.parallel (%[[H:.*]]) =
//       CHECK:     %[[HEAD:.*]] = memref.subview %[[V]][%[[H]], 0, 0] [1, %[[N]], 64]
//       CHECK:     %[[FIRST:.*]] = memref.subview %[[HEAD]][0, %c0, 0]
//       CHECK:     %{{.*}}, %[[OFF0:.*]], %{{.*}}:3, %{{.*}}:3 = memref.extract_strided_metadata %[[FIRST]]
//       CHECK:     %{{.*}}, %[[HOFF:.*]], %[[SIZES:.*]]:3, %[[STRIDES:.*]]:3 = memref.extract_strided_metadata %[[HEAD]]
//       CHECK:     arith.addi %[[HOFF]], %c1
//       CHECK:     arith.subi %[[SIZES]]#1, %c1
//       CHECK:     arith.muli %{{.*}}, %[[STRIDES]]#1
//       CHECK:     arith.subi %[[SIZES]]#2, %c1
//       CHECK:     arith.muli %{{.*}}, %[[STRIDES]]#2
//       CHECK:     %[[END:.*]] = arith.addi
//       CHECK:     %[[ROOM:.*]] = arith.subi %[[END]], %c4145
//       CHECK:     %[[AHEAD:.*]] = arith.subi %[[ROOM]], %[[OFF0]]
//       CHECK:     arith.floordivsi %[[AHEAD]], %c64
//       CHECK:     %[[SPLIT:.*]] = arith.minsi %[[N]], %{{.*}}
//       CHECK:     scf.for %{{.*}} = %c0 to %[[SPLIT]] step %c1
//       CHECK:       memref.prefetch %[[FLAT]]
//       CHECK:     scf.for %{{.*}} = %[[SPLIT]] to %[[N]] step %c1
//   CHECK-NOT:       memref.prefetch
//       CHECK:     scf.reduce
func.func @cache_per_head(%v: memref<?x137x64xf32>, %n: index, %out: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<64xf32>
  %heads = memref.dim %v, %c0 : memref<?x137x64xf32>
  scf.parallel (%h) = (%c0) to (%heads) step (%c1) {
    %head = memref.subview %v[%h, 0, 0] [1, %n, 64] [1, 1, 1]
        : memref<?x137x64xf32> to memref<1x?x64xf32, strided<[8768, 64, 1], offset: ?>>
    %r = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<64xf32>) {
      %row = memref.subview %head[0, %j, 0] [1, 1, 64] [1, 1, 1]
          : memref<1x?x64xf32, strided<[8768, 64, 1], offset: ?>> to memref<1x1x64xf32, strided<[8768, 64, 1], offset: ?>>
      %y = vector.transfer_read %row[%c0, %c0, %c0], %pad
          {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2) -> (d2)>}
          : memref<1x1x64xf32, strided<[8768, 64, 1], offset: ?>>, vector<64xf32>
      %s = arith.addf %acc, %y : vector<64xf32>
      scf.yield %s : vector<64xf32>
    } {tfm.prefetch_distance = 64 : i64}
    vector.transfer_write %r, %out[%h, %c0] {in_bounds = [true]} : vector<64xf32>, memref<?x64xf32>
    scf.reduce
  }
  return
}
