// RUN: tfm-opt %s --tfm-approximate-math | FileCheck %s

// exp, erf and tanh become polynomials (plain arithmetic that vectorizes);
// sin and cos stay precise, since the positional encoding evaluates them far
// outside the approximations' range.

// CHECK-LABEL: func.func @approximated
//   CHECK-NOT:   math.exp
//   CHECK-NOT:   math.erf
//   CHECK-NOT:   math.tanh
//       CHECK:   math.fma
//       CHECK:   return
func.func @approximated(%x: vector<8xf32>) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>) {
  %0 = math.exp %x : vector<8xf32>
  %1 = math.erf %x : vector<8xf32>
  %2 = math.tanh %x : vector<8xf32>
  return %0, %1, %2 : vector<8xf32>, vector<8xf32>, vector<8xf32>
}

// CHECK-LABEL: func.func @precise
//       CHECK:   math.sin
//       CHECK:   math.cos
func.func @precise(%x: f32) -> (f32, f32) {
  %0 = math.sin %x : f32
  %1 = math.cos %x : f32
  return %0, %1 : f32, f32
}
