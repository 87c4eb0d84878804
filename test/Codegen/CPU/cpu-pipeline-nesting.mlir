// The LLVM stage of tfm-cpu-pipeline runs the conversions that look at one
// function at a time nested on the functions, where MLIR runs them on
// several threads (Swin-T's 118 kernels: the vector conversion's 1.2 s on
// two cores in 0.6 s); those that add declarations to the module or change
// signatures run on the module. Either way the IR is the same (checked on
// ViT-Ti, Swin-T, BERT-base and the GPT-2 decoder at --stage=llvm when the
// nesting was introduced); this test keeps the nesting.

// RUN: tfm-opt %s --tfm-cpu-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s

// CHECK:      tfm-cpu-outline-kernels
// CHECK:      tfm-cpu-reassociate-reductions
// CHECK-NEXT: ),
// CHECK-NEXT: func.func(
// CHECK-NEXT:   convert-vector-to-scf
// CHECK-NEXT:   lower-affine
// CHECK-NEXT: ),
// CHECK-NEXT: convert-scf-to-openmp
// CHECK-NEXT: func.func(
// CHECK-NEXT:   tfm-cpu-serialize-small-loops
// CHECK-NEXT:   canonicalize
// CHECK:      tfm-expand-shape-to-reinterpret-cast,
// CHECK-NEXT: func.func(
// CHECK-NEXT:   tfm-bf16-as-bits,
// CHECK-NEXT:   expand-strided-metadata,
// CHECK-NEXT:   lower-affine,
// CHECK-NEXT:   convert-vector-to-llvm
// CHECK-NEXT:   convert-math-to-llvm
// CHECK-NEXT: ),
// CHECK-NEXT: convert-math-to-libm,
// CHECK-NEXT: finalize-memref-to-llvm
// CHECK-NEXT: func.func(
// CHECK-NEXT:   convert-arith-to-llvm
// CHECK-NEXT:   convert-index-to-llvm
// CHECK-NEXT: ),
// CHECK-NEXT: convert-func-to-llvm
// CHECK:      reconcile-unrealized-casts,
// CHECK-NEXT: llvm.func(
// CHECK-NEXT:   canonicalize

func.func @f() {
  return
}
