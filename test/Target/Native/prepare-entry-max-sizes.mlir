// RUN: tfm-opt %s --tfm-prepare-entry="max-sizes=seq=16" | FileCheck %s

// A bounded size is recorded in the signature and checked where the entry
// starts, on the first input that has it.
//       CHECK: tfm.entry_signature = {dim_bounds = array<i64: 0, 16>, dim_names = ["batch", "seq"]
// CHECK-LABEL: func.func @__tfm_entry(
//       CHECK:   %[[SEQ:.*]] = tensor.dim %{{.*}}, %c1
//       CHECK:   %[[OK:.*]] = arith.cmpi ule, %[[SEQ]], %c16
//       CHECK:   cf.assert %[[OK]], "seq is above the bound of 16 the model was compiled with"
func.func @main(%x: tensor<?x?x4xf32> {tfm.name = "x", tfm.dims = ["batch", "seq", ""]})
    -> (tensor<?x?x4xf32> {tfm.name = "y"}) {
  %y = arith.addf %x, %x : tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}
