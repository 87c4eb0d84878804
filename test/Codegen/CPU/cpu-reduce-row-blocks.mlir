// RUN: tfm-opt %s --tfm-cpu-reduce-row-blocks -split-input-file | FileCheck %s

// Four rows of eight lanes: each row's two halves combined (four lanes a
// row), then rows 0 and 1 and rows 2 and 3 by halves (two lanes a row, two
// rows a vector), then both (one lane a row, in row order), then the
// accumulator.

// CHECK-LABEL: func.func @max_rows
//  CHECK-SAME:     %[[X:[^:]*]]: vector<4x8xf32>, %[[ACC:[^:]*]]: vector<4xf32>
//       CHECK:   %[[X0:.*]] = vector.extract %[[X]][0]
//       CHECK:   %[[L0:.*]] = vector.extract_strided_slice %[[X0]] {offsets = [0], sizes = [4], strides = [1]}
//       CHECK:   %[[H0:.*]] = vector.extract_strided_slice %[[X0]] {offsets = [4], sizes = [4], strides = [1]}
//       CHECK:   %[[R0:.*]] = arith.maxnumf %[[L0]], %[[H0]] : vector<4xf32>
//       CHECK:   %[[R1:.*]] = arith.maxnumf {{.*}} : vector<4xf32>
//       CHECK:   %[[R2:.*]] = arith.maxnumf {{.*}} : vector<4xf32>
//       CHECK:   %[[R3:.*]] = arith.maxnumf {{.*}} : vector<4xf32>
//       CHECK:   %[[LO01:.*]] = vector.shuffle %[[R0]], %[[R1]] [0, 1, 4, 5]
//       CHECK:   %[[HI01:.*]] = vector.shuffle %[[R0]], %[[R1]] [2, 3, 6, 7]
//       CHECK:   %[[R01:.*]] = arith.maxnumf %[[LO01]], %[[HI01]] : vector<4xf32>
//       CHECK:   %[[LO23:.*]] = vector.shuffle %[[R2]], %[[R3]] [0, 1, 4, 5]
//       CHECK:   %[[HI23:.*]] = vector.shuffle %[[R2]], %[[R3]] [2, 3, 6, 7]
//       CHECK:   %[[R23:.*]] = arith.maxnumf %[[LO23]], %[[HI23]] : vector<4xf32>
//       CHECK:   %[[LO:.*]] = vector.shuffle %[[R01]], %[[R23]] [0, 2, 4, 6]
//       CHECK:   %[[HI:.*]] = vector.shuffle %[[R01]], %[[R23]] [1, 3, 5, 7]
//       CHECK:   %[[R:.*]] = arith.maxnumf %[[LO]], %[[HI]] : vector<4xf32>
//       CHECK:   %[[OUT:.*]] = arith.maxnumf %[[R]], %[[ACC]] : vector<4xf32>
//       CHECK:   return %[[OUT]]
func.func @max_rows(%x: vector<4x8xf32>, %acc: vector<4xf32>) -> vector<4xf32> {
  %0 = vector.multi_reduction <maxnumf>, %x, %acc [1] : vector<4x8xf32> to vector<4xf32>
  return %0 : vector<4xf32>
}

// -----

// Two rows of two lanes, summed: one shuffle pair.

// CHECK-LABEL: func.func @sum_rows
//       CHECK:   %[[LO:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 2]
//       CHECK:   %[[HI:.*]] = vector.shuffle %{{.*}}, %{{.*}} [1, 3]
//       CHECK:   %[[S:.*]] = arith.addf %[[LO]], %[[HI]] : vector<2xf32>
//       CHECK:   arith.addf %[[S]], %{{.*}} : vector<2xf32>
//   CHECK-NOT:   vector.multi_reduction
func.func @sum_rows(%x: vector<2x2xf32>, %acc: vector<2xf32>) -> vector<2xf32> {
  %0 = vector.multi_reduction <add>, %x, %acc [1] : vector<2x2xf32> to vector<2xf32>
  return %0 : vector<2xf32>
}

