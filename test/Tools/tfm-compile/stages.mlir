// tfm-compile stops after any stage of the CPU pipeline and prints the IR.

// RUN: tfm-compile %s --emit=mlir --stage=graph -o - | FileCheck %s --check-prefix=GRAPH
// RUN: tfm-compile %s --emit=mlir --stage=linalg -o - | FileCheck %s --check-prefix=LINALG
// RUN: tfm-compile %s --emit=mlir --stage=vector --mcpu=skylake-avx512 -o - | FileCheck %s --check-prefix=VECTOR
// RUN: tfm-compile %s --emit=mlir --stage=bufferized -o - | FileCheck %s --check-prefix=BUFFER
// RUN: tfm-compile %s --emit=mlir -o - | FileCheck %s --check-prefix=LLVM
// RUN: tfm-compile %s --emit=llvm -o - | FileCheck %s --check-prefix=LLVMIR

// The graph optimizer folds the dropout; the entry is renamed so that it
// cannot clash with the executable's main.
// GRAPH-LABEL: func.func @__tfm_entry(
// GRAPH-NOT: tfm.dropout
// GRAPH: linalg.generic

// LINALG-NOT: = tfm.
// LINALG: linalg.generic

// Odd sizes are tiled to full vectors plus a peeled remainder, both static
// (16 lanes: the CPU is set, so that the test does not depend on the host).
// VECTOR: scf.for
// VECTOR: vector.transfer_read {{.*}} : tensor<1x16xf32>, vector<1x16xf32>
// VECTOR: math.tanh {{.*}} : vector<1x16xf32>
// VECTOR: vector.transfer_read {{.*}} : tensor<1x5xf32>, vector<1x5xf32>
// VECTOR-NOT: vector.mask

// The result became a caller-allocated out-parameter, which the last op
// writes directly: no buffer is copied into it.
// BUFFER: func.func @__tfm_entry(%{{.*}}: memref<3x21xf32>, %{{.*}}: memref<3x21xf32>)
// BUFFER-NOT: bufferization.to_tensor
// BUFFER-NOT: memref.copy

// The llvm stage has the C entry points (tfm-emit-c-interface).
// LLVM-NOT: math.tanh
// LLVM: llvm.func internal @__tfm_entry(
// LLVM: llvm.func internal @_mlir_ciface___tfm_entry(
// LLVM: llvm.func @tfm_main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// LLVM: llvm.call @_mlir_ciface___tfm_entry(
// LLVM: llvm.func @tfm_run(%{{.*}}: !llvm.ptr) -> i32
// LLVM: llvm.mlir.global external constant @tfm_signature("tfm-signature-v1\0Ain x f32 3x21\0Aout y f32 3x21\0A\00")

// LLVMIR: @tfm_signature = {{.*}}constant {{.*}} c"tfm-signature-v1\0Ain x f32 3x21\0Aout y f32 3x21\0A\00"
// LLVMIR: define {{.*}}i32 @tfm_main(ptr {{.*}}, ptr {{.*}})
// LLVMIR: define {{.*}}i32 @tfm_run(ptr

func.func @main(%x: tensor<3x21xf32> {tfm.name = "x"})
    -> (tensor<3x21xf32> {tfm.name = "y"}) {
  %d = tfm.dropout %x {rate = 0.1 : f64} : tensor<3x21xf32>
  %e = tensor.empty() : tensor<3x21xf32>
  %t = linalg.generic
      {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<3x21xf32>) outs(%e : tensor<3x21xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.tanh %in : f32
    linalg.yield %y : f32
  } -> tensor<3x21xf32>
  return %t : tensor<3x21xf32>
}
