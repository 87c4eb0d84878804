// RUN: tfm-opt %s --tfm-merge-gpu-modules | FileCheck %s

// Kernels with the same name in different modules end up in the first
// module, the second one renamed, and each launch follows its kernel.

// CHECK-LABEL: func.func @main
// CHECK:         gpu.launch_func @first::@kernel blocks
// CHECK:         gpu.launch_func @first::@kernel_0 blocks
// CHECK:       gpu.module @first {
// CHECK:         gpu.func @kernel() kernel {
// CHECK:           arith.constant 1
// CHECK:         gpu.func @kernel_0() kernel {
// CHECK:           arith.constant 2
// CHECK-NOT:   gpu.module
module attributes {gpu.container_module} {
  func.func @main() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @first::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @second::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @first {
    gpu.func @kernel() kernel {
      %0 = arith.constant 1 : i32
      gpu.return
    }
  }
  gpu.module @second {
    gpu.func @kernel() kernel {
      %0 = arith.constant 2 : i32
      gpu.return
    }
  }
}
