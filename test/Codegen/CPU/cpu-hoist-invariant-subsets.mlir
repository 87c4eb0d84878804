// RUN: tfm-opt %s --tfm-cpu-hoist-invariant-subsets | FileCheck %s
// RUN: tfm-opt %s --loop-invariant-subset-hoisting | FileCheck %s

// The same result as upstream's pass: an accumulator tile that every
// reduction step reads and writes at the same place leaves the loop as a
// loop-carried vector; a loop whose subset moves with its induction
// variable (an elementwise loop over a dynamic row) is left as it is.

// CHECK-LABEL: func.func @accumulator(
//  CHECK-SAME:     %[[A:.*]]: tensor<4x16xf32>, %[[B:.*]]: tensor<?x16xf32>, %[[N:.*]]: index)
//       CHECK:   %[[INIT:.*]] = vector.transfer_read %[[A]]
//       CHECK:   %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[T:.*]] = %[[A]], %[[V:.*]] = %[[INIT]])
//   CHECK-NOT:     vector.transfer_read %[[T]]
//       CHECK:     %[[ROW:.*]] = vector.transfer_read %[[B]]
//       CHECK:     %[[SUM:.*]] = arith.addf %[[V]], %[[ROW]]
//       CHECK:     scf.yield %[[T]], %[[SUM]]
//       CHECK:   vector.transfer_write %[[LOOP]]#1, %[[LOOP]]#0
func.func @accumulator(%acc: tensor<4x16xf32>, %b: tensor<?x16xf32>,
                       %n: index) -> tensor<4x16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%t = %acc) -> (tensor<4x16xf32>) {
    %v = vector.transfer_read %t[%c0, %c0], %pad {in_bounds = [true, true]} : tensor<4x16xf32>, vector<4x16xf32>
    %row = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (0, d1)>} : tensor<?x16xf32>, vector<4x16xf32>
    %s = arith.addf %v, %row : vector<4x16xf32>
    %w = vector.transfer_write %s, %t[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, tensor<4x16xf32>
    scf.yield %w : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @moving_subset(
//       CHECK:   scf.for {{.*}} iter_args(%[[T:.*]] = %{{.*}}) -> (tensor<?xf32>)
//       CHECK:     %[[S:.*]] = tensor.extract_slice %[[T]]
//       CHECK:     vector.transfer_read %[[S]]
//       CHECK:     tensor.insert_slice %{{.*}} into %[[T]]
func.func @moving_subset(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %two = arith.constant dense<2.0> : vector<16xf32>
  %r = scf.for %i = %c0 to %n step %c16 iter_args(%t = %x) -> (tensor<?xf32>) {
    %s = tensor.extract_slice %t[%i] [16] [1] : tensor<?xf32> to tensor<16xf32>
    %v = vector.transfer_read %s[%c0], %pad {in_bounds = [true]} : tensor<16xf32>, vector<16xf32>
    %m = arith.mulf %v, %two : vector<16xf32>
    %w = vector.transfer_write %m, %s[%c0] {in_bounds = [true]} : vector<16xf32>, tensor<16xf32>
    %u = tensor.insert_slice %w into %t[%i] [16] [1] : tensor<16xf32> into tensor<?xf32>
    scf.yield %u : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