// -----

// A block of rows behind unit dimensions (a batch of one) is reduced as the
// 2-D block (its rows extracted from the 3-D vector once the shape cast is
// folded), its result cast back.

// CHECK-LABEL: func.func @unit_batch
//  CHECK-SAME:     %[[X:[^:]*]]: vector<1x2x4xf32>
//       CHECK:   vector.extract %[[X]][0, 0] : vector<4xf32> from vector<1x2x4xf32>
//       CHECK:   vector.extract %[[X]][0, 1] : vector<4xf32> from vector<1x2x4xf32>
//       CHECK:   %[[LO:.*]] = vector.shuffle %{{.*}}, %{{.*}} [0, 2]
//       CHECK:   %[[HI:.*]] = vector.shuffle %{{.*}}, %{{.*}} [1, 3]
//       CHECK:   %[[R:.*]] = arith.addf %[[LO]], %[[HI]] : vector<2xf32>
//       CHECK:   %[[C:.*]] = vector.shape_cast %[[R]] : vector<2xf32> to vector<1x2xf32>
//       CHECK:   arith.addf %[[C]], %{{.*}} : vector<1x2xf32>
//   CHECK-NOT:   vector.multi_reduction
func.func @unit_batch(%x: vector<1x2x4xf32>, %acc: vector<1x2xf32>) -> vector<1x2xf32> {
  %0 = vector.multi_reduction <add>, %x, %acc [2] : vector<1x2x4xf32> to vector<1x2xf32>
  return %0 : vector<1x2xf32>
}

// -----

// Left to upstream's lowering: three rows (no power of two), columns that
// the rows do not divide, a reduction across rows, a masked reduction, two
// blocks of rows.

// CHECK-LABEL: func.func @left
//   CHECK-NOT:   vector.shuffle
//       CHECK:   vector.multi_reduction <add>, {{.*}} [1] : vector<3x6xf32> to vector<3xf32>
//       CHECK:   vector.multi_reduction <add>, {{.*}} [1] : vector<4x6xf32> to vector<4xf32>
//       CHECK:   vector.multi_reduction <add>, {{.*}} [0] : vector<4x8xf32> to vector<8xf32>
//       CHECK:   vector.mask %{{.*}} { vector.multi_reduction <add>, {{.*}} [1] : vector<4x8xf32> to vector<4xf32> }
//       CHECK:   vector.multi_reduction <add>, {{.*}} [2] : vector<2x2x4xf32> to vector<2x2xf32>
func.func @left(%x: vector<3x6xf32>, %y: vector<4x6xf32>, %z: vector<4x8xf32>,
                %a: vector<3xf32>, %b: vector<4xf32>, %c: vector<8xf32>,
                %m: vector<4x8xi1>, %w: vector<2x2x4xf32>, %d: vector<2x2xf32>)
    -> (vector<3xf32>, vector<4xf32>, vector<8xf32>, vector<4xf32>, vector<2x2xf32>) {
  %0 = vector.multi_reduction <add>, %x, %a [1] : vector<3x6xf32> to vector<3xf32>
  %1 = vector.multi_reduction <add>, %y, %b [1] : vector<4x6xf32> to vector<4xf32>
  %2 = vector.multi_reduction <add>, %z, %c [0] : vector<4x8xf32> to vector<8xf32>
  %3 = vector.mask %m { vector.multi_reduction <add>, %z, %b [1] : vector<4x8xf32> to vector<4xf32> } : vector<4x8xi1> -> vector<4xf32>
  %4 = vector.multi_reduction <add>, %w, %d [2] : vector<2x2x4xf32> to vector<2x2xf32>
  return %0, %1, %2, %3, %4 : vector<3xf32>, vector<4xf32>, vector<8xf32>, vector<4xf32>, vector<2x2xf32>
}
