// RUN: tfm-opt %s --tfm-cpu-lower-transposes -split-input-file | FileCheck %s

// A transposed 8x8 read becomes a read of rows and three rounds of eight
// shuffles: pairs of rows interleave, then pairs of pairs, then the 128-bit
// halves of rows i and i + 4 join. The attention integration tests check
// the numbers.

// CHECK-LABEL: func.func @block
//       CHECK:   %[[ROWS:.*]] = vector.transfer_read {{.*}} {in_bounds = [true, true]} : memref<8x8xf32, strided<[64, 1], offset: ?>>, vector<8x8xf32>
//       CHECK:   %[[R0:.*]] = vector.extract %[[ROWS]][0]
//       CHECK:   %[[R1:.*]] = vector.extract %[[ROWS]][1]
//       CHECK:   %[[LO01:.*]] = vector.shuffle %[[R0]], %[[R1]] [0, 8, 1, 9, 4, 12, 5, 13]
//       CHECK:   %[[HI01:.*]] = vector.shuffle %[[R0]], %[[R1]] [2, 10, 3, 11, 6, 14, 7, 15]
//       CHECK:   %[[LO23:.*]] = vector.shuffle {{.*}} [0, 8, 1, 9, 4, 12, 5, 13]
//       CHECK:   vector.shuffle
//       CHECK:   %[[LO45:.*]] = vector.shuffle {{.*}} [0, 8, 1, 9, 4, 12, 5, 13]
//       CHECK:   vector.shuffle
//       CHECK:   %[[LO67:.*]] = vector.shuffle {{.*}} [0, 8, 1, 9, 4, 12, 5, 13]
//       CHECK:   vector.shuffle
//       CHECK:   %[[C04:.*]] = vector.shuffle %[[LO01]], %[[LO23]] [0, 1, 8, 9, 4, 5, 12, 13]
//       CHECK:   %[[C15:.*]] = vector.shuffle %[[LO01]], %[[LO23]] [2, 3, 10, 11, 6, 7, 14, 15]
//       CHECK:   vector.shuffle %[[HI01]]
//       CHECK:   vector.shuffle %[[HI01]]
//       CHECK:   %[[D04:.*]] = vector.shuffle %[[LO45]], %[[LO67]] [0, 1, 8, 9, 4, 5, 12, 13]
//       CHECK:   %[[COL0:.*]] = vector.shuffle %[[C04]], %[[D04]] [0, 1, 2, 3, 8, 9, 10, 11]
//       CHECK:   %[[COL4:.*]] = vector.shuffle %[[C04]], %[[D04]] [4, 5, 6, 7, 12, 13, 14, 15]
//       CHECK:   vector.insert %[[COL0]], %{{.*}} [0]
//       CHECK:   vector.insert %[[COL4]], %{{.*}} [4]
//   CHECK-NOT:   vector.transpose
func.func @block(%m: memref<8x8xf32, strided<[64, 1], offset: ?>>) -> vector<8x8xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0, %c0], %pad
      {in_bounds = [true, true], permutation_map = affine_map<(i, j) -> (j, i)>}
      : memref<8x8xf32, strided<[64, 1], offset: ?>>, vector<8x8xf32>
  return %v : vector<8x8xf32>
}

// -----

// Unit dimensions around the block are allowed.

// CHECK-LABEL: func.func @unit_dims
//       CHECK:   vector.shuffle
//       CHECK:   vector.shape_cast {{.*}} : vector<8x8xf32> to vector<1x8x8xf32>
//   CHECK-NOT:   vector.transpose
func.func @unit_dims(%v: vector<1x8x8xf32>) -> vector<1x8x8xf32> {
  %t = vector.transpose %v, [0, 2, 1] : vector<1x8x8xf32> to vector<1x8x8xf32>
  return %t : vector<1x8x8xf32>
}

// -----

// Other shapes and element types are left to the LLVM conversion.

// CHECK-LABEL: func.func @others
//       CHECK:   vector.transpose {{.*}} : vector<8x5xf32> to vector<5x8xf32>
//       CHECK:   vector.transpose {{.*}} : vector<8x8xf64> to vector<8x8xf64>
func.func @others(%a: vector<8x5xf32>, %b: vector<8x8xf64>) -> (vector<5x8xf32>, vector<8x8xf64>) {
  %t = vector.transpose %a, [1, 0] : vector<8x5xf32> to vector<5x8xf32>
  %u = vector.transpose %b, [1, 0] : vector<8x8xf64> to vector<8x8xf64>
  return %t, %u : vector<5x8xf32>, vector<8x8xf64>
}

// -----

// A register tile's left operand, one element of a column per row read
// with a broadcast along the columns, is a broadcast of the column: no
// shuffles (as an 8x8 block, every row of the tile came out equal on
// AVX-512, whose register tiles have 8 rows).

// CHECK-LABEL: func.func @column_broadcast
//       CHECK:   %[[COL:.*]] = vector.transfer_read {{.*}} : memref<8x1xf32, strided<[8, 1], offset: ?>>, vector<8x1xf32>
//       CHECK:   %[[CAST:.*]] = vector.shape_cast %[[COL]] : vector<8x1xf32> to vector<8x1x1xf32>
//       CHECK:   %[[TILE:.*]] = vector.broadcast %[[CAST]] : vector<8x1x1xf32> to vector<8x8x1xf32>
//   CHECK-NOT:   vector.shuffle
//   CHECK-NOT:   vector.transpose
//       CHECK:   return %[[TILE]]
#column = affine_map<(d0, d1) -> (d0, 0, d1)>
func.func @column_broadcast(%m: memref<8x1xf32, strided<[8, 1], offset: ?>>) -> vector<8x8x1xf32> {
  %c0 = arith.constant 0 : index
  %pad = ub.poison : f32
  %v = vector.transfer_read %m[%c0, %c0], %pad {in_bounds = [true, true, true], permutation_map = #column} : memref<8x1xf32, strided<[8, 1], offset: ?>>, vector<8x8x1xf32>
  return %v : vector<8x8x1xf32>
}
