// Upstream products (K transposed by the indexing map), a scale by 0.25, a
// causal mask from linalg.index (-1e9 above the diagonal) broadcast over the
// batch, more keys than queries.
func.func @main(%q: tensor<4x7x16xf32>, %k: tensor<4x9x16xf32>,
                %v: tensor<4x9x8xf32>) -> tensor<4x7x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x7x9xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4x7x9xf32>) -> tensor<4x7x9xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<4x7x16xf32>, tensor<4x9x16xf32>)
      outs(%f0 : tensor<4x7x9xf32>) -> tensor<4x7x9xf32>
  %c = arith.constant dense<0.25> : tensor<4x7x9xf32>
  %scaled = arith.mulf %s, %c : tensor<4x7x9xf32>
  %e = tensor.empty() : tensor<7x9xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<7x9xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi ugt, %j, %i : index
    %big = arith.constant -1.0e9 : f32
    %z = arith.constant 0.0 : f32
    %m = arith.select %future, %big, %z : f32
    linalg.yield %m : f32
  } -> tensor<7x9xf32>
  %eb = tensor.empty() : tensor<4x7x9xf32>
  %mb = linalg.broadcast ins(%mask : tensor<7x9xf32>)
      outs(%eb : tensor<4x7x9xf32>) dimensions = [0]
  %masked = arith.addf %scaled, %mb : tensor<4x7x9xf32>
  %w = tfm.masked_softmax %masked : (tensor<4x7x9xf32>) -> tensor<4x7x9xf32>
  %e2 = tensor.empty() : tensor<4x7x8xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4x7x8xf32>) -> tensor<4x7x8xf32>
  %o = linalg.batch_matmul ins(%w, %v : tensor<4x7x9xf32>, tensor<4x9x8xf32>)
      outs(%f2 : tensor<4x7x8xf32>) -> tensor<4x7x8xf32>
  return %o : tensor<4x7x8xf32>
}
