// RUN: tfm-opt %s --tfm-bind-weights -verify-diagnostics

// A weight argument needs a weights file.
// expected-error @+1 {{entry @main has 1 weight argument(s) but no --weights file was given; the first is argument 1 ('w')}}
func.func @main(%x: tensor<2x8xf32>, %w: tensor<8x8xf32> {tfm.weight = "w"}) -> tensor<2x8xf32> {
  return %x : tensor<2x8xf32>
}
