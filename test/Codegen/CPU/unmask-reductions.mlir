// RUN: tfm-opt %s -split-input-file --tfm-cpu-unmask-reductions | FileCheck %s

// A masked maximumf row reduction reads -inf in its masked-off lanes.
// CHECK-LABEL: func.func @max_row
//  CHECK-SAME:   (%[[X:.*]]: vector<1x15xf32>, %[[ACC:.*]]: vector<1xf32>, %[[M:.*]]: vector<1x15xi1>)
//       CHECK:   %[[NEG_INF:.*]] = arith.constant dense<0xFF800000> : vector<1x15xf32>
//       CHECK:   %[[S:.*]] = arith.select %[[M]], %[[X]], %[[NEG_INF]] : vector<1x15xi1>, vector<1x15xf32>
//       CHECK:   %[[R:.*]] = vector.multi_reduction <maximumf>, %[[S]], %[[ACC]] [1] : vector<1x15xf32> to vector<1xf32>
//   CHECK-NOT:   vector.mask
//       CHECK:   return %[[R]]
func.func @max_row(%x: vector<1x15xf32>, %acc: vector<1xf32>, %m: vector<1x15xi1>) -> vector<1xf32> {
  %r = vector.mask %m { vector.multi_reduction <maximumf>, %x, %acc [1] : vector<1x15xf32> to vector<1xf32> } : vector<1x15xi1> -> vector<1xf32>
  return %r : vector<1xf32>
}

// -----

// Sums read 0, minimums +inf, products 1, integer maximums the least
// integer.
// CHECK-LABEL: func.func @kinds
//       CHECK:   arith.constant dense<0.000000e+00> : vector<8xf32>
//       CHECK:   vector.reduction <add>
//       CHECK:   arith.constant dense<0x7F800000> : vector<8xf32>
//       CHECK:   vector.reduction <minimumf>
//       CHECK:   arith.constant dense<1.000000e+00> : vector<8xf32>
//       CHECK:   vector.reduction <mul>
//       CHECK:   arith.constant dense<-2147483648> : vector<8xi32>
//       CHECK:   vector.reduction <maxsi>
//   CHECK-NOT:   vector.mask
func.func @kinds(%x: vector<8xf32>, %i: vector<8xi32>, %m: vector<8xi1>) -> (f32, f32, f32, i32) {
  %a = vector.mask %m { vector.reduction <add>, %x : vector<8xf32> into f32 } : vector<8xi1> -> f32
  %b = vector.mask %m { vector.reduction <minimumf>, %x : vector<8xf32> into f32 } : vector<8xi1> -> f32
  %c = vector.mask %m { vector.reduction <mul>, %x : vector<8xf32> into f32 } : vector<8xi1> -> f32
  %d = vector.mask %m { vector.reduction <maxsi>, %i : vector<8xi32> into i32 } : vector<8xi1> -> i32
  return %a, %b, %c, %d : f32, f32, f32, i32
}

// -----

// Masked transfers are left to upstream's lowering.
// CHECK-LABEL: func.func @neg_transfer
//       CHECK:   vector.mask %{{.*}} { vector.transfer_read
func.func @neg_transfer(%t: tensor<?xf32>, %m: vector<16xi1>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.mask %m { vector.transfer_read %t[%c0], %p : tensor<?xf32>, vector<16xf32> } : vector<16xi1> -> vector<16xf32>
  return %v : vector<16xf32>
}
