// RUN: tfm-opt %s --tfm-expand-shape-to-reinterpret-cast -split-input-file | FileCheck %s

// Two dynamic sizes in one group: the source's base reinterpreted with the
// output_shape's sizes; the outer stride is the inner size times 128.

// CHECK-LABEL: func.func @two_dynamic_sizes(
//  CHECK-SAME:   %[[SRC:.*]]: memref<?x128xf32>, %[[B:.*]]: index, %[[S:.*]]: index)
//       CHECK:   %[[BASE:.*]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[SRC]]
//       CHECK:   %[[STRIDE:.*]] = affine.apply #{{.*}}()[%[[S]]]
//       CHECK:   memref.reinterpret_cast %[[BASE]] to offset: [0], sizes: [%[[B]], %[[S]], 128], strides: [%[[STRIDE]], 128, 1] : memref<f32> to memref<?x?x128xf32>
//   CHECK-NOT:   memref.expand_shape
func.func @two_dynamic_sizes(%src: memref<?x128xf32>, %b: index, %s: index) -> memref<?x?x128xf32> {
  %e = memref.expand_shape %src [[0, 1], [2]] output_shape [%b, %s, 128] : memref<?x128xf32> into memref<?x?x128xf32>
  return %e : memref<?x?x128xf32>
}

// -----

// One dynamic size per group is upstream's to lower.

// CHECK-LABEL: func.func @one_dynamic_size(
//       CHECK:   memref.expand_shape
func.func @one_dynamic_size(%src: memref<?x128xf32>, %b: index) -> memref<?x4x128xf32> {
  %e = memref.expand_shape %src [[0, 1], [2]] output_shape [%b, 4, 128] : memref<?x128xf32> into memref<?x4x128xf32>
  return %e : memref<?x4x128xf32>
}

// -----

// A strided source keeps its strides and offset.

// CHECK-LABEL: func.func @strided_source(
//       CHECK:   %[[BASE:.*]], %[[OFFSET:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata
//       CHECK:   memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [%{{.*}}, %{{.*}}, 128], strides: [%{{.*}}, %[[STRIDES]]#0, 1]
func.func @strided_source(%src: memref<?x128xf32, strided<[?, 1], offset: ?>>, %b: index, %s: index) -> memref<?x?x128xf32, strided<[?, ?, 1], offset: ?>> {
  %e = memref.expand_shape %src [[0, 1], [2]] output_shape [%b, %s, 128] : memref<?x128xf32, strided<[?, 1], offset: ?>> into memref<?x?x128xf32, strided<[?, ?, 1], offset: ?>>
  return %e : memref<?x?x128xf32, strided<[?, ?, 1], offset: ?>>
}
