// RUN: tfm-opt %s --tfm-prepare-entry -split-input-file -verify-diagnostics

// A dynamic result size that is neither an input's nor a sum of them (a
// product: the batch of 2 folded into the sequence) cannot be allocated by
// the caller. (Sums can: prepare-entry-sum-sizes.mlir.)

// expected-error @+1 {{entry @main: dimension 0 of result 0 (result0) is computed from the inputs' sizes other than as their sum; tfm's binaries return results whose dynamic sizes are input sizes or sums of them}}
func.func @main(%x: tensor<2x?x8xf32>) -> tensor<?x8xf32> {
  %r = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x?x8xf32> into tensor<?x8xf32>
  return %r : tensor<?x8xf32>
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

// -----

// Every tensor's size in bytes must fit in 64 bits: the lowering multiplies
// shapes into byte counts. An entry argument is named as such...

// expected-error @+1 {{argument 0 of @main has type 'tensor<4294967296x4294967296xf32>', whose size in bytes does not fit in 64 bits}}
func.func @main(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  %y = tfm.gelu %x : tensor<4294967296x4294967296xf32>
  return %y : tensor<4294967296x4294967296xf32>
}

// -----

// ... and a value inside the graph by its op, even where the dynamic sizes
// are unknown (each counts as 1): 2 x 2^62 f32 elements are 2^65 bytes.

func.func @main(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %n = arith.constant 2305843009213693952 : index
  // expected-error @+1 {{result 0 of 'tensor.empty' has type 'tensor<?x2x4611686018427387904xf32>', whose size in bytes does not fit in 64 bits}}
  %e = tensor.empty(%n) : tensor<?x2x4611686018427387904xf32>
  return %x : tensor<?x2xf32>
}
