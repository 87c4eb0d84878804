// RUN: tfm-opt %s -split-input-file --tfm-fuse-gelu | FileCheck %s

// Tests of tfm-fuse-gelu: GELU written from its erf or tanh formula with
// elementwise arith and math ops on tensors becomes tfm.gelu, whatever the
// bracketing and the order of the factors; wrong constants, another value
// outside than inside, and intermediates with other users are left alone.

//===----------------------------------------------------------------------===//
// erf form
//===----------------------------------------------------------------------===//

// 0.5 · x · (1 + erf(x · 1/√2)), left to right.

// CHECK-LABEL: func.func @erf_half_x_first
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x8xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] : tensor<2x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @erf_half_x_first(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = arith.constant dense<0.5> : tensor<2x8xf32>
  %one = arith.constant dense<1.0> : tensor<2x8xf32>
  %c = arith.constant dense<0.707106769> : tensor<2x8xf32>
  %0 = arith.mulf %half, %x : tensor<2x8xf32>
  %1 = arith.mulf %x, %c : tensor<2x8xf32>
  %2 = math.erf %1 : tensor<2x8xf32>
  %3 = arith.addf %one, %2 : tensor<2x8xf32>
  %4 = arith.mulf %0, %3 : tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// x · 0.5 · (1 + erf(x / √2)), with the constant on the other side and erf's
// argument a division by √2.

// CHECK-LABEL: func.func @erf_x_half_divide
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    return %[[G]]
func.func @erf_x_half_divide(%x: tensor<4xf32>) -> tensor<4xf32> {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %sqrt2 = arith.constant dense<1.41421354> : tensor<4xf32>
  %0 = arith.mulf %x, %half : tensor<4xf32>
  %1 = arith.divf %x, %sqrt2 : tensor<4xf32>
  %2 = math.erf %1 : tensor<4xf32>
  %3 = arith.addf %2, %one : tensor<4xf32>
  %4 = arith.mulf %3, %0 : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// (x · (1 + erf(x · 1/√2))) · 0.5: the half last.

// CHECK-LABEL: func.func @erf_half_last
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x5xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] : tensor<3x5xf32>
// CHECK-NEXT:    return %[[G]]
func.func @erf_half_last(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %half = arith.constant dense<0.5> : tensor<3x5xf32>
  %one = arith.constant dense<1.0> : tensor<3x5xf32>
  %c = arith.constant dense<0.70710678118654752> : tensor<3x5xf32>
  %1 = arith.mulf %c, %x : tensor<3x5xf32>
  %2 = math.erf %1 : tensor<3x5xf32>
  %3 = arith.addf %one, %2 : tensor<3x5xf32>
  %4 = arith.mulf %x, %3 : tensor<3x5xf32>
  %5 = arith.mulf %4, %half : tensor<3x5xf32>
  return %5 : tensor<3x5xf32>
}

// -----

// (x · (1 + erf(x / √2))) / 2, in f16: constants compare to f16's precision.

// CHECK-LABEL: func.func @erf_divide_by_two_f16
// CHECK-SAME:    %[[X:[^:]*]]: tensor<8xf16>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] : tensor<8xf16>
// CHECK-NEXT:    return %[[G]]
func.func @erf_divide_by_two_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %two = arith.constant dense<2.0> : tensor<8xf16>
  %one = arith.constant dense<1.0> : tensor<8xf16>
  %sqrt2 = arith.constant dense<1.414> : tensor<8xf16>
  %1 = arith.divf %x, %sqrt2 : tensor<8xf16>
  %2 = math.erf %1 : tensor<8xf16>
  %3 = arith.addf %one, %2 : tensor<8xf16>
  %4 = arith.mulf %x, %3 : tensor<8xf16>
  %5 = arith.divf %4, %two : tensor<8xf16>
  return %5 : tensor<8xf16>
}

// -----

// The input of the GELU may have other users; two GELUs of the same input
// (after CSE they share their constants) are both fused.

