// RUN: tfm-opt %s --tfm-cpu-outline-kernels | FileCheck %s
// RUN: tfm-opt %s --tfm-cpu-outline-kernels=dedup=false | FileCheck %s --check-prefix=NODEDUP

// Two layers that are the same code on different weights and buffers (and
// different locations, as an exported model's layers have) share one
// kernel function, which takes the weights as arguments. A kernel that differs in one op (a subtraction) or in
// one constant (a scale of 3, not 2) keeps its own function.

memref.global "private" constant @w0 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @w1 : memref<4xf32> = dense<[5.0, 6.0, 7.0, 8.0]>
memref.global "private" @state : memref<4xf32> = dense<0.0>

// CHECK-LABEL: func.func @entry(
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: memref<8x4xf32>, %[[Y:[a-z0-9]+]]: memref<8x4xf32>)
//   CHECK-DAG:   %[[W0:.*]] = memref.get_global @w0
//   CHECK-DAG:   %[[W1:.*]] = memref.get_global @w1
//       CHECK:   call @entry_kernel_0(%[[X]], %[[W0]], %[[Y]])
//       CHECK:   call @entry_kernel_0(%[[Y]], %[[W1]], %[[X]])
//       CHECK:   call @entry_kernel_2(%[[X]], %[[W0]], %[[Y]])
//       CHECK:   call @entry_kernel_3(%[[X]], %[[W1]], %[[Y]])
//       CHECK:   call @entry_kernel_4(
//       CHECK:   return

// CHECK-LABEL: func.func private @entry_kernel_0(
//  CHECK-SAME:     %{{.*}}: memref<8x4xf32>, %{{.*}}: memref<4xf32>, %{{.*}}: memref<8x4xf32>)
//       CHECK:   arith.mulf
//       CHECK:   arith.addf
//   CHECK-NOT: func.func private @entry_kernel_1(
//       CHECK: func.func private @entry_kernel_2(
//       CHECK:   arith.subf
//       CHECK: func.func private @entry_kernel_3(
//       CHECK:   arith.constant 3.0
//       CHECK: func.func private @entry_kernel_4(
//  CHECK-SAME:     %{{.*}}: memref<4xf32>)

// Without dedup, every kernel has its function, with its weight inside.
// NODEDUP-LABEL: func.func private @entry_kernel_0(
//  NODEDUP-SAME:     %{{.*}}: memref<8x4xf32>, %{{.*}}: memref<8x4xf32>)
//       NODEDUP:   memref.get_global @w0
//       NODEDUP: func.func private @entry_kernel_1(
//       NODEDUP:   memref.get_global @w1
//       NODEDUP: func.func private @entry_kernel_2(
//       NODEDUP: func.func private @entry_kernel_3(
//       NODEDUP: func.func private @entry_kernel_4(

func.func @entry(%x: memref<8x4xf32>, %y: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %w0 = memref.get_global @w0 : memref<4xf32>
  %w1 = memref.get_global @w1 : memref<4xf32>
  %s = memref.get_global @state : memref<4xf32>
  // Layer 0: y = 2 * x * w0 + x.
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<8x4xf32>
    %b = memref.load %w0[%j] : memref<4xf32>
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %two : f32
    %r = arith.addf %q, %a : f32
    memref.store %r, %y[%i, %j] : memref<8x4xf32>
    scf.reduce
  } loc("layer_0")
  // Layer 1: the same on other buffers and weights.
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %a = memref.load %y[%i, %j] : memref<8x4xf32>
    %b = memref.load %w1[%j] : memref<4xf32>
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %two : f32
    %r = arith.addf %q, %a : f32
    memref.store %r, %x[%i, %j] : memref<8x4xf32>
    scf.reduce
  } loc("layer_1")
  // One op differs.
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<8x4xf32>
    %b = memref.load %w0[%j] : memref<4xf32>
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %two : f32
    %r = arith.subf %q, %a : f32
    memref.store %r, %y[%i, %j] : memref<8x4xf32>
    scf.reduce
  }
  // One constant differs.
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<8x4xf32>
    %b = memref.load %w1[%j] : memref<4xf32>
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %three : f32
    %r = arith.addf %q, %a : f32
    memref.store %r, %y[%i, %j] : memref<8x4xf32>
    scf.reduce
  }
  scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
    %a = memref.load %s[%j] : memref<4xf32>
    %b = arith.addf %a, %two : f32
    memref.store %b, %s[%j] : memref<4xf32>
    scf.reduce
  }
  return
}
