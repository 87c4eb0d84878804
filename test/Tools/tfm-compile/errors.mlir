// Inputs tfm-compile cannot compile get a diagnostic and a non-zero exit.

// RUN: not tfm-compile %s --entry dynamic -o %t 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: errors.mlir:[[@LINE+1]]:1: error: entry @dynamic: dimension 0 of result 0 (result0) is computed from the inputs' sizes other than as their sum
func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %r = tensor.collapse_shape %x [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  return %r : tensor<?xf32>
}

// RUN: not tfm-compile %s --entry int8 -o %t 2>&1 | FileCheck %s --check-prefix=INT8
// INT8: error: entry @int8: input 0 has elements of type 'i8'; a compiled entry exchanges f32, f16, bf16, f64, i32, i64 or i1 (bool)
func.func @int8(%x: tensor<4xi8>) -> tensor<4xi8> {
  return %x : tensor<4xi8>
}

// An entry whose C function tfm_<entry> would be one of the binary's other
// symbols (the binary used to crash on the clash).
// RUN: not tfm-compile %s --entry run -o %t 2>&1 | FileCheck %s --check-prefix=RUN-NAME
// RUN-NAME: errors.mlir:[[@LINE+1]]:1: error: entry @run: its C function would be tfm_run, which is the name of the packed entry point of every tfm binary; rename the entry
func.func @run(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// RUN: not tfm-compile %s --entry signature -o %t 2>&1 | FileCheck %s --check-prefix=SIGNATURE-NAME
// SIGNATURE-NAME: error: entry @signature: its C function would be tfm_signature, which is the name of the signature text of every tfm binary; rename the entry
func.func @signature(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// RUN: not tfm-compile %s --entry weighted -o %t 2>&1 | FileCheck %s --check-prefix=NOWEIGHTS
// NOWEIGHTS: error: entry @weighted has 1 weight argument(s) but no --weights file was given; the first is argument 1 ('w')
func.func @weighted(%x: tensor<4xf32>, %w: tensor<4xf32> {tfm.weight = "w"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// RUN: not tfm-compile %s -o %t 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: error: several public functions and no @main; name the entry with --entry

// RUN: not tfm-compile %s --entry nothere -o %t 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: no function @nothere to compile (--entry)

// RUN: not tfm-compile %s --entry int8 --emit=mlir --stage=everything 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: error: unknown stage 'everything' for --stage (graph|linalg|vector|bufferized|llvm)

// RUN: not tfm-compile %s --entry int8 --stage=graph 2>&1 | FileCheck %s --check-prefix=STAGEEMIT
// STAGEEMIT: error: --stage needs --emit=mlir

// RUN: not tfm-compile %s --entry int8 --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: tfm-compile: for the --target option: Cannot find option named 'tpu'!

// RUN: not tfm-compile %s --entry weighted --weights %t.missing.safetensors 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: cannot read weights file '{{.*}}missing.safetensors'

// RUN: printf 'garbage' > %t.short.safetensors
// RUN: not tfm-compile %s --entry weighted --weights %t.short.safetensors 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: weights file '{{.*}}' is too short to be a safetensors file

// RUN: printf '\377\000\000\000\000\000\000\000{}' > %t.trunc.safetensors
// RUN: not tfm-compile %s --entry weighted --weights %t.trunc.safetensors 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: error: weights file '{{.*}}' is truncated: its header claims 255 bytes

// RUN: printf '\004\000\000\000\000\000\000\000{x}]' > %t.json.safetensors
// RUN: not tfm-compile %s --entry weighted --weights %t.json.safetensors 2>&1 | FileCheck %s --check-prefix=JSON
// JSON: error: weights file '{{.*}}' has a malformed header

// A malformed entry names the tensor and the field that is wrong.
// RUN: %python -c "import json, struct, sys; h = json.dumps({'w': {'dtype': 'F32', 'shape': [2, -1], 'data_offsets': [0, 8]}}).encode(); sys.stdout.buffer.write(struct.pack('<Q', len(h)) + h + bytes(8))" > %t.shape.safetensors
// RUN: not tfm-compile %s --entry weighted --weights %t.shape.safetensors 2>&1 | FileCheck %s --check-prefix=FIELD-SHAPE
// FIELD-SHAPE: error: weights file '{{.*}}' has a malformed entry for 'w': 'shape' holds something other than a size
// RUN: %python -c "import json, struct, sys; h = json.dumps({'w': {'dtype': 'F32', 'shape': [2], 'data_offsets': [8, 0]}}).encode(); sys.stdout.buffer.write(struct.pack('<Q', len(h)) + h + bytes(8))" > %t.offsets.safetensors
// RUN: not tfm-compile %s --entry weighted --weights %t.offsets.safetensors 2>&1 | FileCheck %s --check-prefix=FIELD-OFFSETS
// FIELD-OFFSETS: error: weights file '{{.*}}' has a malformed entry for 'w': 'data_offsets' are not two ascending offsets
// RUN: %python -c "import json, struct, sys; h = json.dumps({'w': {'shape': [2], 'data_offsets': [0, 8]}}).encode(); sys.stdout.buffer.write(struct.pack('<Q', len(h)) + h + bytes(8))" > %t.dtype.safetensors
// RUN: not tfm-compile %s --entry weighted --weights %t.dtype.safetensors 2>&1 | FileCheck %s --check-prefix=FIELD-DTYPE
// FIELD-DTYPE: error: weights file '{{.*}}' has a malformed entry for 'w': 'dtype' is missing or not a string
