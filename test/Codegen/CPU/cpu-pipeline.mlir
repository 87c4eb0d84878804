// tfm-opt runs the pipeline that tfm-compile runs, and stops where asked.

// RUN: tfm-opt %s --tfm-graph-optimizer | FileCheck %s --check-prefix=GRAPH
// RUN: tfm-opt %s --tfm-cpu-pipeline="stop-after=graph" | FileCheck %s --check-prefix=GRAPH
// RUN: tfm-opt %s --tfm-cpu-pipeline="stop-after=linalg" | FileCheck %s --check-prefix=LINALG
// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=avx2 --tfm-cpu-pipeline="stop-after=vector" | FileCheck %s --check-prefix=VECTOR
// RUN: tfm-opt %s --tfm-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// The private helper is inlined and removed; the dropout folds away.
// GRAPH-LABEL: func.func @main(
// GRAPH-NOT: call
// GRAPH-NOT: tfm.dropout
// GRAPH: tfm.attention {{.*}} {causal}
// GRAPH-NOT: func.func @block

// Attention is tiled into flash attention: query tiles in parallel, and
// key blocks with an online softmax.
// LINALG-NOT: tfm.attention
// LINALG: scf.forall
// LINALG: linalg.matmul
// LINALG: math.exp
// LINALG: linalg.matmul

// VECTOR-NOT: linalg.
// VECTOR: vector<1x1x8xf32>

// LLVM-NOT: tensor<
// LLVM: llvm.func @main(

func.func private @block(%q: tensor<2x9x16xf32>) -> tensor<2x9x16xf32> {
  %a = tfm.attention %q, %q, %q {causal}
      : (tensor<2x9x16xf32>, tensor<2x9x16xf32>, tensor<2x9x16xf32>)
      -> tensor<2x9x16xf32>
  %d = tfm.dropout %a {rate = 0.1 : f64} : tensor<2x9x16xf32>
  return %d : tensor<2x9x16xf32>
}

func.func @main(%q: tensor<2x9x16xf32>) -> tensor<2x9x16xf32> {
  %0 = func.call @block(%q) : (tensor<2x9x16xf32>) -> tensor<2x9x16xf32>
  return %0 : tensor<2x9x16xf32>
}
