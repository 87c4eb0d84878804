// Multi-head attention as PyTorch's nn.MultiheadAttention exports it at
// batch 1: [S, H * Dh] split into [S, H, Dh], heads transposed to
// [H, S, Dh] for the attention and back after it. 80 tokens: two query
// tiles and a remainder; 4 heads of 16.
func.func @main(%q: tensor<80x64xf32>, %k: tensor<80x64xf32>,
                %v: tensor<80x64xf32>) -> tensor<80x64xf32> {
  %e = tensor.empty() : tensor<4x80x16xf32>
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [80, 4, 16] : tensor<80x64xf32> into tensor<80x4x16xf32>
  %qh = linalg.transpose ins(%q3 : tensor<80x4x16xf32>) outs(%e : tensor<4x80x16xf32>) permutation = [1, 0, 2]
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [80, 4, 16] : tensor<80x64xf32> into tensor<80x4x16xf32>
  %kh = linalg.transpose ins(%k3 : tensor<80x4x16xf32>) outs(%e : tensor<4x80x16xf32>) permutation = [1, 0, 2]
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [80, 4, 16] : tensor<80x64xf32> into tensor<80x4x16xf32>
  %vh = linalg.transpose ins(%v3 : tensor<80x4x16xf32>) outs(%e : tensor<4x80x16xf32>) permutation = [1, 0, 2]
  %o = tfm.attention %qh, %kh, %vh : (tensor<4x80x16xf32>, tensor<4x80x16xf32>, tensor<4x80x16xf32>) -> tensor<4x80x16xf32>
  %eo = tensor.empty() : tensor<80x4x16xf32>
  %o3 = linalg.transpose ins(%o : tensor<4x80x16xf32>) outs(%eo : tensor<80x4x16xf32>) permutation = [1, 0, 2]
  %y = tensor.collapse_shape %o3 [[0], [1, 2]] : tensor<80x4x16xf32> into tensor<80x64xf32>
  return %y : tensor<80x64xf32>
}
