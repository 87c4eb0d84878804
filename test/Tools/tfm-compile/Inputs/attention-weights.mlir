// An attention with every masking (an additive mask, valid_lens per batch
// and head with a 0, causal) and a multi-head attention with valid_lens, for
// attention-weights.test.
func.func @main(%q: tensor<2x3x6x8xf32> {tfm.name = "q"}, %k: tensor<2x3x7x8xf32> {tfm.name = "k"},
                %v: tensor<2x3x7x8xf32> {tfm.name = "v"}, %mask: tensor<6x7xf32> {tfm.name = "mask"},
                %lens: tensor<2x3xi64> {tfm.name = "lens"},
                %x: tensor<2x5x8xf32> {tfm.name = "x"}, %w: tensor<8x8xf32> {tfm.name = "w"},
                %xlens: tensor<2xi32> {tfm.name = "xlens"})
    -> (tensor<2x3x6x8xf32> {tfm.name = "out"}, tensor<2x5x8xf32> {tfm.name = "mha"}) {
  %0 = tfm.attention %q, %k, %v valid_lens(%lens) mask(%mask) {causal} : (tensor<2x3x6x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3x7x8xf32>, tensor<2x3xi64>, tensor<6x7xf32>) -> tensor<2x3x6x8xf32>
  %1 = tfm.multi_head_attention %x, %x, %x weights(%w, %w, %w, %w) valid_lens(%xlens) {num_heads = 2 : i64} : (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<2xi32>) -> tensor<2x5x8xf32>
  return %0, %1 : tensor<2x3x6x8xf32>, tensor<2x5x8xf32>
}
