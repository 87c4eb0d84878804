// RUN: tfm-opt %s --pass-pipeline="builtin.module(gpu.module(tfm-gpu-register-budget))" | FileCheck %s
// RUN: tfm-opt %s --pass-pipeline="builtin.module(gpu.module(tfm-gpu-register-budget{max-registers=96}))" | FileCheck %s --check-prefix=NINETY-SIX

// A kernel with a tensor-core instruction gets the budget (nvvm.maxnreg,
// PTX's .maxnreg); a kernel without one, a function that is not a kernel,
// and a kernel with a budget of its own are left alone.

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.func @mma(%{{.*}}) attributes {nvvm.kernel, nvvm.maxnreg = 255 : i32}
// CHECK:         llvm.func @plain() attributes {nvvm.kernel} {
// CHECK:         llvm.func @device(%{{.*}}) {
// CHECK:         llvm.func @own(%{{.*}}) attributes {nvvm.kernel, nvvm.maxnreg = 200 : i32}
// NINETY-SIX:    llvm.func @mma(%{{.*}}) attributes {nvvm.kernel, nvvm.maxnreg = 96 : i32}
gpu.module @kernels {
  llvm.func @mma(%a: vector<2xf16>) attributes {nvvm.kernel} {
    %c = llvm.mlir.constant(0.0 : f32) : f32
    %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>}
      : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    llvm.return
  }
  llvm.func @plain() attributes {nvvm.kernel} {
    llvm.return
  }
  llvm.func @device(%a: vector<2xf16>) {
    %c = llvm.mlir.constant(0.0 : f32) : f32
    %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>}
      : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    llvm.return
  }
  llvm.func @own(%a: vector<2xf16>) attributes {nvvm.kernel, nvvm.maxnreg = 200 : i32} {
    %c = llvm.mlir.constant(0.0 : f32) : f32
    %d = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>}
      : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    llvm.return
  }
}
