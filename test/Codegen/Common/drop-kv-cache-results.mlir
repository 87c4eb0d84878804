// RUN: tfm-opt %s -split-input-file --tfm-drop-kv-cache-results | FileCheck %s

// The updated cache is the argument's buffer (through a cast): the result
// goes, the other one stays.
// CHECK-LABEL: func.func @main(
//  CHECK-SAME:   %{{.*}}: memref<4x8xf32>, %[[Y:.*]]: memref<2xf32>) -> memref<2xf32> {
//       CHECK:   return %[[Y]] : memref<2xf32>
func.func @main(%cache: memref<4x8xf32>, %y: memref<2xf32>)
    -> (memref<?x8xf32> {tfm.kv_cache = 0 : i64}, memref<2xf32>) {
  %c = memref.cast %cache : memref<4x8xf32> to memref<?x8xf32>
  return %c, %y : memref<?x8xf32>, memref<2xf32>
}

// -----

// A tensor-parallel entry dispatches to its rank's function, which updates
// the entry's cache in place: the callee's cache result goes, each call's
// result is the argument it passed, and the entry's result, which every
// case of the switch yields the same, goes too.
// CHECK-LABEL: func.func private @step_rank1(
//  CHECK-SAME:   %{{.*}}: memref<4x8xf32>) -> memref<2xf32> {
// CHECK-LABEL: func.func @step(
//  CHECK-SAME:   %[[CACHE:.*]]: memref<4x8xf32>, %[[RANK:.*]]: index) -> memref<2xf32> {
//       CHECK:   %[[Y:.*]]:2 = scf.index_switch %[[RANK]] -> memref<4x8xf32>, memref<2xf32>
//       CHECK:     %[[R1:.*]] = func.call @step_rank1(%[[CACHE]]) : (memref<4x8xf32>) -> memref<2xf32>
//       CHECK:     scf.yield %[[CACHE]], %[[R1]]
//       CHECK:     %[[R0:.*]] = func.call @step_rank0(%[[CACHE]]) : (memref<4x8xf32>) -> memref<2xf32>
//       CHECK:     scf.yield %[[CACHE]], %[[R0]]
//       CHECK:   return %[[Y]]#1 : memref<2xf32>
func.func private @step_rank0(%cache: memref<4x8xf32>)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64}, memref<2xf32>) {
  %y = memref.alloc() : memref<2xf32>
  return %cache, %y : memref<4x8xf32>, memref<2xf32>
}
func.func private @step_rank1(%cache: memref<4x8xf32>)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64}, memref<2xf32>) {
  %y = memref.alloc() : memref<2xf32>
  return %cache, %y : memref<4x8xf32>, memref<2xf32>
}
func.func @step(%cache: memref<4x8xf32>, %rank: index)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64}, memref<2xf32>) {
  %r:2 = scf.index_switch %rank -> memref<4x8xf32>, memref<2xf32>
  case 1 {
    %c:2 = func.call @step_rank1(%cache) : (memref<4x8xf32>) -> (memref<4x8xf32>, memref<2xf32>)
    scf.yield %c#0, %c#1 : memref<4x8xf32>, memref<2xf32>
  }
  default {
    %c:2 = func.call @step_rank0(%cache) : (memref<4x8xf32>) -> (memref<4x8xf32>, memref<2xf32>)
    scf.yield %c#0, %c#1 : memref<4x8xf32>, memref<2xf32>
  }
  return %r#0, %r#1 : memref<4x8xf32>, memref<2xf32>
}
