// tfm-opt reproduces tfm-compile at every stage: tfm-compile's IR work
// before lowering is the passes tfm-bind-weights and tfm-prepare-entry,
// after the llvm stage the pass tfm-emit-c-interface, and its pipelines are
// the registered ones. Each pair of RUN lines must print
// the same IR (tfm-compile's --cpu and tfm-opt's tfm-set-cpu-target name the
// same CPU, which both record as the module's tfm.target; the GPU kernels are embedded as PTX, and tfm-opt is given the CUDA
// toolkit that tfm-compile finds).

// RUN: tfm-compile %s --emit=mlir --stage=graph --cpu=skylake-avx512 -o %t.compile.graph
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-set-cpu-target=cpu=skylake-avx512 --tfm-cpu-pipeline=stop-after=graph -o %t.opt.graph
// RUN: diff -B %t.compile.graph %t.opt.graph

// RUN: tfm-compile %s --emit=mlir --stage=linalg --cpu=skylake-avx512 -o %t.compile.linalg
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-set-cpu-target=cpu=skylake-avx512 --tfm-cpu-pipeline=stop-after=linalg -o %t.opt.linalg
// RUN: diff -B %t.compile.linalg %t.opt.linalg

// RUN: tfm-compile %s --emit=mlir --stage=vector --cpu=skylake-avx512 -o %t.compile.vector
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-set-cpu-target=cpu=skylake-avx512 --tfm-cpu-pipeline=stop-after=vector -o %t.opt.vector
// RUN: diff -B %t.compile.vector %t.opt.vector

// RUN: tfm-compile %s --emit=mlir --stage=bufferized --cpu=skylake-avx512 -o %t.compile.bufferized
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-set-cpu-target=cpu=skylake-avx512 --tfm-cpu-pipeline=stop-after=bufferized -o %t.opt.bufferized
// RUN: diff -B %t.compile.bufferized %t.opt.bufferized

// RUN: tfm-compile %s --emit=mlir --cpu=skylake-avx512 -o %t.compile.llvm
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-set-cpu-target=cpu=skylake-avx512 --tfm-cpu-pipeline --tfm-emit-c-interface -o %t.opt.llvm
// RUN: diff -B %t.compile.llvm %t.opt.llvm

// The options reach both: tile sizes, the fusion switch and the profiler.
// RUN: tfm-compile %s --emit=mlir --stage=linalg --cpu=skylake-avx512 --attention-q-tile=4 --attention-kv-tile=8 --no-fusion -o %t.compile.options
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-set-cpu-target=cpu=skylake-avx512 --tfm-cpu-pipeline="stop-after=linalg attention-q-tile=4 attention-kv-tile=8 fusion=false" -o %t.opt.options
// RUN: diff -B %t.compile.options %t.opt.options
// RUN: tfm-compile %s --emit=mlir --stage=bufferized --cpu=skylake-avx512 --profile -o %t.compile.profile
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-set-cpu-target=cpu=skylake-avx512 --tfm-cpu-pipeline="stop-after=bufferized profile=true" -o %t.opt.profile
// RUN: diff -B %t.compile.profile %t.opt.profile

// RUN: tfm-compile %s --target=nvptx --gpu-format=ptx --emit=mlir --stage=graph -o %t.compile.gpu-graph
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-gpu-pipeline=stop-after=graph -o %t.opt.gpu-graph
// RUN: diff -B %t.compile.gpu-graph %t.opt.gpu-graph

// RUN: tfm-compile %s --target=nvptx --gpu-format=ptx --emit=mlir --stage=linalg -o %t.compile.gpu-linalg
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-gpu-pipeline=stop-after=linalg -o %t.opt.gpu-linalg
// RUN: diff -B %t.compile.gpu-linalg %t.opt.gpu-linalg

// RUN: tfm-compile %s --target=nvptx --gpu-format=ptx --emit=mlir --stage=bufferized -o %t.compile.gpu-bufferized
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-gpu-pipeline=stop-after=bufferized -o %t.opt.gpu-bufferized
// RUN: diff -B %t.compile.gpu-bufferized %t.opt.gpu-bufferized

// RUN: tfm-compile %s --target=nvptx --gpu-format=ptx --emit=mlir --stage=gpu -o %t.compile.gpu
// RUN: tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-gpu-pipeline=stop-after=gpu -o %t.opt.gpu
// RUN: diff -B %t.compile.gpu %t.opt.gpu

// RUN: tfm-compile %s --target=nvptx --gpu-format=ptx --emit=mlir --stage=nvvm -o %t.compile.nvvm
// RUN: %gpu_toolkit_env tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-gpu-pipeline="stop-after=nvvm %gpu_toolkit_options" -o %t.opt.nvvm
// RUN: diff -B %t.compile.nvvm %t.opt.nvvm

// The last stage, with the kernels compiled to PTX by LLVM's NVPTX backend
// (the toolkit options are the ones tfm-compile finds on this machine) and
// the C entry points. The binary records how long LLVM took to compile it,
// which is dropped before comparing.
// RUN: tfm-compile %s --target=nvptx --gpu-format=ptx --emit=mlir | sed -E 's/LLVMIRToISATimeInMs = [0-9]+ : i64, //' > %t.compile.gpu-llvm
// RUN: %gpu_toolkit_env tfm-opt %s --tfm-bind-weights --tfm-prepare-entry --tfm-gpu-pipeline="format=isa %gpu_toolkit_options" --tfm-emit-c-interface | sed -E 's/LLVMIRToISATimeInMs = [0-9]+ : i64, //' > %t.opt.gpu-llvm
// RUN: diff -B %t.compile.gpu-llvm %t.opt.gpu-llvm
// RUN: FileCheck %s --check-prefix=GPU-LLVM --input-file=%t.opt.gpu-llvm
// GPU-LLVM: gpu.binary @__tfm_entry_kernel
// GPU-LLVM: llvm.func @tfm_main(

// And the entry is what both prepare: renamed, with its signature recorded,
// in a module that records the CPU.
// RUN: FileCheck %s --input-file=%t.opt.graph
// CHECK: module attributes {tfm.entry_signature = {inputs = [{name = "x", type = tensor<2x8x16xf32>}, {name = "lens", type = tensor<2xi64>}], name = "main", outputs = [{name = "y", type = tensor<2x8x16xf32>}]}, tfm.target = #tfm.cpu<name = "skylake-avx512", isa = "avx512", vector_bits = 512, vector_registers = 32, features = ["fma", "avx2", "avx512f"], l1_bytes = 49152, l2_bytes = 2097152, l3_bytes = 33554432>}
// CHECK: func.func @__tfm_entry(

// At the llvm stage, both have the C entry points.
// RUN: FileCheck %s --check-prefix=LLVM --input-file=%t.opt.llvm
// LLVM: llvm.func @tfm_main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// LLVM: llvm.func @tfm_run(%{{.*}}: !llvm.ptr) -> i32
// LLVM: llvm.mlir.global external constant @tfm_signature(

func.func @main(%x: tensor<2x8x16xf32> {tfm.name = "x"},
                %lens: tensor<2xi64> {tfm.name = "lens"})
    -> (tensor<2x8x16xf32> {tfm.name = "y"}) {
  %a = tfm.attention %x, %x, %x valid_lens(%lens) {causal}
      : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2xi64>) -> tensor<2x8x16xf32>
  %g = tfm.gelu %a : tensor<2x8x16xf32>
  return %g : tensor<2x8x16xf32>
}
