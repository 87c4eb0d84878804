// tfm-opt runs the GPU pipeline that `tfm-compile --target=nvptx` runs, and
// stops where asked. Flash attention over 64 queries in tiles of 32 queries
// and 16 keys, so that its query tiles become blocks.

// RUN: tfm-opt %s --tfm-gpu-pipeline="stop-after=bufferized attention-q-tile=32 attention-kv-tile=16" | FileCheck %s --check-prefix=BUFFERIZED
// RUN: tfm-opt %s --tfm-gpu-pipeline="stop-after=gpu attention-q-tile=32 attention-kv-tile=16" | FileCheck %s --check-prefix=GPU
// RUN: tfm-opt %s --tfm-gpu-pipeline="stop-after=nvvm attention-q-tile=32 attention-kv-tile=16 chip=sm_80 features=+ptx70" | FileCheck %s --check-prefix=NVVM
// RUN: tfm-opt %s --tfm-gpu-pipeline="attention-q-tile=32 attention-kv-tile=16" | FileCheck %s --check-prefix=LLVM

// Buffers, with the query tiles still an scf.forall over (batch, tile).
// BUFFERIZED: func.func @main(%{{.*}}: memref<2x64x16xf32>, %{{.*}}: memref<2x64x16xf32>, %{{.*}}: memref<2x64x16xf32>, %{{.*}}: memref<2x64x16xf32>)
// BUFFERIZED: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (2, 64) step (1, 32)

// The host copies the inputs to the device, launches the kernels on one
// stream and copies the result back. All kernels are in one module; the
// attention kernel has a block per (batch, query tile), its tiles (and the
// query, key and value tiles it reads) in dynamic shared memory, and
// barriers between its steps; it starts its state and normalizes its rows
// itself, so the result is copied back right after it.
// GPU:      func.func @main(%[[Q:.*]]: memref<2x64x16xf32>, %{{.*}}: memref<2x64x16xf32>, %{{.*}}: memref<2x64x16xf32>, %[[OUT:.*]]: memref<2x64x16xf32>)
// GPU:        %[[DQ:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] () : memref<2x64x16xf32>
// GPU:        gpu.memcpy async [%{{.*}}] %[[DQ]], %[[Q]]
// GPU:        gpu.launch_func async [%{{.*}}] @main_kernel::@[[ATTENTION:main_kernel_[0-9]+]] blocks in (%c2, %c2, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %{{.*}} args(
// GPU-NEXT:   gpu.memcpy async [%{{.*}}] %[[OUT]], %{{.*}}
// GPU:        gpu.wait [%{{.*}}]
// GPU:        return
// GPU:      gpu.module @main_kernel {
// GPU-NOT:  gpu.module
// GPU:        gpu.func @[[ATTENTION]]({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 2, 2, 1>}
// GPU:          %[[T:.*]] = gpu.thread_id x
// GPU:          %[[SHARED:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// GPU:          memref.view %[[SHARED]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x16xf32, #gpu.address_space<workgroup>>
// GPU:          gpu.barrier
// GPU:          scf.for %{{.*}} = %[[T]] to %{{.*}} step %{{.*}} {
// GPU:          math.exp
// GPU:          gpu.barrier
// GPU:          arith.divf
// GPU:          gpu.return

// The kernels in NVVM, for the requested chip.
// NVVM:      gpu.module @main_kernel [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">]
// NVVM:        llvm.func @main_kernel_0(
// NVVM-SAME:     gpu.kernel
// NVVM:          nvvm.read.ptx.sreg.tid.x
// NVVM:          nvvm.barrier0
// NVVM-NOT:      math.exp

// Everything in LLVM, the kernels compiled and embedded as PTX.
// LLVM:      llvm.func @main(
// LLVM:        %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// LLVM:        gpu.launch_func <%[[STREAM]] : !llvm.ptr> @main_kernel::@main_kernel_0 blocks in
// LLVM:        llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// LLVM:      gpu.binary @main_kernel {{ *}}[#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties = {{.*}}, assembly = "{{.*}}.target sm_90

func.func @main(%q: tensor<2x64x16xf32>, %k: tensor<2x64x16xf32>,
                %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  %0 = tfm.attention %q, %k, %v {causal}
      : (tensor<2x64x16xf32>, tensor<2x64x16xf32>, tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  return %0 : tensor<2x64x16xf32>
}
