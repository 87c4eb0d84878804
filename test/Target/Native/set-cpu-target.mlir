// tfm-set-cpu-target records what code generation reads of a CPU on the
// module: the ISA and vector registers from LLVM's description of the CPU,
// and (for a CPU other than the host's) the caches of its ISA's generation.
// avx2 and avx512 name x86-64-v3 and x86-64-v4; an unknown CPU is an error.

// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=haswell | FileCheck %s --check-prefix=HASWELL
// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=avx2 | FileCheck %s --check-prefix=AVX2
// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=avx512 | FileCheck %s --check-prefix=AVX512
// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=x86-64 | FileCheck %s --check-prefix=SSE
// RUN: not tfm-opt %s --tfm-set-cpu-target=cpu=not-a-cpu 2>&1 | FileCheck %s --check-prefix=BAD

// HASWELL: module attributes {tfm.target = #tfm.cpu<name = "haswell", isa = "avx2", vector_bits = 256, vector_registers = 16, features = ["fma", "avx2"], l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>}
// AVX2: #tfm.cpu<name = "x86-64-v3", isa = "avx2", vector_bits = 256, vector_registers = 16,
// AVX512: #tfm.cpu<name = "x86-64-v4", isa = "avx512", vector_bits = 512, vector_registers = 32, features = ["fma", "avx2", "avx512f"], l1_bytes = 49152, l2_bytes = 2097152, l3_bytes = 33554432>
// SSE: #tfm.cpu<name = "x86-64", isa = "sse", vector_bits = 128, vector_registers = 16, features = []
// BAD: error: unknown CPU 'not-a-cpu'

func.func @main(%x: tensor<2x32xf32>) -> tensor<2x32xf32> {
  return %x : tensor<2x32xf32>
}