// CHECK-LABEL: func.func @erf_twice
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>
// CHECK-DAG:     %[[GX:.*]] = tfm.gelu %[[X]] : tensor<4xf32>
// CHECK-DAG:     %[[GY:.*]] = tfm.gelu %[[Y]] : tensor<4xf32>
// CHECK:         return %[[GX]], %[[GY]], %[[X]]
func.func @erf_twice(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %c = arith.constant dense<0.707106769> : tensor<4xf32>
  %0 = arith.mulf %half, %x : tensor<4xf32>
  %1 = arith.mulf %x, %c : tensor<4xf32>
  %2 = math.erf %1 : tensor<4xf32>
  %3 = arith.addf %one, %2 : tensor<4xf32>
  %4 = arith.mulf %0, %3 : tensor<4xf32>
  %5 = arith.mulf %half, %y : tensor<4xf32>
  %6 = arith.mulf %y, %c : tensor<4xf32>
  %7 = math.erf %6 : tensor<4xf32>
  %8 = arith.addf %one, %7 : tensor<4xf32>
  %9 = arith.mulf %5, %8 : tensor<4xf32>
  return %4, %9, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// tanh form
//===----------------------------------------------------------------------===//

// -----

// 0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x · x · x))).

// CHECK-LABEL: func.func @tanh_cube_as_products
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x8xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] {approximate = #tfm.gelu_approximation<tanh>} : tensor<2x3x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @tanh_cube_as_products(%x: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %half = arith.constant dense<0.5> : tensor<2x3x8xf32>
  %one = arith.constant dense<1.0> : tensor<2x3x8xf32>
  %k = arith.constant dense<0.797884583> : tensor<2x3x8xf32>
  %a = arith.constant dense<0.044715> : tensor<2x3x8xf32>
  %x2 = arith.mulf %x, %x : tensor<2x3x8xf32>
  %x3 = arith.mulf %x2, %x : tensor<2x3x8xf32>
  %ax3 = arith.mulf %a, %x3 : tensor<2x3x8xf32>
  %inner = arith.addf %x, %ax3 : tensor<2x3x8xf32>
  %arg = arith.mulf %k, %inner : tensor<2x3x8xf32>
  %t = math.tanh %arg : tensor<2x3x8xf32>
  %onet = arith.addf %one, %t : tensor<2x3x8xf32>
  %hx = arith.mulf %half, %x : tensor<2x3x8xf32>
  %y = arith.mulf %hx, %onet : tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}

// -----

// x³ as math.powf(x, 3), the sum in the other order, and the half last.

