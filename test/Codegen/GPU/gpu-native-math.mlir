// RUN: tfm-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(tfm-gpu-native-math))" | FileCheck %s
// RUN: tfm-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(tfm-gpu-native-math{libdevice=false}))" --verify-diagnostics -o /dev/null

// The libdevice functions PTX has instructions for get bodies: the LLVM
// intrinsics. The others stay declarations for libdevice to define.

// CHECK-LABEL: gpu.module @kernels
// CHECK:         llvm.func internal @__nv_sqrtf(%[[X:.*]]: f32) -> f32 {
// CHECK-NEXT:      %[[R:.*]] = llvm.intr.sqrt(%[[X]]) : (f32) -> f32
// CHECK-NEXT:      llvm.return %[[R]] : f32
// CHECK:         llvm.func internal @__nv_floorf(%{{.*}}: f32) -> f32 {
// CHECK-NEXT:      llvm.intr.floor
// CHECK:         llvm.func internal @__nv_fmaf(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[C:.*]]: f32) -> f32 {
// CHECK-NEXT:      llvm.intr.fma(%[[A]], %[[B]], %[[C]])
gpu.module @kernels {
  llvm.func @__nv_sqrtf(f32) -> f32
  llvm.func @__nv_floorf(f32) -> f32
  llvm.func @__nv_fmaf(f32, f32, f32) -> f32
  llvm.func @kernel(%x: f32) -> f32 {
    %0 = llvm.call @__nv_sqrtf(%x) : (f32) -> f32
    %1 = llvm.call @__nv_floorf(%0) : (f32) -> f32
    %2 = llvm.call @__nv_fmaf(%0, %1, %x) : (f32, f32, f32) -> f32
    llvm.return %2 : f32
  }
}

// -----

// CHECK-LABEL: gpu.module @trigonometry
// CHECK:         llvm.func @__nv_sinf(f32) -> f32
// CHECK-NOT:     llvm.intr
gpu.module @trigonometry {
  llvm.func @__nv_sinf(f32) -> f32
  llvm.func @kernel(%x: f32) -> f32 {
    // expected-error @below {{the kernel calls __nv_sinf from CUDA's libdevice, and no CUDA toolkit with libdevice was found (install one, or set CUDA_HOME)}}
    %0 = llvm.call @__nv_sinf(%x) : (f32) -> f32
    llvm.return %0 : f32
  }
}
