// RUN: tfm-opt %s --tfm-emit-c-interface | FileCheck %s

// From the recorded signature, the C entry points of the binary: tfm_main
// puts a memref descriptor for each dense row-major buffer on the stack
// (both pointers the buffer, offset 0, the sizes, row-major strides; a
// scalar has no sizes or strides) and calls the entry's C interface;
// tfm_run loads the buffers from an array; tfm_signature is the text the
// runtime reads. The signature stays on the module for the C header.

// CHECK: module attributes {tfm.entry_signature = {inputs = [{name = "x", type = tensor<2x5xf32>}, {name = "scale", type = tensor<f32>}], name = "main", outputs = [{name = "y", type = tensor<2x5xf16>}]}}

// CHECK-LABEL: llvm.func @tfm_main(
// CHECK-SAME:    %[[X:[^:]+]]: !llvm.ptr, %[[SCALE:[^:]+]]: !llvm.ptr, %[[Y:[^:]+]]: !llvm.ptr) -> i32 {

// x: tensor<2x5xf32>, sizes [2, 5], strides [5, 1].
// CHECK:         %[[X0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT:    %[[X1:.*]] = llvm.insertvalue %[[X]], %[[X0]][0]
// CHECK-NEXT:    %[[X2:.*]] = llvm.insertvalue %[[X]], %[[X1]][1]
// CHECK-NEXT:    %[[OFFSET:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK-NEXT:    %[[X3:.*]] = llvm.insertvalue %[[OFFSET]], %[[X2]][2]
// CHECK-NEXT:    %[[SIZE0:.*]] = llvm.mlir.constant(2 : index) : i64
// CHECK-NEXT:    %[[X4:.*]] = llvm.insertvalue %[[SIZE0]], %[[X3]][3, 0]
// CHECK-NEXT:    %[[STRIDE0:.*]] = llvm.mlir.constant(5 : index) : i64
// CHECK-NEXT:    %[[X5:.*]] = llvm.insertvalue %[[STRIDE0]], %[[X4]][4, 0]
// CHECK-NEXT:    %[[SIZE1:.*]] = llvm.mlir.constant(5 : index) : i64
// CHECK-NEXT:    %[[X6:.*]] = llvm.insertvalue %[[SIZE1]], %[[X5]][3, 1]
// CHECK-NEXT:    %[[STRIDE1:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-NEXT:    %[[X7:.*]] = llvm.insertvalue %[[STRIDE1]], %[[X6]][4, 1]
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    %[[XDESC:.*]] = llvm.alloca %[[ONE]] x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> : (i64) -> !llvm.ptr
// CHECK-NEXT:    llvm.store %[[X7]], %[[XDESC]]

// scale: tensor<f32>, pointers and offset only.
// CHECK-NEXT:    %[[S0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64)>
// CHECK-NEXT:    %[[S1:.*]] = llvm.insertvalue %[[SCALE]], %[[S0]][0]
// CHECK-NEXT:    %[[S2:.*]] = llvm.insertvalue %[[SCALE]], %[[S1]][1]
// CHECK-NEXT:    %[[SOFFSET:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK-NEXT:    %[[S3:.*]] = llvm.insertvalue %[[SOFFSET]], %[[S2]][2]
// CHECK-NEXT:    %[[SONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    %[[SDESC:.*]] = llvm.alloca %[[SONE]] x !llvm.struct<(ptr, ptr, i64)> : (i64) -> !llvm.ptr
// CHECK-NEXT:    llvm.store %[[S3]], %[[SDESC]]

// y, the output, is a descriptor like x's.
// CHECK:         llvm.insertvalue %[[Y]], %{{.*}}[0]
// CHECK-NEXT:    llvm.insertvalue %[[Y]], %{{.*}}[1]
// CHECK:         %[[YDESC:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT:    llvm.store %{{.*}}, %[[YDESC]]

// CHECK-NEXT:    llvm.call @_mlir_ciface___tfm_entry(%[[XDESC]], %[[SDESC]], %[[YDESC]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:    %[[OK:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.return %[[OK]] : i32

// CHECK-LABEL: llvm.func @tfm_run(
// CHECK-SAME:    %[[BUFFERS:[^:]+]]: !llvm.ptr) -> i32 {
// CHECK-NEXT:    %[[P0:.*]] = llvm.getelementptr %[[BUFFERS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[B0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P1:.*]] = llvm.getelementptr %[[BUFFERS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[B1:.*]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P2:.*]] = llvm.getelementptr %[[BUFFERS]][2] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[B2:.*]] = llvm.load %[[P2]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[R:.*]] = llvm.call @tfm_main(%[[B0]], %[[B1]], %[[B2]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-NEXT:    llvm.return %[[R]] : i32

// CHECK: llvm.mlir.global external constant @tfm_signature("tfm-signature-v1\0Ain x f32 2x5\0Ain scale f32 scalar\0Aout y f16 2x5\0A\00")

module attributes {tfm.entry_signature = {
    name = "main",
    inputs = [{name = "x", type = tensor<2x5xf32>},
              {name = "scale", type = tensor<f32>}],
    outputs = [{name = "y", type = tensor<2x5xf16>}]}} {
  llvm.func @_mlir_ciface___tfm_entry(!llvm.ptr, !llvm.ptr, !llvm.ptr)
}
