// RUN: tfm-opt %s --tfm-prepare-entry -split-input-file -verify-diagnostics

// expected-error @+1 {{entry @main: input 0 has the dynamic shape 'tensor<?x8xf32>'; tfm-compile needs static shapes at the entry}}
func.func @main(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}
