// A product with 16 MiB of weights (bound with --weights): enough whole
// pages, and huge pages, for runtime/Weights.cpp to move.
func.func @main(%x: tensor<8x1024xf32> {tfm.name = "x"},
                %w: tensor<4096x1024xf32> {tfm.weight = "w"})
    -> tensor<8x4096xf32> {
  %y = tfm.linear %x, %w : (tensor<8x1024xf32>, tensor<4096x1024xf32>)
      -> tensor<8x4096xf32>
  return %y : tensor<8x4096xf32>
}