// CHECK-LABEL: func.func @tanh_powf
// CHECK-SAME:    %[[X:[^:]*]]: tensor<16xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] {approximate = #tfm.gelu_approximation<tanh>} : tensor<16xf32>
// CHECK-NEXT:    return %[[G]]
func.func @tanh_powf(%x: tensor<16xf32>) -> tensor<16xf32> {
  %half = arith.constant dense<0.5> : tensor<16xf32>
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %three = arith.constant dense<3.0> : tensor<16xf32>
  %k = arith.constant dense<0.7978845608028654> : tensor<16xf32>
  %a = arith.constant dense<0.044715> : tensor<16xf32>
  %x3 = math.powf %x, %three : tensor<16xf32>
  %ax3 = arith.mulf %x3, %a : tensor<16xf32>
  %inner = arith.addf %ax3, %x : tensor<16xf32>
  %arg = arith.mulf %inner, %k : tensor<16xf32>
  %t = math.tanh %arg : tensor<16xf32>
  %onet = arith.addf %t, %one : tensor<16xf32>
  %xt = arith.mulf %x, %onet : tensor<16xf32>
  %y = arith.mulf %xt, %half : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// The distributed argument √(2/π) · x + (√(2/π) · 0.044715) · x³, with x³
// as x · x².

// CHECK-LABEL: func.func @tanh_distributed
// CHECK-SAME:    %[[X:[^:]*]]: tensor<16xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] {approximate = #tfm.gelu_approximation<tanh>} : tensor<16xf32>
// CHECK-NEXT:    return %[[G]]
func.func @tanh_distributed(%x: tensor<16xf32>) -> tensor<16xf32> {
  %half = arith.constant dense<0.5> : tensor<16xf32>
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %two = arith.constant dense<2.0> : tensor<16xf32>
  %k = arith.constant dense<0.797884583> : tensor<16xf32>
  %ka = arith.constant dense<0.0356774069> : tensor<16xf32>
  %x2 = math.powf %x, %two : tensor<16xf32>
  %x3 = arith.mulf %x, %x2 : tensor<16xf32>
  %t1 = arith.mulf %k, %x : tensor<16xf32>
  %t3 = arith.mulf %ka, %x3 : tensor<16xf32>
  %arg = arith.addf %t1, %t3 : tensor<16xf32>
  %t = math.tanh %arg : tensor<16xf32>
  %onet = arith.addf %one, %t : tensor<16xf32>
  %hx = arith.mulf %x, %half : tensor<16xf32>
  %y = arith.mulf %onet, %hx : tensor<16xf32>
  return %y : tensor<16xf32>
}

//===----------------------------------------------------------------------===//
// Negative: not fused
//===----------------------------------------------------------------------===//

// -----

// 0.5 · y · (1 + erf(x / √2)) with y ≠ x is not a GELU.

// CHECK-LABEL: func.func @neg_other_value_outside
// CHECK-NOT:     tfm.gelu
// CHECK:         math.erf
// CHECK-NOT:     tfm.gelu
func.func @neg_other_value_outside(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> tensor<4xf32> {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %c = arith.constant dense<0.707106769> : tensor<4xf32>
  %0 = arith.mulf %half, %y : tensor<4xf32>
  %1 = arith.mulf %x, %c : tensor<4xf32>
  %2 = math.erf %1 : tensor<4xf32>
  %3 = arith.addf %one, %2 : tensor<4xf32>
  %4 = arith.mulf %0, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// Wrong constants: a half of 0.6, erf(x · 0.7), 1.5 + erf, and a cubic
// coefficient of 0.05.

// CHECK-LABEL: func.func @neg_wrong_constants
// CHECK-NOT:     tfm.gelu
// CHECK:         return
func.func @neg_wrong_constants(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %bad_half = arith.constant dense<0.6> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %bad_one = arith.constant dense<1.5> : tensor<4xf32>
  %c = arith.constant dense<0.707106769> : tensor<4xf32>
  %bad_c = arith.constant dense<0.7> : tensor<4xf32>
  // 0.6 · x · (1 + erf(x/√2))
  %a0 = arith.mulf %bad_half, %x : tensor<4xf32>
  %a1 = arith.mulf %x, %c : tensor<4xf32>
  %a2 = math.erf %a1 : tensor<4xf32>
  %a3 = arith.addf %one, %a2 : tensor<4xf32>
  %a4 = arith.mulf %a0, %a3 : tensor<4xf32>
  // 0.5 · x · (1 + erf(0.7 x))
  %b0 = arith.mulf %half, %x : tensor<4xf32>
  %b1 = arith.mulf %x, %bad_c : tensor<4xf32>
  %b2 = math.erf %b1 : tensor<4xf32>
  %b3 = arith.addf %one, %b2 : tensor<4xf32>
  %b4 = arith.mulf %b0, %b3 : tensor<4xf32>
  // 0.5 · x · (1.5 + erf(x/√2))
  %c0 = arith.mulf %half, %x : tensor<4xf32>
  %c1 = arith.mulf %x, %c : tensor<4xf32>
  %c2 = math.erf %c1 : tensor<4xf32>
  %c3 = arith.addf %bad_one, %c2 : tensor<4xf32>
  %c4 = arith.mulf %c0, %c3 : tensor<4xf32>
  // 0.5 · x · (1 + tanh(√(2/π) · (x + 0.05 x³)))
  %k = arith.constant dense<0.797884583> : tensor<4xf32>
  %bad_a = arith.constant dense<0.05> : tensor<4xf32>
  %three = arith.constant dense<3.0> : tensor<4xf32>
  %d0 = math.powf %x, %three : tensor<4xf32>
  %d1 = arith.mulf %bad_a, %d0 : tensor<4xf32>
  %d2 = arith.addf %x, %d1 : tensor<4xf32>
  %d3 = arith.mulf %k, %d2 : tensor<4xf32>
  %d4 = math.tanh %d3 : tensor<4xf32>
  %d5 = arith.addf %one, %d4 : tensor<4xf32>
  %d6 = arith.mulf %half, %x : tensor<4xf32>
  %d7 = arith.mulf %d6, %d5 : tensor<4xf32>
  return %a4, %b4, %c4, %d7
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// erf(x / √2) is also returned: the GELU would have to compute it again.

// CHECK-LABEL: func.func @neg_erf_has_other_user
// CHECK-NOT:     tfm.gelu
// CHECK:         %[[E:.*]] = math.erf
// CHECK-NOT:     tfm.gelu
// CHECK:         return %{{.*}}, %[[E]]
func.func @neg_erf_has_other_user(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %c = arith.constant dense<0.707106769> : tensor<4xf32>
  %0 = arith.mulf %half, %x : tensor<4xf32>
  %1 = arith.mulf %x, %c : tensor<4xf32>
  %2 = math.erf %1 : tensor<4xf32>
  %3 = arith.addf %one, %2 : tensor<4xf32>
  %4 = arith.mulf %0, %3 : tensor<4xf32>
  return %4, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The half product 0.5 · x is also returned.

// CHECK-LABEL: func.func @neg_half_x_has_other_user
// CHECK-NOT:     tfm.gelu
// CHECK:         return
func.func @neg_half_x_has_other_user(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %c = arith.constant dense<0.707106769> : tensor<4xf32>
  %0 = arith.mulf %half, %x : tensor<4xf32>
  %1 = arith.mulf %x, %c : tensor<4xf32>
  %2 = math.erf %1 : tensor<4xf32>
  %3 = arith.addf %one, %2 : tensor<4xf32>
  %4 = arith.mulf %0, %3 : tensor<4xf32>
  return %4, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// x · x³ inside tanh (x⁴) and a tanh form missing the linear term.

// CHECK-LABEL: func.func @neg_tanh_wrong_powers
// CHECK-NOT:     tfm.gelu
// CHECK:         return
func.func @neg_tanh_wrong_powers(%x: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %k = arith.constant dense<0.797884583> : tensor<4xf32>
  %a = arith.constant dense<0.044715> : tensor<4xf32>
  %four = arith.constant dense<4.0> : tensor<4xf32>
  %three = arith.constant dense<3.0> : tensor<4xf32>
  %p4 = math.powf %x, %four : tensor<4xf32>
  %a1 = arith.mulf %a, %p4 : tensor<4xf32>
  %a2 = arith.addf %x, %a1 : tensor<4xf32>
  %a3 = arith.mulf %k, %a2 : tensor<4xf32>
  %a4 = math.tanh %a3 : tensor<4xf32>
  %a5 = arith.addf %one, %a4 : tensor<4xf32>
  %a6 = arith.mulf %half, %x : tensor<4xf32>
  %a7 = arith.mulf %a6, %a5 : tensor<4xf32>
  %p3 = math.powf %x, %three : tensor<4xf32>
  %b1 = arith.mulf %a, %p3 : tensor<4xf32>
  %b3 = arith.mulf %k, %b1 : tensor<4xf32>
  %b4 = math.tanh %b3 : tensor<4xf32>
  %b5 = arith.addf %one, %b4 : tensor<4xf32>
  %b6 = arith.mulf %half, %x : tensor<4xf32>
  %b7 = arith.mulf %b6, %b5 : tensor<4xf32>
  return %a7, %b7 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A GELU multiplied by something else: the product 0.5 · x · (1 + erf(...))
// is fused, the factor y stays outside.

// CHECK-LABEL: func.func @gelu_times_other
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[G:.*]] = tfm.gelu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[P:.*]] = arith.mulf %[[G]], %[[Y]] : tensor<4xf32>
// CHECK-NEXT:    return %[[P]]
func.func @gelu_times_other(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> tensor<4xf32> {
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %c = arith.constant dense<0.707106769> : tensor<4xf32>
  %0 = arith.mulf %half, %x : tensor<4xf32>
  %1 = arith.mulf %x, %c : tensor<4xf32>
  %2 = math.erf %1 : tensor<4xf32>
  %3 = arith.addf %one, %2 : tensor<4xf32>
  %4 = arith.mulf %0, %3 : tensor<4xf32>
  %5 = arith.mulf %4, %y : tensor<4xf32>
  return %5 : tensor<4xf32>
}
