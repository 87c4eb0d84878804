// The pipelines' options are enumerations where they name a choice: an
// unknown stage or kernel format is refused with the option's name.

// RUN: not tfm-opt %s --tfm-cpu-pipeline=stop-after=everything 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: for the --stop-after option: Cannot find option named 'everything'!
// RUN: not tfm-opt %s --tfm-gpu-pipeline=stop-after=vector 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: for the --stop-after option: Cannot find option named 'vector'!
// RUN: not tfm-opt %s --tfm-gpu-pipeline=format=sass 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: for the --format option: Cannot find option named 'sass'!

// Each stage name is accepted.
// RUN: tfm-opt %s --tfm-cpu-pipeline=stop-after=vector | FileCheck %s --check-prefix=VECTOR
// VECTOR: vector.transfer_read
// RUN: tfm-opt %s --tfm-gpu-pipeline="stop-after=bufferized shared-memory-bytes=4096 block-size=64" | FileCheck %s --check-prefix=BUFFERIZED
// BUFFERIZED: memref<4x16xf32>

func.func @main(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = tfm.gelu %x : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
