// RUN: tfm-opt %s --tfm-emit-c-interface | FileCheck %s

// An entry with dynamic sizes: tfm_main takes them first, as i64, and
// builds each descriptor from them (sizes; row-major strides, the products
// of the sizes inside); tfm_run_dims loads them from an array; there is no
// tfm_run, which could not pass them. The signature text is version 2.

// CHECK-LABEL: llvm.func @tfm_main(
// CHECK-SAME:    %[[B:[^:]+]]: i64, %[[S:[^:]+]]: i64, %[[X:[^:]+]]: !llvm.ptr, %[[Y:[^:]+]]: !llvm.ptr) -> i32 {

// x: [batch, seq, 8]: sizes batch, seq, 8; strides 8 * seq, 8, 1.
// CHECK:         %[[X0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK:         %[[EIGHT:.*]] = llvm.mlir.constant(8 : i64) : i64
// CHECK:         llvm.insertvalue %[[EIGHT]], %{{.*}}[3, 2]
// CHECK:         llvm.insertvalue %[[ONE]], %{{.*}}[4, 2]
// CHECK:         %[[ROW:.*]] = llvm.mul %[[ONE]], %[[EIGHT]]
// CHECK:         llvm.insertvalue %[[S]], %{{.*}}[3, 1]
// CHECK:         llvm.insertvalue %[[ROW]], %{{.*}}[4, 1]
// CHECK:         %[[PLANE:.*]] = llvm.mul %[[ROW]], %[[S]]
// CHECK:         llvm.insertvalue %[[B]], %{{.*}}[3, 0]
// CHECK:         llvm.insertvalue %[[PLANE]], %{{.*}}[4, 0]
// CHECK:         llvm.call @_mlir_ciface___tfm_entry(

// CHECK-LABEL: llvm.func @tfm_run_dims(
// CHECK-SAME:    %[[DIMS:[^:]+]]: !llvm.ptr, %[[BUFFERS:[^:]+]]: !llvm.ptr) -> i32 {
// CHECK:         %[[P0:.*]] = llvm.getelementptr %[[DIMS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[D0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> i64
// CHECK:         %[[P1:.*]] = llvm.getelementptr %[[DIMS]][1] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK:         %[[D1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> i64
// CHECK:         llvm.call @tfm_main(%[[D0]], %[[D1]],

// CHECK-NOT: llvm.func @tfm_run(
// CHECK: llvm.mlir.global external constant @tfm_signature("tfm-signature-v2\0Adim batch\0Adim seq\0Ain x f32 batch,seq,8\0Aout y f32 batch,seq,8\0A\00")

module attributes {tfm.entry_signature = {
    name = "main",
    dim_names = ["batch", "seq"],
    inputs = [{name = "x", type = tensor<?x?x8xf32>, dims = array<i64: -2, -3, 8>}],
    outputs = [{name = "y", type = tensor<?x?x8xf32>, dims = array<i64: -2, -3, 8>}]}} {
  llvm.func @_mlir_ciface___tfm_entry(!llvm.ptr, !llvm.ptr)
}
