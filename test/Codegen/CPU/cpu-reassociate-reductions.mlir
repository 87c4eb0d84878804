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
