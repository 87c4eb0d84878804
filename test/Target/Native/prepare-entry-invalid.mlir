// RUN: tfm-opt %s --tfm-prepare-entry -split-input-file -verify-diagnostics

// A dynamic result size that is not an input's (the class token makes
// the sequence one longer) cannot be allocated by the caller.

// expected-error @+1 {{entry @main: dimension 1 of result 0 (result0) is computed from the inputs' sizes rather than equal to one of them; tfm's binaries return results whose dynamic sizes are input sizes}}
func.func @main(%x: tensor<2x?x8xf32>, %cls: tensor<1x1x8xf32>) -> tensor<2x?x8xf32> {
  %r = tfm.prepend_class_token %x, %cls : (tensor<2x?x8xf32>, tensor<1x1x8xf32>) -> tensor<2x?x8xf32>
  return %r : tensor<2x?x8xf32>
}

// -----

// The typed C function of an entry @run would be tfm_run, the packed entry
// point.

// expected-error @+1 {{entry @run: its C function would be tfm_run, which is the name of the packed entry point of every tfm binary; rename the entry}}
func.func @run(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{entry @signature: its C function would be tfm_signature, which is the name of the signature text of every tfm binary; rename the entry}}
func.func @signature(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}

// -----

// expected-error @+1 {{entry @main: input 0's tfm.dims must name each dimension of 'tensor<?x8xf32>' ("" for none, and none of a static size), found ["batch"]}}
func.func @main(%x: tensor<?x8xf32> {tfm.dims = ["batch"]}) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}
