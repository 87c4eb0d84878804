// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention \
// RUN:   | tfm-opt -split-input-file | FileCheck %s

// Masks in tfm-fuse-attention. An additive mask before linalg.softmax is
// classified: built from index comparisons (key index > query index gives a
// large negative value, else 0) or a constant that is 0 on and below the
// diagonal and large negative above it becomes `causal`; any other mask
// becomes the attention's additive `mask` operand, broadcastable to the
// scores. valid_lens of tfm.masked_softmax carry over.

#id2 = affine_map<(i, j) -> (i, j)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>

// A rank-3 mask from linalg.index: select(j > i, -inf, 0), added to the
// scaled scores. Nothing is left of it.

// CHECK-LABEL: func.func @causal_from_indices
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x4x8xf32>, %[[K:[^:]*]]: tensor<2x4x8xf32>, %[[V:[^:]*]]: tensor<2x4x8xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 5.000000e-01 : f64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @causal_from_indices(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>,
                               %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %c = arith.constant dense<0.5> : tensor<2x4x4xf32>
  %scaled = arith.mulf %s, %c : tensor<2x4x4xf32>
  %e = tensor.empty() : tensor<2x4x4xf32>
  %mask = linalg.generic {indexing_maps = [#id3],
                          iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<2x4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %future = arith.cmpi ugt, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %m = arith.select %future, %ninf, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x4x4xf32>
  %masked = arith.addf %scaled, %mask : tensor<2x4x4xf32>
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x4x4xf32>)
      outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

// A rank-2 [queries, keys] mask from indices written the other way round
// (i < j, with i64 indices and -1e9), broadcast over the batch by
// linalg.broadcast.

// CHECK-LABEL: func.func @causal_from_indices_broadcast
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x4x8xf32>, %[[K:[^:]*]]: tensor<2x4x8xf32>, %[[V:[^:]*]]: tensor<2x4x8xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.000000e+00 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @causal_from_indices_broadcast(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>,
                                         %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %mask = linalg.generic {indexing_maps = [#id2],
                          iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %future = arith.cmpi slt, %i64, %j64 : i64
    %big = arith.constant -1.0e9 : f32
    %zero = arith.constant 0.0 : f32
    %m = arith.select %future, %big, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %eb = tensor.empty() : tensor<2x4x4xf32>
  %mb = linalg.broadcast ins(%mask : tensor<4x4xf32>)
      outs(%eb : tensor<2x4x4xf32>) dimensions = [0]
  %masked = arith.addf %s, %mb : tensor<2x4x4xf32>
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x4x4xf32>)
      outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

// The kept side selected: select(j <= i, 0, -1e4), with -1e4 the mildest
// value that still counts as masking. The product with V is a
// linalg.matmul: rank-2 attention.

// CHECK-LABEL: func.func @causal_keep_lower_rank2
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<4x8xf32>, %[[K:[^:]*]]: tensor<4x8xf32>, %[[V:[^:]*]]: tensor<4x8xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.000000e+00 : f64} : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
func.func @causal_keep_lower_rank2(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>,
                                   %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %z = arith.constant dense<0.0> : tensor<4x4xf32>
  %s = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<4x8xf32>, tensor<4x8xf32>)
      outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %mask = linalg.generic {indexing_maps = [#id2],
                          iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %past = arith.cmpi ule, %j, %i : index
    %big = arith.constant -1.0e4 : f32
    %zero = arith.constant 0.0 : f32
    %m = arith.select %past, %zero, %big : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %masked = arith.addf %s, %mask : tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %w = linalg.softmax dimension(1) ins(%masked : tensor<4x4xf32>)
      outs(%e1 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %z2 = arith.constant dense<0.0> : tensor<4x8xf32>
  %o = linalg.matmul ins(%w, %v : tensor<4x4xf32>, tensor<4x8xf32>)
      outs(%z2 : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// A constant upper-triangular mask (-1e9 above the diagonal), read by a
// linalg.generic that adds it to the scores with a broadcasting map. The
// scores have more keys than queries: the mask is aligned at the top left.

// CHECK-LABEL: func.func @causal_constant
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x4x8xf32>, %[[V:[^:]*]]: tensor<2x4x8xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f64}
// CHECK-NEXT:    return %[[A]]
func.func @causal_constant(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>,
                           %v: tensor<2x4x8xf32>) -> tensor<2x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %c = arith.constant dense<8.0> : tensor<2x3x4xf32>
  %scaled = arith.divf %s, %c : tensor<2x3x4xf32>
  %tri = arith.constant dense<[[0.0, -1.0e9, -1.0e9, -1.0e9],
                               [0.0, 0.0, -1.0e9, -1.0e9],
                               [0.0, 0.0, 0.0, -1.0e9]]> : tensor<3x4xf32>
  %e = tensor.empty() : tensor<2x3x4xf32>
  %masked = linalg.generic
      {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                        affine_map<(b, i, j) -> (i, j)>,
                        affine_map<(b, i, j) -> (b, i, j)>],
       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%scaled, %tri : tensor<2x3x4xf32>, tensor<3x4xf32>)
      outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%x: f32, %m: f32, %out: f32):
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  } -> tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x4xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}

// -----

// A causal constant with -inf and finfo(float32).min, added before the
// scale: scaling by a positive factor keeps it causal.

// CHECK-LABEL: func.func @causal_constant_before_scale
// CHECK:         tfm.attention
// CHECK-SAME:      {causal, scale = 1.250000e-01 : f64}
// CHECK-NOT:     linalg.softmax
func.func @causal_constant_before_scale(%q: tensor<2x3x8xf32>, %k: tensor<2x3x8xf32>,
                                        %v: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x3xf32>
  %tri = arith.constant dense<[[[0.0, 0xFF800000, -3.40282347e+38],
                                [0.0, 0.0, 0xFF800000],
                                [0.0, 0.0, 0.0]]]> : tensor<1x3x3xf32>
  %e = tensor.empty() : tensor<2x3x3xf32>
  %masked = linalg.generic
      {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                        affine_map<(b, i, j) -> (0, i, j)>,
                        affine_map<(b, i, j) -> (b, i, j)>],
       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %tri : tensor<2x3x3xf32>, tensor<1x3x3xf32>)
      outs(%e : tensor<2x3x3xf32>) {
  ^bb0(%x: f32, %m: f32, %out: f32):
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  } -> tensor<2x3x3xf32>
  %c = arith.constant dense<0.125> : tensor<2x3x3xf32>
  %scaled = arith.mulf %masked, %c : tensor<2x3x3xf32>
  %e1 = tensor.empty() : tensor<2x3x3xf32>
  %w = linalg.softmax dimension(2) ins(%scaled : tensor<2x3x3xf32>)
      outs(%e1 : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x3xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}

// -----

// An additive mask of the scores' shape becomes the mask operand.

// CHECK-LABEL: func.func @additive_mask
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x4x8xf32>, %[[V:[^:]*]]: tensor<2x4x8xf32>, %[[M:[^:]*]]: tensor<2x3x4xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]]) {scale = 1.000000e+00 : f64} : (tensor<2x3x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @additive_mask(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>,
                         %v: tensor<2x4x8xf32>, %m: tensor<2x3x4xf32>)
    -> tensor<2x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %masked = arith.addf %m, %s : tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x4xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}

