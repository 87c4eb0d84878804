// RUN: tfm-opt %s --tfm-drop-kv-cache-results | FileCheck %s

// The updated cache is the argument's buffer (through a cast): the result
// goes, the other one stays.
// CHECK-LABEL: func.func @main(
//  CHECK-SAME:   %{{.*}}: memref<4x8xf32>, %[[Y:.*]]: memref<2xf32>) -> memref<2xf32> {
//       CHECK:   return %[[Y]] : memref<2xf32>
func.func @main(%cache: memref<4x8xf32>, %y: memref<2xf32>)
    -> (memref<?x8xf32> {tfm.kv_cache = 0 : i64}, memref<2xf32>) {
  %c = memref.cast %cache : memref<4x8xf32> to memref<?x8xf32>
  return %c, %y : memref<?x8xf32>, memref<2xf32>
}
