// RUN: tfm-opt %s --tfm-profile-kernels -split-input-file -verify-diagnostics | FileCheck %s

// Each op of a public function's body that touches memory is a kernel,
// bracketed by the profiler's hooks with its id; allocation, views and
// deallocation are not kernels; private functions are not profiled. The
// table names each kernel's op and location, in id order.

// CHECK-LABEL: func.func @model(
//       CHECK:   %[[BUF:.*]] = memref.alloc()
//  CHECK-NEXT:   %[[C0:.*]] = arith.constant 0 : i32
//  CHECK-NEXT:   call @tfm_profile_begin(%[[C0]])
//  CHECK-NEXT:   linalg.fill
//  CHECK-NEXT:   call @tfm_profile_end(%[[C0]])
//  CHECK-NEXT:   memref.subview
//       CHECK:   %[[C1:.*]] = arith.constant 1 : i32
//  CHECK-NEXT:   call @tfm_profile_begin(%[[C1]])
//  CHECK-NEXT:   scf.for
//       CHECK:   call @tfm_profile_end(%[[C1]])
//  CHECK-NEXT:   %[[C2:.*]] = arith.constant 2 : i32
//  CHECK-NEXT:   call @tfm_profile_begin(%[[C2]])
//  CHECK-NEXT:   memref.copy
//  CHECK-NEXT:   call @tfm_profile_end(%[[C2]])
//  CHECK-NEXT:   memref.dealloc
//  CHECK-NEXT:   return
// CHECK-LABEL: func.func private @helper(
//   CHECK-NOT:   tfm_profile
//       CHECK: func.func private @tfm_profile_begin(i32)
//       CHECK: func.func private @tfm_profile_end(i32)
//       CHECK: llvm.mlir.global external constant @tfm_profile_kernels("linalg.fill\09fill\0Ascf.for\09model.mlir:3:4\0Amemref.copy\09copy\0A\00")
func.func @model(%x: memref<8xf32>, %y: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%buf : memref<8xf32>) loc("fill")
  %half = memref.subview %x[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %half[%i] : memref<4xf32, strided<[1]>>
    memref.store %v, %buf[%i] : memref<8xf32>
  } loc("model.mlir":3:4)
  memref.copy %buf, %y : memref<8xf32> to memref<8xf32> loc(fused["copy"])
  memref.dealloc %buf : memref<8xf32>
  return
}
func.func private @helper(%x: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%x : memref<8xf32>)
  return
}

// -----

// A module that has the profiler's symbols is profiled already.

func.func @model(%x: memref<8xf32>) {
  return
}
// expected-error @below {{is named like the profiler's @tfm_profile_begin; the module is profiled already}}
func.func private @tfm_profile_begin(i32)
