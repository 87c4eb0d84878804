// RUN: tfm-opt %s --tfm-cpu-reassociate-reductions | FileCheck %s

// Float sums and products over a vector's lanes may reassociate (a tree of
// partial sums); flags already there stay; maxima and integer sums are left
// as they are.

// CHECK-LABEL: func.func @reductions
//       CHECK:   vector.reduction <add>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
//       CHECK:   vector.reduction <mul>, %{{.*}} fastmath<reassoc,contract> : vector<8xf32> into f32
//       CHECK:   vector.reduction <maximumf>, %{{.*}} : vector<16xf32> into f32
//       CHECK:   vector.reduction <add>, %{{.*}} : vector<16xi32> into i32
func.func @reductions(%x: vector<16xf32>, %acc: f32, %y: vector<8xf32>,
                      %i: vector<16xi32>) -> (f32, f32, f32, i32) {
  %0 = vector.reduction <add>, %x, %acc : vector<16xf32> into f32
  %1 = vector.reduction <mul>, %y fastmath<contract> : vector<8xf32> into f32
  %2 = vector.reduction <maximumf>, %x : vector<16xf32> into f32
  %3 = vector.reduction <add>, %i : vector<16xi32> into i32
  return %0, %1, %2, %3 : f32, f32, f32, i32
}

// A softmax's row maximum (maxnumf) over 16 lanes becomes the tree itself:
// halves combined by vector maxima, 8, 4, 2 and 1 lanes, then the
// accumulator. One of 12 lanes (no power of two) is left alone.

// CHECK-LABEL: func.func @maxnum_tree
//  CHECK-SAME:     %[[X:[^:]*]]: vector<16xf32>, %[[ACC:[^:]*]]: f32
//       CHECK:   %[[L8:.*]] = vector.extract_strided_slice %[[X]] {offsets = [0], sizes = [8], strides = [1]}
//       CHECK:   %[[H8:.*]] = vector.extract_strided_slice %[[X]] {offsets = [8], sizes = [8], strides = [1]}
//       CHECK:   %[[M8:.*]] = arith.maxnumf %[[L8]], %[[H8]] : vector<8xf32>
//       CHECK:   %[[M4:.*]] = arith.maxnumf {{.*}} : vector<4xf32>
//       CHECK:   %[[M2:.*]] = arith.maxnumf {{.*}} : vector<2xf32>
//       CHECK:   %[[M1:.*]] = arith.maxnumf {{.*}} : vector<1xf32>
//       CHECK:   %[[E:.*]] = vector.extract %[[M1]][0] : f32 from vector<1xf32>
//       CHECK:   %[[R:.*]] = arith.maxnumf %[[E]], %[[ACC]] : f32
//       CHECK:   vector.reduction <maxnumf>, %{{.*}} : vector<12xf32> into f32
//       CHECK:   return %[[R]]
func.func @maxnum_tree(%x: vector<16xf32>, %acc: f32, %y: vector<12xf32>) -> (f32, f32) {
  %0 = vector.reduction <maxnumf>, %x, %acc : vector<16xf32> into f32
  %1 = vector.reduction <maxnumf>, %y : vector<12xf32> into f32
  return %0, %1 : f32, f32
}
