// Cross-attention of 5 queries on 7 keys and values (one memory tensor),
// 2 heads of 8, causal, scale 0.25 (not the default 1/sqrt(8)), and biases
// on the query and output projections only: the fused op gets zeros for
// the key and value biases.
func.func @main(%q: tensor<2x5x12xf32>, %mem: tensor<2x7x20xf32>,
                %wq: tensor<16x12xf32>, %wk: tensor<16x20xf32>,
                %wv: tensor<16x20xf32>, %wo: tensor<8x16xf32>,
                %bq: tensor<16xf32>, %bo: tensor<8xf32>)
    -> tensor<2x5x8xf32> {
  %pq = tfm.linear %q, %wq, %bq
      : (tensor<2x5x12xf32>, tensor<16x12xf32>, tensor<16xf32>)
      -> tensor<2x5x16xf32>
  %sq = tfm.split_heads %pq {num_heads = 2 : i64}
      : (tensor<2x5x16xf32>) -> tensor<4x5x8xf32>
  %pk = tfm.linear %mem, %wk : (tensor<2x7x20xf32>, tensor<16x20xf32>)
      -> tensor<2x7x16xf32>
  %sk = tfm.split_heads %pk {num_heads = 2 : i64}
      : (tensor<2x7x16xf32>) -> tensor<4x7x8xf32>
  %pv = tfm.linear %mem, %wv : (tensor<2x7x20xf32>, tensor<16x20xf32>)
      -> tensor<2x7x16xf32>
  %sv = tfm.split_heads %pv {num_heads = 2 : i64}
      : (tensor<2x7x16xf32>) -> tensor<4x7x8xf32>
  %a = tfm.attention %sq, %sk, %sv {causal, scale = 0.25 : f64}
      : (tensor<4x5x8xf32>, tensor<4x7x8xf32>, tensor<4x7x8xf32>)
      -> tensor<4x5x8xf32>
  %m = tfm.merge_heads %a {num_heads = 2 : i64}
      : (tensor<4x5x8xf32>) -> tensor<2x5x16xf32>
  %y = tfm.linear %m, %wo, %bo
      : (tensor<2x5x16xf32>, tensor<8x16xf32>, tensor<8xf32>)
      -> tensor<2x5x8xf32>
  return %y : tensor<2x5x8xf32>
}
