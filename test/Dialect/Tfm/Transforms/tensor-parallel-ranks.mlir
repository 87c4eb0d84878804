// RUN: tfm-opt %s --tfm-tensor-parallel=ranks=0 -verify-diagnostics

// A split over no ranks is refused; ranks=1 leaves the module as it is
// (tensor-parallel.mlir's runs split over 2).

// expected-error @+1 {{tfm-tensor-parallel: ranks must be at least 1, found 0}}
module {
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
