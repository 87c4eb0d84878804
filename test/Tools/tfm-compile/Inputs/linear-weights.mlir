// One nn.Linear(4, 3) whose weights are bound by name, for to-safetensors.test.
func.func @main(%x: tensor<2x4xf32> {tfm.name = "x"},
                %w: tensor<3x4xf32> {tfm.weight = "proj.weight"},
                %b: tensor<3xf32> {tfm.weight = "proj.bias"}) -> (tensor<2x3xf32> {tfm.name = "y"}) {
  %0 = tfm.linear %x, %w, %b : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
