// Products whose reduction has length 0: a linear on [2, 0] (its bias), a
// batched matmul with D = 0 (zeros), an FFN without hidden units (its
// second bias), and attention over zero keys (zeros).
func.func @main(%x: tensor<2x0xf32> {tfm.name = "x"},
                %q: tensor<3x4x0xf32> {tfm.name = "q"},
                %k: tensor<3x0x5xf32> {tfm.name = "k"},
                %h: tensor<2x6xf32> {tfm.name = "h"},
                %aq: tensor<2x3x4xf32> {tfm.name = "aq"},
                %ak: tensor<2x0x4xf32> {tfm.name = "ak"},
                %av: tensor<2x0x5xf32> {tfm.name = "av"})
    -> (tensor<2x3xf32> {tfm.name = "linear"},
        tensor<3x4x5xf32> {tfm.name = "bmm"},
        tensor<2x6xf32> {tfm.name = "ffn"},
        tensor<2x3x5xf32> {tfm.name = "attention"}) {
  %w = arith.constant dense<0.0> : tensor<3x0xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = tfm.linear %x, %w, %b : (tensor<2x0xf32>, tensor<3x0xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %s = tfm.batch_matmul %q, %k : (tensor<3x4x0xf32>, tensor<3x0x5xf32>) -> tensor<3x4x5xf32>
  %w1 = arith.constant dense<0.0> : tensor<0x6xf32>
  %b1 = arith.constant dense<0.0> : tensor<0xf32>
  %w2 = arith.constant dense<0.0> : tensor<6x0xf32>
  %b2 = arith.constant dense<[0.5, -1.0, 2.0, 0.0, 3.5, -2.5]> : tensor<6xf32>
  %f = tfm.ffn %h dense1(%w1, %b1) dense2(%w2, %b2) : (tensor<2x6xf32>, tensor<0x6xf32>, tensor<0xf32>, tensor<6x0xf32>, tensor<6xf32>) -> tensor<2x6xf32>
  %a = tfm.attention %aq, %ak, %av : (tensor<2x3x4xf32>, tensor<2x0x4xf32>, tensor<2x0x5xf32>) -> tensor<2x3x5xf32>
  return %y, %s, %f, %a : tensor<2x3xf32>, tensor<3x4x5xf32>, tensor<2x6xf32>, tensor<2x3x5xf32>
}
