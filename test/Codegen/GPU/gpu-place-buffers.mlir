// RUN: tfm-opt %s --pass-pipeline="builtin.module(tfm-gpu-place-buffers)" --split-input-file | FileCheck %s

// The launches read %x and %w, write %y (the result) and %t (a buffer of
// the host): %x and %w are copied in, %y only back, %t becomes a device
// allocation, the constant is read through the runtime's device copy (one
// call however often it is used, never freed: it is kept across calls),
// and every device buffer is freed on return, the host's deallocation
// dropped.

// CHECK-LABEL: func.func @place(
//  CHECK-SAME:     %[[X:.*]]: memref<4xf32>, %[[W:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>)
//       CHECK:   %[[DX:.*]] = gpu.alloc () : memref<4xf32>
//  CHECK-NEXT:   gpu.memcpy %[[DX]], %[[X]]
//  CHECK-NEXT:   %[[DW:.*]] = gpu.alloc () : memref<4xf32>
//  CHECK-NEXT:   gpu.memcpy %[[DW]], %[[W]]
//  CHECK-NEXT:   %[[DY:.*]] = gpu.alloc () : memref<4xf32>
//   CHECK-NOT:   gpu.memcpy %[[DY]]
//       CHECK:   %[[C:.*]] = memref.get_global @c
//  CHECK-NEXT:   %[[C1:.*]] = memref.cast %[[C]] : memref<4xf32> to memref<?xf32>
//  CHECK-NEXT:   %[[DC1:.*]] = call @tfmGpuConstant_f32(%[[C1]]) : (memref<?xf32>) -> memref<?xf32>
//  CHECK-NEXT:   %[[DC:.*]] = memref.cast %[[DC1]] : memref<?xf32> to memref<4xf32>
//   CHECK-NOT:   gpu.memcpy {{.*}}%[[C]]
//       CHECK:   %[[DT:.*]] = gpu.alloc () : memref<4xf32>
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[DX]]
//       CHECK:     memref.load %[[DC]]
//       CHECK:     memref.store %{{.*}}, %[[DT]]
//       CHECK:   gpu.launch
//       CHECK:     memref.load %[[DT]]
//       CHECK:     memref.load %[[DW]]
//       CHECK:     memref.load %[[DC]]
//       CHECK:     memref.store %{{.*}}, %[[DY]]
//   CHECK-NOT:   memref.dealloc
//       CHECK:   gpu.memcpy %[[Y]], %[[DY]]
//  CHECK-NEXT:   gpu.dealloc %[[DX]]
//  CHECK-NEXT:   gpu.dealloc %[[DW]]
//  CHECK-NEXT:   gpu.dealloc %[[DY]]
//  CHECK-NEXT:   gpu.dealloc %[[DT]]
//  CHECK-NEXT:   return
//       CHECK: func.func private @tfmGpuConstant_f32(memref<?xf32>) -> memref<?xf32> attributes {llvm.emit_c_interface}
memref.global "private" constant @c : memref<4xf32> = dense<1.0>
func.func @place(%x: memref<4xf32>, %w: memref<4xf32>, %y: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %t = memref.alloc() : memref<4xf32>
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %c = memref.get_global @c : memref<4xf32>
    %v = memref.load %x[%t0] : memref<4xf32>
    %k = memref.load %c[%t0] : memref<4xf32>
    %s = arith.addf %v, %k : f32
    memref.store %s, %t[%t0] : memref<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %c = memref.get_global @c : memref<4xf32>
    %v = memref.load %t[%t0] : memref<4xf32>
    %u = memref.load %w[%t0] : memref<4xf32>
    %k = memref.load %c[%t0] : memref<4xf32>
    %p = arith.mulf %v, %u : f32
    %s = arith.addf %p, %k : f32
    memref.store %s, %y[%t0] : memref<4xf32>
    gpu.terminator
  }
  memref.dealloc %t : memref<4xf32>
  return
}

// -----

// An argument that is read and written (updated in place) is copied both
// ways.

