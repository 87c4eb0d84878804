// RUN: tfm-opt %s --convert-scf-to-openmp --tfm-cpu-serialize-small-loops -split-input-file | FileCheck %s

// Rows of 768 floats, a dynamic number of them (a decoding step's
// LayerNorm over its batch): 768 elements an iteration, so the threads
// start from ceil(2^15 / 768) = 43 rows; fewer run on the calling thread.

// CHECK-LABEL: func.func @rows(
//  CHECK-SAME:     %{{.*}}: memref<?x768xf32>, %[[N:.*]]: index)
//       CHECK:   %[[TRIPS:.*]] = arith.maxsi %[[N]], %{{.*}} : index
//       CHECK:   %[[WORTH:.*]] = arith.cmpi sge, %[[TRIPS]], %c43 : index
//       CHECK:   omp.parallel if(%[[WORTH]])
func.func @rows(%a: memref<?x768xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c768 = arith.constant 768 : index
  %pad = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c768 step %c16 {
      %v = vector.transfer_read %a[%i, %j], %pad {in_bounds = [true]} : memref<?x768xf32>, vector<16xf32>
      %w = arith.addf %v, %v : vector<16xf32>
      vector.transfer_write %w, %a[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<?x768xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A head transpose, [batch, seq, 12, 64] -> [batch, 12, seq, 64], batch and
// seq dynamic: 64 floats an iteration of three loops; the threads start
// from 512 iterations, the product of the three trip counts (the steps of
// 2 halve the last).

// CHECK-LABEL: func.func @heads(
//  CHECK-SAME:     %[[B:[^:]*]]: index, %[[S:[^:]*]]: index)
//       CHECK:   %[[SB:.*]] = arith.maxsi %[[B]]
//       CHECK:   %[[SH:.*]] = arith.muli %[[SB]], %c12
//       CHECK:   %[[SS:.*]] = arith.ceildivsi %[[S]], %c2
//       CHECK:   %[[SS1:.*]] = arith.maxsi %[[SS]]
//       CHECK:   %[[TRIPS:.*]] = arith.muli %[[SH]], %[[SS1]]
//       CHECK:   %[[WORTH:.*]] = arith.cmpi sge, %[[TRIPS]], %c512 : index
//       CHECK:   omp.parallel if(%[[WORTH]])
func.func @heads(%x: memref<?x?x12x64xf32>, %y: memref<?x12x?x64xf32>,
                 %b: index, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c12 = arith.constant 12 : index
  %pad = arith.constant 0.0 : f32
  scf.parallel (%i, %h, %t) = (%c0, %c0, %c0) to (%b, %c12, %s) step (%c1, %c1, %c2) {
    %v = vector.transfer_read %x[%i, %t, %h, %c0], %pad {in_bounds = [true]} : memref<?x?x12x64xf32>, vector<64xf32>
    vector.transfer_write %v, %y[%i, %h, %t, %c0] {in_bounds = [true]} : vector<64xf32>, memref<?x12x?x64xf32>
    scf.reduce
  }
  return
}

// -----

// Left parallel: a loop of static bounds (the strategy weighed its size);
// an iteration holding a loop of a run-time trip count (a decoding step's
// attention over its positions), whose work is unknown; an iteration that
// is worth the threads by itself.

// CHECK-LABEL: func.func @left_parallel(
//   CHECK-NOT:   if(
//       CHECK:   return
func.func @left_parallel(%a: memref<?x?xf32>, %big: memref<?x32768xf32>,
                         %n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c32768 = arith.constant 32768 : index
  %pad = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = vector.transfer_read %a[%i, %c0], %pad {in_bounds = [true]} : memref<?x?xf32>, vector<16xf32>
    vector.transfer_write %v, %a[%i, %c0] {in_bounds = [true]} : vector<16xf32>, memref<?x?xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %m step %c16 {
      %v = vector.transfer_read %a[%i, %j], %pad {in_bounds = [true]} : memref<?x?xf32>, vector<16xf32>
      vector.transfer_write %v, %a[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<?x?xf32>
    }
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %j = %c0 to %c32768 step %c16 {
      %v = vector.transfer_read %big[%i, %j], %pad {in_bounds = [true]} : memref<?x32768xf32>, vector<16xf32>
      vector.transfer_write %v, %big[%i, %j] {in_bounds = [true]} : vector<16xf32>, memref<?x32768xf32>
    }
    scf.reduce
  }
  return
}
