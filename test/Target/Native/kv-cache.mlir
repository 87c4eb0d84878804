// RUN: tfm-opt %s --split-input-file --tfm-kv-cache=max-len=32 | FileCheck %s
// RUN: tfm-opt %s --split-input-file --tfm-kv-cache=max-len=32 --tfm-prepare-entry | FileCheck %s --check-prefix=SIG

// A decoder "with past": each present result is its past argument with this
// call's keys (values) appended along the length. The pasts become caches
// of 32 positions, a rank-0 argument named like the past length gives the
// position, every read of the past length reads it, and each concat is a
// kv_cache_append whose updated cache is returned in the present's place.
// CHECK-LABEL: func.func @main(
//  CHECK-SAME:   %[[IDS:.*]]: tensor<1x?xi64> {tfm.dims = ["", "seq"], tfm.name = "ids"},
//  CHECK-SAME:   %[[POS:.*]]: tensor<i64> {tfm.kv_position, tfm.name = "past"},
//  CHECK-SAME:   %[[K:.*]]: tensor<1x2x32x4xf32> {tfm.dims = ["", "", "", ""], tfm.kv_cache, tfm.name = "past_key"},
//  CHECK-SAME:   %[[V:.*]]: tensor<1x2x32x4xf32> {tfm.dims = ["", "", "", ""], tfm.kv_cache, tfm.name = "past_value"},
//  CHECK-SAME:   -> (tensor<1x2x?x4xf32> {tfm.name = "out"},
//  CHECK-SAME:       tensor<1x2x32x4xf32> {tfm.kv_cache = 2 : i64, tfm.name = "past_key"},
//  CHECK-SAME:       tensor<1x2x32x4xf32> {tfm.kv_cache = 3 : i64, tfm.name = "past_value"})
//       CHECK:   %[[EXT:.*]] = tensor.extract %[[POS]][]
//       CHECK:   %[[P:.*]] = arith.index_cast %[[EXT]] : i64 to index
//       CHECK:   %[[OK:.*]] = arith.cmpi ule, %[[P]], %c32
//       CHECK:   cf.assert %[[OK]], "past must be between 0 and the caches' length, 32"
//       CHECK:   %[[KU:.*]], %[[KP:.*]] = tfm.kv_cache_append %[[K]], %{{.*}} at %[[P]]
//       CHECK:   %[[VU:.*]], %[[VP:.*]] = tfm.kv_cache_append %[[V]], %{{.*}} at %[[P]]
//       CHECK:   tfm.attention %{{.*}}, %[[KP]], %[[VP]] query_offset(%[[P]]) {causal}
//       CHECK:   return %{{.*}}, %[[KU]], %[[VU]]

// The signature lists the caches and the position as inputs, marked, and
// only the attention's output as an output.
//      SIG: tfm.entry_signature = {dim_names = ["seq"], inputs = [{dims = array<i64: 1, -2>, name = "ids", type = tensor<1x?xi64>}, {name = "past", role = "kv_position", type = tensor<i64>}, {name = "past_key", role = "kv_cache", type = tensor<1x2x32x4xf32>}, {name = "past_value", role = "kv_cache", type = tensor<1x2x32x4xf32>},
// SIG-SAME: outputs = [{dims = array<i64: 1, 2, -2, 4>, name = "out", type = tensor<1x2x?x4xf32>}]}
func.func @main(%ids: tensor<1x?xi64> {tfm.name = "ids", tfm.dims = ["", "seq"]},
                %past_k: tensor<1x2x?x4xf32> {tfm.name = "past_key", tfm.dims = ["", "", "past", ""]},
                %past_v: tensor<1x2x?x4xf32> {tfm.name = "past_value", tfm.dims = ["", "", "past", ""]},
                %q: tensor<1x2x?x4xf32> {tfm.name = "q", tfm.dims = ["", "", "seq", ""]},
                %k: tensor<1x2x?x4xf32> {tfm.name = "k", tfm.dims = ["", "", "seq", ""]},
                %v: tensor<1x2x?x4xf32> {tfm.name = "v", tfm.dims = ["", "", "seq", ""]})
    -> (tensor<1x2x?x4xf32> {tfm.name = "out"}, tensor<1x2x?x4xf32> {tfm.name = "present_key"},
        tensor<1x2x?x4xf32> {tfm.name = "present_value"}) {
  %c2 = arith.constant 2 : index
  %past = tensor.dim %past_k, %c2 : tensor<1x2x?x4xf32>
  %keys = tensor.concat dim(2) %past_k, %k : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %values = tensor.concat dim(2) %past_v, %v : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %o = tfm.attention %q, %keys, %values query_offset(%past) {causal}
      : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, index) -> tensor<1x2x?x4xf32>
  return %o, %keys, %values : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

// The caches are found by the structure (a result that is an argument with
// rows appended along its second-to-last dimension), not by names: pasts
// whose length is unnamed, or named differently by each input (as
// torch.onnx.export names axes given without names), share one position,
// named `past`, or `past_1` where an input is named `past` already.
// CHECK-LABEL: func.func @main(
//  CHECK-SAME:   %[[POS:.*]]: tensor<i64> {tfm.kv_position, tfm.name = "past_1"},
//  CHECK-SAME:   %[[K:.*]]: tensor<1x2x32x4xf32> {tfm.kv_cache, tfm.name = "pk"},
//  CHECK-SAME:   %[[V:.*]]: tensor<1x2x32x4xf32> {tfm.dims = ["", "", "", ""], tfm.kv_cache, tfm.name = "pv"},
//  CHECK-SAME:   %{{.*}}: tensor<1x2x?x4xf32> {tfm.name = "past"}
//       CHECK:   %[[P:.*]] = arith.index_cast
//       CHECK:   tfm.kv_cache_append %[[K]], %{{.*}} at %[[P]]
//       CHECK:   tfm.kv_cache_append %[[V]], %{{.*}} at %[[P]]
func.func @main(%pk: tensor<1x2x?x4xf32> {tfm.name = "pk"},
                %pv: tensor<1x2x?x4xf32> {tfm.name = "pv", tfm.dims = ["", "", "pv_dynamic_axes_1", ""]},
                %k: tensor<1x2x?x4xf32> {tfm.name = "past"})
    -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) {
  %ck = tensor.concat dim(2) %pk, %k : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %cv = tensor.concat dim(2) %pv, %k : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  %y = arith.negf %k : tensor<1x2x?x4xf32>
  return %y, %ck, %cv : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

// Hugging Face's names: the position is named like the past axis that the
// caches share.
// CHECK-LABEL: func.func @main(
//  CHECK-SAME:   tensor<i64> {tfm.kv_position, tfm.name = "past_sequence_length"}
//  CHECK-SAME:   tensor<?x2x32x4xf32> {tfm.dims = ["batch_size", "", "", ""], tfm.kv_cache, tfm.name = "past_key_values.0.key"}
func.func @main(%pk: tensor<?x2x?x4xf32> {tfm.name = "past_key_values.0.key", tfm.dims = ["batch_size", "", "past_sequence_length", ""]},
                %k: tensor<?x2x?x4xf32> {tfm.name = "k", tfm.dims = ["batch_size", "", "sequence_length", ""]})
    -> (tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>) {
  %ck = tensor.concat dim(2) %pk, %k : (tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>) -> tensor<?x2x?x4xf32>
  %y = arith.negf %k : tensor<?x2x?x4xf32>
  return %y, %ck : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>
}
