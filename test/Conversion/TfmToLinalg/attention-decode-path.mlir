// RUN: tfm-opt %s --convert-tfm-to-linalg=decode-path -split-input-file | FileCheck %s
// RUN: tfm-opt %s --convert-tfm-to-linalg -split-input-file | FileCheck %s --check-prefix=FLASH

// With decode-path, an attention of one query row per batch (a decoding
// step against a key/value cache) materialises its scores, each a dot
// product of the query with a key row read where it lies: no transposed
// copy of the keys and no online softmax. Then the causal mask after the
// cache's positions, the softmax and the product with the values. Without
// valid lengths or a mask, all of it is the body of an scf.forall over the
// batch x heads: one parallel region, each iteration one head's attention.
// CHECK-LABEL: func.func @one_query(
//  CHECK-SAME:   %[[Q:[^:]*]]: tensor<12x1x64xf32>, %[[K:[^:]*]]: tensor<12x?x64xf32>, %[[V:[^:]*]]: tensor<12x?x64xf32>, %[[P:[^:]*]]: index)
//   CHECK-NOT:   linalg.transpose
//   CHECK-NOT:   tfm.online_attention
//       CHECK:   scf.forall (%[[B:.*]]) in (12) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<12x1x64xf32>)
//       CHECK:     %[[QB:.*]] = tensor.extract_slice %[[Q]][%[[B]], 0, 0] [1, 1, 64]
//       CHECK:     %[[KB:.*]] = tensor.extract_slice %[[K]][%[[B]], 0, 0] [1, %{{.*}}, 64]
//       CHECK:     %[[VB:.*]] = tensor.extract_slice %[[V]][%[[B]], 0, 0] [1, %{{.*}}, 64]
//       CHECK:     linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[QB]], %[[KB]] : tensor<1x1x64xf32>, tensor<1x?x64xf32>)
//       CHECK:       arith.mulf
//       CHECK:       arith.addf
//       CHECK:     linalg.generic
//       CHECK:       arith.addi %{{.*}}, %[[P]] : index
//       CHECK:       arith.cmpi sgt
//       CHECK:     %[[R:.*]] = linalg.batch_matmul ins(%{{.*}}, %[[VB]] : tensor<1x1x?xf32>, tensor<1x?x64xf32>)
//       CHECK:     scf.forall.in_parallel
//  CHECK-NEXT:       tensor.parallel_insert_slice %[[R]] into %[[OUT]][%[[B]], 0, 0] [1, 1, 64]
//   CHECK-NOT:   tfm.online_attention
// FLASH-LABEL: func.func @one_query(
//       FLASH:   linalg.transpose
//       FLASH:   tfm.online_attention
func.func @one_query(%q: tensor<12x1x64xf32>, %k: tensor<12x?x64xf32>, %v: tensor<12x?x64xf32>, %p: index) -> tensor<12x1x64xf32> {
  %r = tfm.attention %q, %k, %v query_offset(%p) {causal} : (tensor<12x1x64xf32>, tensor<12x?x64xf32>, tensor<12x?x64xf32>, index) -> tensor<12x1x64xf32>
  return %r : tensor<12x1x64xf32>
}

// -----

// A dynamic number of queries: one row or more is known at run time, and
// an scf.if chooses between the decoding path (the queries cast to one row)
// and the flash attention.
// CHECK-LABEL: func.func @dynamic_queries(
//  CHECK-SAME:   %[[Q:[^:]*]]: tensor<12x?x64xf32>
//       CHECK:   %[[S:.*]] = tensor.dim %[[Q]], %c1
//       CHECK:   %[[ONE:.*]] = arith.cmpi eq, %[[S]], %c1
//       CHECK:   scf.if %[[ONE]] -> (tensor<12x?x64xf32>) {
//       CHECK:     tensor.cast %[[Q]] : tensor<12x?x64xf32> to tensor<12x1x64xf32>
//   CHECK-NOT:     linalg.transpose
//       CHECK:     linalg.batch_matmul
//       CHECK:   } else {
//       CHECK:     linalg.transpose
//       CHECK:     tfm.online_attention
func.func @dynamic_queries(%q: tensor<12x?x64xf32>, %k: tensor<12x?x64xf32>, %v: tensor<12x?x64xf32>, %p: index) -> tensor<12x?x64xf32> {
  %r = tfm.attention %q, %k, %v query_offset(%p) {causal} : (tensor<12x?x64xf32>, tensor<12x?x64xf32>, tensor<12x?x64xf32>, index) -> tensor<12x?x64xf32>
  return %r : tensor<12x?x64xf32>
}

// -----

// Valid lengths (and masks) apply to the materialised scores as in the
// flash attention: keys at or past the length get d2l's -1e6.
// CHECK-LABEL: func.func @with_lens(
//  CHECK-SAME:   %{{[^:]*}}: tensor<12x1x64xf32>, %{{[^:]*}}: tensor<12x8x64xf32>, %{{[^:]*}}: tensor<12x8x64xf32>, %[[LENS:[^:]*]]: tensor<12xi32>)
//   CHECK-NOT:   tfm.online_attention
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %[[LENS]] : tensor<12x1x8xf32>, tensor<12xi32>)
//       CHECK:     arith.cmpi sge
//       CHECK:     arith.select
//   CHECK-NOT:   tfm.online_attention
func.func @with_lens(%q: tensor<12x1x64xf32>, %k: tensor<12x8x64xf32>, %v: tensor<12x8x64xf32>, %lens: tensor<12xi32>) -> tensor<12x1x64xf32> {
  %r = tfm.attention %q, %k, %v valid_lens(%lens) : (tensor<12x1x64xf32>, tensor<12x8x64xf32>, tensor<12x8x64xf32>, tensor<12xi32>) -> tensor<12x1x64xf32>
  return %r : tensor<12x1x64xf32>
}

// -----

// Several static queries keep the flash attention alone.
// CHECK-LABEL: func.func @four_queries(
//   CHECK-NOT:   scf.if
//       CHECK:   tfm.online_attention
func.func @four_queries(%q: tensor<12x4x64xf32>, %k: tensor<12x8x64xf32>, %v: tensor<12x8x64xf32>) -> tensor<12x4x64xf32> {
  %r = tfm.attention %q, %k, %v {causal} : (tensor<12x4x64xf32>, tensor<12x8x64xf32>, tensor<12x8x64xf32>) -> tensor<12x4x64xf32>
  return %r : tensor<12x4x64xf32>
}
