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

// erf of f32 is x * P(x^2) / Q(x^2) on x clamped to [-3.9375, 3.9375]: no
// selects, five fused multiply-adds for each polynomial of degree 5, one
// division. f16 is extended to f32 for it.

// CHECK-LABEL: func.func @erf
//  CHECK-SAME:   %[[X:[^:]*]]: vector<16xf32>
//   CHECK-DAG:   %[[HI:.*]] = arith.constant dense<3.937500e+00> : vector<16xf32>
//   CHECK-DAG:   %[[LO:.*]] = arith.constant dense<-3.937500e+00> : vector<16xf32>
//       CHECK:   %[[MIN:.*]] = arith.minimumf %[[X]], %[[HI]]
//       CHECK:   %[[C:.*]] = arith.maximumf %[[MIN]], %[[LO]]
//       CHECK:   %[[T:.*]] = arith.mulf %[[C]], %[[C]]
//       CHECK:   %[[P1:.*]] = math.fma %{{.*}}, %[[T]], %{{.*}}
//       CHECK:   %[[P2:.*]] = math.fma %[[P1]], %[[T]]
//       CHECK:   %[[P3:.*]] = math.fma %[[P2]], %[[T]]
//       CHECK:   %[[P4:.*]] = math.fma %[[P3]], %[[T]]
//       CHECK:   %[[P:.*]] = math.fma %[[P4]], %[[T]]
//       CHECK:   %[[Q1:.*]] = math.fma %{{.*}}, %[[T]], %{{.*}}
//       CHECK:   %[[Q2:.*]] = math.fma %[[Q1]], %[[T]]
//       CHECK:   %[[Q3:.*]] = math.fma %[[Q2]], %[[T]]
//       CHECK:   %[[Q4:.*]] = math.fma %[[Q3]], %[[T]]
//       CHECK:   %[[Q:.*]] = math.fma %[[Q4]], %[[T]]
//       CHECK:   %[[XP:.*]] = arith.mulf %[[C]], %[[P]]
//       CHECK:   %[[R:.*]] = arith.divf %[[XP]], %[[Q]]
//   CHECK-NOT:   arith.select
//       CHECK:   return %[[R]]
func.func @erf(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.erf %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// CHECK-LABEL: func.func @erf_f16
//   CHECK-NOT:   math.erf
//       CHECK:   arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
//       CHECK:   arith.minimumf
//       CHECK:   arith.divf
//   CHECK-NOT:   arith.select
//       CHECK:   arith.truncf
func.func @erf_f16(%x: vector<8xf16>) -> vector<8xf16> {
  %0 = math.erf %x : vector<8xf16>
  return %0 : vector<8xf16>
}