// CHECK-LABEL: func.func @in_place(
//  CHECK-SAME:     %[[X:.*]]: memref<4xf32>)
//       CHECK:   %[[DX:.*]] = gpu.alloc () : memref<4xf32>
//  CHECK-NEXT:   gpu.memcpy %[[DX]], %[[X]]
//       CHECK:   gpu.launch
//       CHECK:   gpu.memcpy %[[X]], %[[DX]]
//  CHECK-NEXT:   gpu.dealloc %[[DX]]
func.func @in_place(%x: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %v = memref.load %x[%t0] : memref<4xf32>
    %s = arith.addf %v, %v : f32
    memref.store %s, %x[%t0] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Constants of every rank reach the runtime as one dimension and come back
// in their shape; one declaration per element type serves every size; a
// constant of a type the runtime keeps no copies of (index) is copied in
// and freed at every call.

// CHECK-LABEL: func.func @shapes(
//       CHECK:   %[[M:.*]] = memref.get_global @matrix : memref<2x3xbf16>
//  CHECK-NEXT:   %[[MF:.*]] = memref.collapse_shape %[[M]] {{\[\[}}0, 1]] : memref<2x3xbf16> into memref<6xbf16>
//  CHECK-NEXT:   %[[MC:.*]] = memref.cast %[[MF]] : memref<6xbf16> to memref<?xbf16>
//  CHECK-NEXT:   %[[DM1:.*]] = call @tfmGpuConstant_bf16(%[[MC]])
//  CHECK-NEXT:   %[[DMF:.*]] = memref.cast %[[DM1]] : memref<?xbf16> to memref<6xbf16>
//  CHECK-NEXT:   %[[DM:.*]] = memref.expand_shape %[[DMF]] {{\[\[}}0, 1]] output_shape [2, 3] : memref<6xbf16> into memref<2x3xbf16>
//       CHECK:   %[[S:.*]] = memref.get_global @scalar : memref<bf16>
//  CHECK-NEXT:   %[[SF:.*]] = memref.expand_shape %[[S]] [] output_shape [1] : memref<bf16> into memref<1xbf16>
//  CHECK-NEXT:   %[[SC:.*]] = memref.cast %[[SF]] : memref<1xbf16> to memref<?xbf16>
//  CHECK-NEXT:   %[[DS1:.*]] = call @tfmGpuConstant_bf16(%[[SC]])
//  CHECK-NEXT:   %[[DSF:.*]] = memref.cast %[[DS1]] : memref<?xbf16> to memref<1xbf16>
//  CHECK-NEXT:   %[[DS:.*]] = memref.collapse_shape %[[DSF]] [] : memref<1xbf16> into memref<bf16>
//       CHECK:   %[[I:.*]] = memref.get_global @indices : memref<2xindex>
//  CHECK-NEXT:   %[[DI:.*]] = gpu.alloc () : memref<2xindex>
//  CHECK-NEXT:   gpu.memcpy %[[DI]], %[[I]]
//       CHECK:   gpu.launch
//   CHECK-DAG:     memref.load %[[DI]]
//   CHECK-DAG:     memref.load %[[DM]]
//   CHECK-DAG:     memref.load %[[DS]]
//       CHECK:   gpu.dealloc %[[DI]]
//  CHECK-NEXT:   return
//   CHECK-NOT: func.func private @tfmGpuConstant_index
//       CHECK: func.func private @tfmGpuConstant_bf16(memref<?xbf16>) -> memref<?xbf16> attributes {llvm.emit_c_interface}
//   CHECK-NOT: func.func private @tfmGpuConstant
memref.global "private" constant @matrix : memref<2x3xbf16> = dense<1.0>
memref.global "private" constant @scalar : memref<bf16> = dense<2.0>
memref.global "private" constant @indices : memref<2xindex> = dense<[0, 1]>
func.func @shapes(%y: memref<2x3xbf16>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1)
             threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) {
    %m = memref.get_global @matrix : memref<2x3xbf16>
    %s = memref.get_global @scalar : memref<bf16>
    %i = memref.get_global @indices : memref<2xindex>
    %row = memref.load %i[%t0] : memref<2xindex>
    %v = memref.load %m[%row, %t1] : memref<2x3xbf16>
    %k = memref.load %s[] : memref<bf16>
    %p = arith.mulf %v, %k : bf16
    memref.store %p, %y[%row, %t1] : memref<2x3xbf16>
    gpu.terminator
  }
  return
}
