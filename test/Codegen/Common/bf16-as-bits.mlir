// RUN: tfm-opt %s --tfm-bf16-as-bits | FileCheck %s

// Widening bfloat16 is a shift of its bits into the top half of a float32;
// narrowing rounds to nearest even on the bits (NaN kept as NaN). Other
// float32 arithmetic is left alone.

// CHECK-LABEL: func.func @widen_and_narrow(
// CHECK-SAME:      %[[X:.*]]: vector<4xbf16>, %[[Y:.*]]: vector<4xf32>)
// CHECK:         %[[XBITS:.*]] = arith.bitcast %[[X]] : vector<4xbf16> to vector<4xi16>
// CHECK:         %[[WIDE:.*]] = arith.extui %[[XBITS]] : vector<4xi16> to vector<4xi32>
// CHECK:         %[[SIXTEEN:.*]] = arith.constant dense<16> : vector<4xi32>
// CHECK:         %[[TOP:.*]] = arith.shli %[[WIDE]], %[[SIXTEEN]]
// CHECK:         %[[XF:.*]] = arith.bitcast %[[TOP]] : vector<4xi32> to vector<4xf32>
// CHECK:         arith.bitcast %[[Y]] : vector<4xf32> to vector<4xi32>
// CHECK:         arith.shrui
// CHECK:         arith.trunci {{.*}} : vector<4xi32> to vector<4xi16>
// CHECK:         %[[YB:.*]] = arith.bitcast {{.*}} : vector<4xi16> to vector<4xbf16>
// CHECK:         %[[SUM:.*]] = arith.addf %[[XF]], %[[Y]] : vector<4xf32>
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[XF]], %[[YB]], %[[SUM]]
func.func @widen_and_narrow(%x: vector<4xbf16>, %y: vector<4xf32>) -> (vector<4xf32>, vector<4xbf16>, vector<4xf32>) {
  %0 = arith.extf %x : vector<4xbf16> to vector<4xf32>
  %1 = arith.truncf %y : vector<4xf32> to vector<4xbf16>
  %2 = arith.addf %0, %y : vector<4xf32>
  return %0, %1, %2 : vector<4xf32>, vector<4xbf16>, vector<4xf32>
}

// CHECK-LABEL: func.func @float16_untouched(
// CHECK:         arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
func.func @float16_untouched(%x: vector<4xf16>) -> vector<4xf32> {
  %0 = arith.extf %x : vector<4xf16> to vector<4xf32>
  return %0 : vector<4xf32>
}
