// Scaled dot-product attention over 64 keys (AVX-512's vectors of 16 and
// AVX2's of 8 lanes reduce the rows' maxima as trees).
func.func @main(
    %query: tensor<2x40x64xf32> {tfm.name = "query"},
    %key: tensor<2x64x64xf32> {tfm.name = "key"},
    %value: tensor<2x64x64xf32> {tfm.name = "value"})
    -> (tensor<2x40x64xf32> {tfm.name = "result"}) {
  %result = tfm.attention %query, %key, %value
      : (tensor<2x40x64xf32>, tensor<2x64x64xf32>, tensor<2x64x64xf32>)
         -> tensor<2x40x64xf32>
  return %result : tensor<2x40x64xf32>
}
