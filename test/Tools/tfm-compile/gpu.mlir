// tfm-compile --target=nvptx: the kernels' PTX, the stages of the GPU
// pipeline, and the diagnostics for bad GPU options.

// RUN: tfm-compile %s --target=nvptx --emit=ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: tfm-compile %s --target=nvptx --gpu-arch=sm_80 --emit=ptx -o - | FileCheck %s --check-prefix=SM80
// RUN: tfm-compile %s --target=nvptx --gpu-arch=sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=SM90A
// RUN: tfm-compile %s --target=nvptx --emit=mlir --stage=gpu -o - | FileCheck %s --check-prefix=GPU
// RUN: tfm-compile %s --target=nvptx --gpu-format=ptx --emit=mlir -o - | FileCheck %s --check-prefix=EMBEDDED

// One module of kernels for Hopper: the attention kernel keeps its tiles in
// shared memory and synchronizes its threads.
// PTX:       // Kernel module @__tfm_entry_kernel for #nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// PTX:       .version 8.0
// PTX-NEXT:  .target sm_90
// PTX-NEXT:  .address_size 64
// PTX:       .visible .entry __tfm_entry_kernel(
// PTX:       .visible .entry __tfm_entry_kernel_0(
// PTX:       .shared .align 16 .b8 __dynamic_shmem__0;
// PTX:       ld.shared.b32
// PTX:       bar.sync 0;
// PTX-NOT:   .version

// SM80:      .version 7.0
// SM80-NEXT: .target sm_80
// SM90A:     .target sm_90a

// GPU:       gpu.module @__tfm_entry_kernel
// GPU-NOT:   gpu.module
// GPU:       gpu.func @__tfm_entry_kernel_0(
// GPU:         gpu.dynamic_shared_memory

// No kernel ends with a barrier, which the mapping leaves after a block's
// last stores (tfm-gpu-drop-redundant-barriers erases it); the kernels on
// one line, so that one pattern spans a barrier and the return after it.
// RUN: tfm-compile %s --target=nvptx --emit=mlir --stage=gpu -o %t.gpu.mlir
// RUN: tr '\n' ' ' < %t.gpu.mlir | FileCheck %s --check-prefix=ENDS
// ENDS:      gpu.func @__tfm_entry_kernel
// ENDS-NOT:  gpu.barrier {{ *}}gpu.return

// EMBEDDED:  gpu.binary @__tfm_entry_kernel {{.*}}assembly = "
// The host has the C entry points too.
// EMBEDDED:  llvm.func @tfm_main(
// EMBEDDED:    llvm.call @_mlir_ciface___tfm_entry(
// EMBEDDED:  llvm.func @tfm_run(

// RUN: not tfm-compile %s --target=nvptx --gpu-arch=gfx90a -o %t 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: unknown GPU architecture 'gfx90a' for --gpu-arch (expected sm_XX, e.g. sm_90 or sm_90a)
// RUN: not tfm-compile %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=PTXCPU
// PTXCPU: error: --emit=ptx needs --target=nvptx
// RUN: not tfm-compile %s --gpu-tensor-cores -o %t 2>&1 | FileCheck %s --check-prefix=TCCPU
// TCCPU: error: --gpu-tensor-cores needs --target=nvptx
// RUN: not tfm-compile %s --target=nvptx --gpu-arch=sm_75 --gpu-tensor-cores -o %t 2>&1 | FileCheck %s --check-prefix=TC75
// TC75: error: --gpu-tensor-cores needs --gpu-arch=sm_80 or newer (mma.sync m16n8k16), not sm_75
// RUN: not tfm-compile %s --target=nvptx --gpu-tf32 -o %t 2>&1 | FileCheck %s --check-prefix=TF32
// TF32: error: --gpu-tf32 needs --gpu-tensor-cores
// RUN: not tfm-compile %s --target=nvptx --gpu-format=sass -o %t 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: tfm-compile: for the --gpu-format option: Cannot find option named 'sass'!
// RUN: not tfm-compile %s --target=nvptx --emit=mlir --stage=vector 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: error: unknown stage 'vector' for --stage (graph|linalg|bufferized|gpu|nvvm|llvm)
// Shared memory is the architecture's: 227 KiB on sm_90, 64 KiB on sm_75.
// RUN: tfm-compile %s --target=nvptx --attention-q-tile=128 --attention-kv-tile=128 --emit=ptx -o /dev/null
// RUN: not tfm-compile %s --target=nvptx --gpu-arch=sm_75 --attention-q-tile=128 --attention-kv-tile=128 -o %t 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: error: 'memref.alloc' op needs {{[0-9]+}} bytes of shared memory per block, more than the 65536 available; use smaller tiles

func.func @main(%q: tensor<2x256x64xf32>, %k: tensor<2x256x64xf32>,
                %v: tensor<2x256x64xf32>) -> tensor<2x256x64xf32> {
  %0 = tfm.attention %q, %k, %v {causal}
      : (tensor<2x256x64xf32>, tensor<2x256x64xf32>, tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
  return %0 : tensor<2x256x64xf32>
}