// -----

// A padding mask per (batch, key), broadcast over the queries by
// linalg.broadcast: the mask operand is the source with a unit dimension
// for the queries, so that it broadcasts by NumPy's rules.

// CHECK-LABEL: func.func @padding_mask_broadcast
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x4x8xf32>, %[[V:[^:]*]]: tensor<2x4x8xf32>, %[[M:[^:]*]]: tensor<2x4xf32>
// CHECK-NEXT:    %[[M3:.*]] = tensor.expand_shape %[[M]] {{\[}}[0, 1], [2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[M3]]) {scale = 1.000000e+00 : f64} : (tensor<2x3x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x1x4xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @padding_mask_broadcast(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>,
                                  %v: tensor<2x4x8xf32>, %m: tensor<2x4xf32>)
    -> tensor<2x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %eb = tensor.empty() : tensor<2x3x4xf32>
  %mb = linalg.broadcast ins(%m : tensor<2x4xf32>)
      outs(%eb : tensor<2x3x4xf32>) dimensions = [1]
  %masked = arith.addf %s, %mb : tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x4xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}

// -----

// A key mask [keys] read by a linalg.generic through (b, i, j) -> (j): it
// broadcasts by NumPy's rules as it is. The same generic scales the scores
// first (mulf by a captured constant, then addf).

