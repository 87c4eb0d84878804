// Rank-2 attention: linalg.matmul with a linalg.transpose of K, the scores
// divided by 3 in a linalg.generic, no mask.
func.func @main(%q: tensor<11x12xf32>, %k: tensor<13x12xf32>,
                %v: tensor<13x5xf32>) -> tensor<11x5xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<12x13xf32>
  %kt = linalg.transpose ins(%k : tensor<13x12xf32>) outs(%et : tensor<12x13xf32>)
      permutation = [1, 0]
  %e0 = tensor.empty() : tensor<11x13xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<11x13xf32>) -> tensor<11x13xf32>
  %s = linalg.matmul ins(%q, %kt : tensor<11x12xf32>, tensor<12x13xf32>)
      outs(%f0 : tensor<11x13xf32>) -> tensor<11x13xf32>
  %three = arith.constant 3.0 : f32
  %e1 = tensor.empty() : tensor<11x13xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                             affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<11x13xf32>) outs(%e1 : tensor<11x13xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.divf %x, %three : f32
    linalg.yield %y : f32
  } -> tensor<11x13xf32>
  %w = tfm.masked_softmax %scaled : (tensor<11x13xf32>) -> tensor<11x13xf32>
  %e2 = tensor.empty() : tensor<11x5xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<11x5xf32>) -> tensor<11x5xf32>
  %o = linalg.matmul ins(%w, %v : tensor<11x13xf32>, tensor<13x5xf32>)
      outs(%f2 : tensor<11x5xf32>) -> tensor<11x5xf32>
  return %o : tensor<11x5xf32>
}
