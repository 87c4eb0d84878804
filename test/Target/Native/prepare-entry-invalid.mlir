// RUN: tfm-opt %s --tfm-prepare-entry -split-input-file -verify-diagnostics

// expected-error @+1 {{entry @main: input 0 has the dynamic shape 'tensor<?x8xf32>'; tfm-compile needs static shapes at the entry}}
func.func @main(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
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