// CHECK-LABEL: func.func @key_mask_generic
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x3x8xf32>, %[[K:[^:]*]]: tensor<2x4x8xf32>, %[[V:[^:]*]]: tensor<2x4x8xf32>, %[[M:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]]) {scale = 2.500000e-01 : f64} : (tensor<2x3x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<4xf32>) -> tensor<2x3x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @key_mask_generic(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>,
                            %v: tensor<2x4x8xf32>, %m: tensor<4xf32>)
    -> tensor<2x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %quarter = arith.constant 0.25 : f32
  %e = tensor.empty() : tensor<2x3x4xf32>
  %masked = linalg.generic
      {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                        affine_map<(b, i, j) -> (j)>,
                        affine_map<(b, i, j) -> (b, i, j)>],
       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %m : tensor<2x3x4xf32>, tensor<4xf32>)
      outs(%e : tensor<2x3x4xf32>) {
  ^bb0(%x: f32, %mk: f32, %out: f32):
    %y = arith.mulf %x, %quarter : f32
    %z = arith.addf %y, %mk : f32
    linalg.yield %z : f32
  } -> tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x4xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}

// -----

// PyTorch's 4D layout with a [batch, 1, 1, keys] padding mask read at index
// 0 along the heads and queries, plus a causal mask from indices: both.

