// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-place-buffers))" --split-input-file | FileCheck %s

// The launches read %x and %w, write %y (the result) and %t (a buffer of
// the host): %x and %w are copied in, %y only back, %t becomes a device
// allocation, the constant one device copy however often it is used, and
// every device buffer is freed on return, the host's deallocation dropped.

// CHECK-LABEL: func.func @place(
//  CHECK-SAME:     %[[X:.*]]: memref<4xf32>, %[[W:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>)
//       CHECK:   %[[DX:.*]] = gpu.alloc () : memref<4xf32>
//  CHECK-NEXT:   gpu.memcpy %[[DX]], %[[X]]
//  CHECK-NEXT:   %[[DW:.*]] = gpu.alloc () : memref<4xf32>
//  CHECK-NEXT:   gpu.memcpy %[[DW]], %[[W]]
//  CHECK-NEXT:   %[[DY:.*]] = gpu.alloc () : memref<4xf32>
//   CHECK-NOT:   gpu.memcpy %[[DY]]
//       CHECK:   %[[C:.*]] = memref.get_global @c
//  CHECK-NEXT:   %[[DC:.*]] = gpu.alloc () : memref<4xf32>
//  CHECK-NEXT:   gpu.memcpy %[[DC]], %[[C]]
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
//  CHECK-NEXT:   gpu.dealloc %[[DC]]
//  CHECK-NEXT:   gpu.dealloc %[[DT]]
//  CHECK-NEXT:   return
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
