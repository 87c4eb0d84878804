// The vector width follows the CPU: 16 f32 lanes with AVX-512, 8 with AVX2,
// 4 with SSE only.

// RUN: tfm-compile %s --mcpu=skylake-avx512 --emit=mlir --stage=vector -o - | FileCheck %s --check-prefix=AVX512
// RUN: tfm-compile %s --mcpu=haswell --emit=mlir --stage=vector -o - | FileCheck %s --check-prefix=AVX2
// RUN: tfm-compile %s --mcpu=x86-64 --emit=mlir --stage=vector -o - | FileCheck %s --check-prefix=SSE
// RUN: not tfm-compile %s --mcpu=not-a-cpu -o %t 2>&1 | FileCheck %s --check-prefix=BAD

// AVX512: math.tanh {{.*}} : vector<1x16xf32>
// AVX2: math.tanh {{.*}} : vector<1x8xf32>
// SSE: math.tanh {{.*}} : vector<1x4xf32>
// BAD: error: unknown CPU 'not-a-cpu'

func.func @main(%x: tensor<2x32xf32>) -> tensor<2x32xf32> {
  %t = math.tanh %x : tensor<2x32xf32>
  return %t : tensor<2x32xf32>
}