// CHECK-LABEL: func.func @causal_and_padding_4d
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x2x4x8xf32>, %[[K:[^:]*]]: tensor<2x2x4x8xf32>, %[[V:[^:]*]]: tensor<2x2x4x8xf32>, %[[M:[^:]*]]: tensor<2x1x1x4xf32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]]) {causal, scale = 1.000000e+00 : f64} : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x1x1x4xf32>) -> tensor<2x2x4x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @causal_and_padding_4d(%q: tensor<2x2x4x8xf32>, %k: tensor<2x2x4x8xf32>,
                                 %v: tensor<2x2x4x8xf32>, %m: tensor<2x1x1x4xf32>)
    -> tensor<2x2x4x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x4xf32>
  %e = tensor.empty() : tensor<2x2x4x4xf32>
  %padded = linalg.generic
      {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>,
                        affine_map<(b, h, i, j) -> (b, 0, 0, j)>,
                        affine_map<(b, h, i, j) -> (b, h, i, j)>],
       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %m : tensor<2x2x4x4xf32>, tensor<2x1x1x4xf32>)
      outs(%e : tensor<2x2x4x4xf32>) {
  ^bb0(%x: f32, %mk: f32, %out: f32):
    %y = arith.addf %x, %mk : f32
    linalg.yield %y : f32
  } -> tensor<2x2x4x4xf32>
  %ec = tensor.empty() : tensor<4x4xf32>
  %causal = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                            iterator_types = ["parallel", "parallel"]}
      outs(%ec : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %future = arith.cmpi sgt, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.select %future, %ninf, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %eb = tensor.empty() : tensor<2x2x4x4xf32>
  %cb = linalg.broadcast ins(%causal : tensor<4x4xf32>)
      outs(%eb : tensor<2x2x4x4xf32>) dimensions = [0, 1]
  %masked = arith.addf %padded, %cb : tensor<2x2x4x4xf32>
  %e1 = tensor.empty() : tensor<2x2x4x4xf32>
  %w = linalg.softmax dimension(3) ins(%masked : tensor<2x2x4x4xf32>)
      outs(%e1 : tensor<2x2x4x4xf32>) -> tensor<2x2x4x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x2x4x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x4x8xf32>
  return %o : tensor<2x2x4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

// A mask from indices that also masks the diagonal (j >= i) is not causal:
// it stays, as the additive mask operand.

// CHECK-LABEL: func.func @index_mask_not_causal
// CHECK:         %[[M:.*]] = linalg.generic
// CHECK:           arith.cmpi uge
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[M]])
// CHECK-NOT:       causal
// CHECK-SAME:      scale = 1.000000e+00 : f64
// CHECK-NOT:     linalg.softmax
func.func @index_mask_not_causal(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>,
                                 %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %mask = linalg.generic {indexing_maps = [#id2],
                          iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.cmpi uge, %j, %i : index
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %m = arith.select %c, %ninf, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %eb = tensor.empty() : tensor<2x4x4xf32>
  %mb = linalg.broadcast ins(%mask : tensor<4x4xf32>)
      outs(%eb : tensor<2x4x4xf32>) dimensions = [0]
  %masked = arith.addf %s, %mb : tensor<2x4x4xf32>
  %e1 = tensor.empty() : tensor<2x4x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x4x4xf32>)
      outs(%e1 : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A constant mask that is not triangular (padding of the last key) stays a
// constant additive mask; so does a triangular one with a value (-100) too
// small to mask.

// CHECK-LABEL: func.func @constant_masks_not_causal
// CHECK-DAG:     %[[PAD:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+09]{{.*}}> : tensor<3x4xf32>
// CHECK-DAG:     %[[WEAK:.*]] = arith.constant dense<{{\[}}[0.000000e+00, -1.000000e+02{{.*}}> : tensor<3x4xf32>
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[PAD]]) {scale = 1.000000e+00 : f64}
// CHECK:         tfm.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%[[WEAK]]) {scale = 1.000000e+00 : f64}
func.func @constant_masks_not_causal(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>,
                                     %v: tensor<2x4x8xf32>)
    -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %pad = arith.constant dense<[[0.0, 0.0, 0.0, -1.0e9],
                               [0.0, 0.0, 0.0, -1.0e9],
                               [0.0, 0.0, 0.0, -1.0e9]]> : tensor<3x4xf32>
  %weak = arith.constant dense<[[0.0, -100.0, -100.0, -100.0],
                                [0.0, 0.0, -100.0, -100.0],
                                [0.0, 0.0, 0.0, -100.0]]> : tensor<3x4xf32>
  %eb = tensor.empty() : tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>

  %s1 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %pb = linalg.broadcast ins(%pad : tensor<3x4xf32>)
      outs(%eb : tensor<2x3x4xf32>) dimensions = [0]
  %m1 = arith.addf %s1, %pb : tensor<2x3x4xf32>
  %w1 = linalg.softmax dimension(2) ins(%m1 : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o1 = tfm.batch_matmul %w1, %v
      : (tensor<2x3x4xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>

  %s2 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %wb = linalg.broadcast ins(%weak : tensor<3x4xf32>)
      outs(%eb : tensor<2x3x4xf32>) dimensions = [0]
  %m2 = arith.addf %s2, %wb : tensor<2x3x4xf32>
  %w2 = linalg.softmax dimension(2) ins(%m2 : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o2 = tfm.batch_matmul %w2, %v
      : (tensor<2x3x4xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>
  return %o1, %o2 : tensor<2x3x8xf32>, tensor<2x3x8xf32>
}

// -----

// valid_lens of tfm.masked_softmax, per (batch, head) in the 4D layout.

// CHECK-LABEL: func.func @valid_lens_4d
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<2x2x3x8xf32>, %[[K:[^:]*]]: tensor<2x2x4x8xf32>, %[[V:[^:]*]]: tensor<2x2x4x8xf32>, %[[L:[^:]*]]: tensor<2x2xi32>
// CHECK-NEXT:    %[[A:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] valid_lens(%[[L]]) {scale = 0.3535533{{[0-9]*}} : f64} : (tensor<2x2x3x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2x4x8xf32>, tensor<2x2xi32>) -> tensor<2x2x3x8xf32>
// CHECK-NEXT:    return %[[A]]
func.func @valid_lens_4d(%q: tensor<2x2x3x8xf32>, %k: tensor<2x2x4x8xf32>,
                         %v: tensor<2x2x4x8xf32>, %lens: tensor<2x2xi32>)
    -> tensor<2x2x3x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x2x3x8xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x3x4xf32>
  %c = arith.constant dense<2.82842708> : tensor<2x2x3x4xf32>
  %scaled = arith.divf %s, %c : tensor<2x2x3x4xf32>
  %w = tfm.masked_softmax %scaled valid_lens(%lens)
      : (tensor<2x2x3x4xf32>, tensor<2x2xi32>) -> tensor<2x2x3x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x2x3x4xf32>, tensor<2x2x4x8xf32>) -> tensor<2x2x3x8xf32>
  return %o : tensor<2x2x3x8xf32>
}

// -----

// PyTorch's masked_fill(triu(ones(S, S), 1).bool(), -inf) as the ONNX
// importer writes it: the bool constant widened to i8, broadcast over the
// batch, compared with 0, and a select of -inf where it is set. A constant
// causal triangle: fused as causal.

// CHECK-LABEL: func.func @select_causal_triangle
//  CHECK-NEXT:   %[[O:.*]] = tfm.attention %arg0, %arg1, %arg2 {causal, scale = 5.000000e-01 : f64}
//  CHECK-NEXT:   return %[[O]]
func.func @select_causal_triangle(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>,
                                  %v: tensor<2x3x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %two = arith.constant dense<2.0> : tensor<2x3x3xf32>
  %scaled = arith.divf %s, %two : tensor<2x3x3xf32>
  %triu = arith.constant dense<[[0, 1, 1], [0, 0, 1], [0, 0, 0]]> : tensor<3x3xi8>
  %e8 = tensor.empty() : tensor<2x3x3xi8>
  %b = linalg.broadcast ins(%triu : tensor<3x3xi8>) outs(%e8 : tensor<2x3x3xi8>) dimensions = [0]
  %zero = arith.constant dense<0> : tensor<2x3x3xi8>
  %future = arith.cmpi ne, %b, %zero : tensor<2x3x3xi8>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %masked = arith.select %future, %ninf, %scaled : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %e = tensor.empty() : tensor<2x3x3xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x3xf32>)
      outs(%e : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x3xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// The kept side selected, masked_fill(~tril): select(tril, scores, -1e9)
// with the lower triangle as an i1 constant, and compared with == 0 once
// more (the set elements are then the masked ones again). Both causal.

// CHECK-LABEL: func.func @select_kept_triangle
//  CHECK-NEXT:   tfm.attention %arg0, %arg1, %arg2 {causal, scale = 1.000000e+00 : f64}
//  CHECK-NEXT:   tfm.attention %arg0, %arg1, %arg2 {causal, scale = 1.000000e+00 : f64}
func.func @select_kept_triangle(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>,
                                %v: tensor<2x3x6xf32>) -> (tensor<2x3x6xf32>, tensor<2x3x6xf32>) {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %tril = arith.constant dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %e1 = tensor.empty() : tensor<2x3x3xi1>
  %past = linalg.broadcast ins(%tril : tensor<3x3xi1>) outs(%e1 : tensor<2x3x3xi1>) dimensions = [0]
  %big = arith.constant dense<-1.0e9> : tensor<2x3x3xf32>
  %masked = arith.select %past, %s, %big : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %e = tensor.empty() : tensor<2x3x3xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x3xf32>)
      outs(%e : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x3xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>

  %s2 = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %tril8 = arith.constant dense<[[1, 0, 0], [1, 1, 0], [1, 1, 1]]> : tensor<3x3xi8>
  %e8 = tensor.empty() : tensor<2x3x3xi8>
  %b8 = linalg.broadcast ins(%tril8 : tensor<3x3xi8>) outs(%e8 : tensor<2x3x3xi8>) dimensions = [0]
  %zero = arith.constant dense<0> : tensor<2x3x3xi8>
  %future = arith.cmpi eq, %b8, %zero : tensor<2x3x3xi8>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %masked2 = arith.select %future, %ninf, %s2 : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %e2 = tensor.empty() : tensor<2x3x3xf32>
  %w2 = linalg.softmax dimension(2) ins(%masked2 : tensor<2x3x3xf32>)
      outs(%e2 : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %o2 = tfm.batch_matmul %w2, %v
      : (tensor<2x3x3xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o, %o2 : tensor<2x3x6xf32>, tensor<2x3x6xf32>
}

// -----

// A constant boolean mask that is not causal (the diagonal masked too) is
// left alone.

// CHECK-LABEL: func.func @select_not_causal
//       CHECK:   arith.select
//       CHECK:   linalg.softmax
//   CHECK-NOT:   tfm.attention
func.func @select_not_causal(%q: tensor<2x3x4xf32>, %k: tensor<2x3x4xf32>,
                             %v: tensor<2x3x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  %triu = arith.constant dense<[[true, true, true], [false, true, true], [false, false, true]]> : tensor<3x3xi1>
  %e1 = tensor.empty() : tensor<2x3x3xi1>
  %future = linalg.broadcast ins(%triu : tensor<3x3xi1>) outs(%e1 : tensor<2x3x3xi1>) dimensions = [0]
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x3xf32>
  %masked = arith.select %future, %ninf, %s : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  %e = tensor.empty() : tensor<2x3x3xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x3xf32>)
      outs(%e : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x3xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// Two constant masks, each added on its own view of the scores (Swin's
// relative position bias, and its shifted windows' mask on a [1, 2, 3, 4]
// view), become one constant mask operand: their sum, element by element.
// CHECK-LABEL: func.func @two_constant_masks
// CHECK:         %[[M:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]], {{\[\[}}2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00], {{.*}}]]]> : tensor<1x2x3x4xf32>
// CHECK:         tfm.attention {{.*}} mask(%[[M]]) {scale = 1.000000e+00 : f64} : (tensor<1x2x3x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x3x4xf32>)
// CHECK-NOT:     linalg.softmax
func.func @two_constant_masks(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>,
                              %v: tensor<2x4x8xf32>) -> tensor<2x3x8xf32> {
  %bias = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %shift = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %e0 = tensor.empty() : tensor<2x3x4xf32>
  %b = linalg.broadcast ins(%bias : tensor<4xf32>) outs(%e0 : tensor<2x3x4xf32>) dimensions = [0, 1]
  %biased = arith.addf %s, %b : tensor<2x3x4xf32>
  %view = tensor.expand_shape %biased [[0, 1], [2], [3]] output_shape [1, 2, 3, 4]
      : tensor<2x3x4xf32> into tensor<1x2x3x4xf32>
  %e1 = tensor.empty() : tensor<1x2x3x4xf32>
  %sb = linalg.broadcast ins(%shift : tensor<2xf32>) outs(%e1 : tensor<1x2x3x4xf32>) dimensions = [0, 2, 3]
  %shifted = arith.addf %view, %sb : tensor<1x2x3x4xf32>
  %back = tensor.collapse_shape %shifted [[0, 1], [2], [3]] : tensor<1x2x3x4xf32> into tensor<2x3x4xf32>
  %e2 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%back : tensor<2x3x4xf32>)
      outs(%e2 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x4xf32>, tensor<2x4x8xf32>) -> tensor<2x3x8xf32>
  return %o : tensor<2x3x8xf32>
}
