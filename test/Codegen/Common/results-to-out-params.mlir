// RUN: tfm-opt %s -split-input-file --tfm-results-to-out-params | FileCheck %s

// tfm-results-to-out-params: upstream's buffer-results-to-out-params,
// except that a private function's results of dynamic size stay results
// (only it knows their sizes), and that where the public caller only
// copies such a result into its own out-parameter, through the dispatch
// of a tensor-parallel entry to its rank's function, the callee writes
// into that out-parameter instead of a buffer of its own.

// CHECK-LABEL: func.func private @main_rank0(
//  CHECK-SAME:     %[[N:.*]]: index, %[[OUT:.*]]: memref<?xf32>) {
//   CHECK-NOT:   memref.alloc
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[OUT]] : memref<?xf32>)
//       CHECK:   return
// CHECK-LABEL: func.func @main(
//  CHECK-SAME:     %[[N:.*]]: index, %[[RANK:.*]]: index, %[[OUT:.*]]: memref<?xf32>) {
//       CHECK:   scf.index_switch %[[RANK]]
//       CHECK:     func.call @main_rank1(%[[N]], %[[OUT]]) : (index, memref<?xf32>) -> ()
//       CHECK:     func.call @main_rank0(%[[N]], %[[OUT]]) : (index, memref<?xf32>) -> ()
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func private @main_rank0(%n: index) -> memref<?xf32> {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  return %a : memref<?xf32>
}
func.func private @main_rank1(%n: index) -> memref<?xf32> {
  %one = arith.constant 1.0 : f32
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
  return %a : memref<?xf32>
}
func.func @main(%n: index, %rank: index) -> memref<?xf32> {
  %r = scf.index_switch %rank -> memref<?xf32>
  case 1 {
    %c = func.call @main_rank1(%n) : (index) -> memref<?xf32>
    scf.yield %c : memref<?xf32>
  }
  default {
    %c = func.call @main_rank0(%n) : (index) -> memref<?xf32>
    scf.yield %c : memref<?xf32>
  }
  return %r : memref<?xf32>
}

// -----

// A private function whose dynamic result its caller reads: it stays a
// result (the caller could not allocate it), and the caller's own result
// is copied into its out-parameter.
// CHECK-LABEL: func.func private @make(
//  CHECK-SAME:     %{{.*}}: index) -> memref<?xf32>
// CHECK-LABEL: func.func @reads(
//  CHECK-SAME:     %[[N:.*]]: index, %[[OUT:.*]]: memref<?xf32>) {
//       CHECK:   %[[R:.*]] = call @make(%[[N]]) : (index) -> memref<?xf32>
//       CHECK:   memref.copy %[[R]], %[[OUT]]
func.func private @make(%n: index) -> memref<?xf32> {
  %a = memref.alloc(%n) : memref<?xf32>
  return %a : memref<?xf32>
}
func.func @reads(%n: index) -> memref<?xf32> {
  %r = call @make(%n) : (index) -> memref<?xf32>
  return %r : memref<?xf32>
}
