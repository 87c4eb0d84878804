// RUN: tfm-opt %s -split-input-file --tfm-fuse-attention=remarks=true \
// RUN:   -verify-diagnostics -o /dev/null

// With `remarks`, tfm-fuse-attention says at every candidate (the product
// with V) whether it fused it, or why not, naming the statistic the
// rejection counts in. Ops that are not candidates get no remark.

// -verify-diagnostics checks every expected remark, and fails on any
// remark that is not expected (so the cases without one check that there
// is none).

func.func @fused(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                 %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{fused attention}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

// No remark: a plain product, and a softmax of an argument times V.
func.func @not_candidates(%a: tensor<2x3x5xf32>, %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x6xf32>) {
  %o1 = tfm.batch_matmul %a, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  %w = tfm.masked_softmax %a : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %o2 = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o1, %o2 : tensor<2x3x6xf32>, tensor<2x3x6xf32>
}

// -----

func.func @softmax_axis(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                        %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %w = linalg.softmax dimension(1) ins(%s : tensor<2x3x5xf32>)
      outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-softmax-axis): the softmax is over dimension 1, not over the keys (dimension 2)}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @scale_argument(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                          %v: tensor<2x5x6xf32>, %t: tensor<2x3x5xf32>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %t : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-scale): the scores are multiplied by a value that is not a constant}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @scale_non_splat(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                           %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %e = tensor.empty() : tensor<2x3x5xf32>
  %scaled = linalg.generic
      {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                        affine_map<(b, i, j) -> (j)>,
                        affine_map<(b, i, j) -> (b, i, j)>],
       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %c : tensor<2x3x5xf32>, tensor<5xf32>)
      outs(%e : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %d: f32, %out: f32):
    %y = arith.divf %x, %d : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-scale): the scores are divided by a constant that is not a splat}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @scores_divisor(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                          %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<2.0> : tensor<2x3x5xf32>
  %scaled = arith.divf %c, %s : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-scale): the scores are the divisor of 'arith.divf'}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @scores_multi_use(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                            %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x5xf32>) {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-multi-use): another op uses the scores (Q·Kᵀ)}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o, %s : tensor<2x3x6xf32>, tensor<2x3x5xf32>
}

// -----

func.func @weights_multi_use(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x5xf32>) {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-multi-use): another op uses the attention weights (the softmax)}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o, %w : tensor<2x3x6xf32>, tensor<2x3x5xf32>
}

// -----

func.func @intermediate_multi_use(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                                  %v: tensor<2x5x6xf32>)
    -> (tensor<2x3x6xf32>, tensor<2x3x5xf32>) {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %s, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-multi-use): another op uses the result of 'arith.mulf' on the scores}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o, %scaled : tensor<2x3x6xf32>, tensor<2x3x5xf32>
}

// -----

func.func @reshape_of_queries(%q: tensor<2x6x4xf32>, %k: tensor<2x5x4xf32>,
                              %v: tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x6x4xf32>, tensor<2x5x4xf32>) -> tensor<2x6x5xf32>
  %s4 = tensor.expand_shape %s [[0], [1, 2], [3]] output_shape [2, 2, 3, 5]
      : tensor<2x6x5xf32> into tensor<2x2x3x5xf32>
  %w = tfm.masked_softmax %s4 : (tensor<2x2x3x5xf32>) -> tensor<2x2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-shape): a reshape of the scores changes their last two dimensions}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x2x3x5xf32>, tensor<2x2x5x6xf32>) -> tensor<2x2x3x6xf32>
  return %o : tensor<2x2x3x6xf32>
}

// -----

func.func @element_types(%q: tensor<2x3x4xf16>, %k: tensor<2x5x4xf16>,
                         %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x3x4xf16>, tensor<2x5x4xf16>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-shape): the element types of Q, K, V, the scores and the result differ}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @dynamic_regroup(%q: tensor<?x4x8xf32>, %k: tensor<?x4x8xf32>,
                           %v: tensor<?x4x8xf32>, %m: tensor<?x2x4x4xf32>,
                           %b: index) -> tensor<?x4x8xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<?x4x8xf32>, tensor<?x4x8xf32>) -> tensor<?x4x4xf32>
  %s4 = tensor.expand_shape %s [[0, 1], [2], [3]] output_shape [%b, 2, 4, 4]
      : tensor<?x4x4xf32> into tensor<?x2x4x4xf32>
  %masked = arith.addf %s4, %m : tensor<?x2x4x4xf32>
  %s3 = tensor.collapse_shape %masked [[0, 1], [2], [3]]
      : tensor<?x2x4x4xf32> into tensor<?x4x4xf32>
  %w = tfm.masked_softmax %s3 : (tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
  // expected-remark @below {{attention not fused (rejected-shape): cannot regroup the batch dimensions [?] of Q into [?, 2]}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<?x4x4xf32>, tensor<?x4x8xf32>) -> tensor<?x4x8xf32>
  return %o : tensor<?x4x8xf32>
}

// -----

func.func @select_mask(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                       %v: tensor<2x5x6xf32>, %keep: tensor<2x3x5xi1>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<2x3x5xf32>
  %masked = arith.select %keep, %s, %ninf : tensor<2x3x5xi1>, tensor<2x3x5xf32>
  %w = tfm.masked_softmax %masked : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-mask): 'arith.select' masks the scores with a boolean mask that is not a constant causal triangle}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @mask_before_scale(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                             %v: tensor<2x5x6xf32>, %m: tensor<2x3x5xf32>)
    -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %masked = arith.addf %s, %m : tensor<2x3x5xf32>
  %c = arith.constant dense<0.5> : tensor<2x3x5xf32>
  %scaled = arith.mulf %masked, %c : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %scaled : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-mask): the mask is added before the scale, and tfm.attention scales first}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @two_masks(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                     %v: tensor<2x5x6xf32>, %m1: tensor<2x3x5xf32>,
                     %m2: tensor<2x3x5xf32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %a = arith.addf %s, %m1 : tensor<2x3x5xf32>
  %b = arith.addf %a, %m2 : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %b : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-mask): more than one additive mask}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @mask_and_valid_lens(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                               %v: tensor<2x5x6xf32>, %m: tensor<2x3x5xf32>,
                               %lens: tensor<2xi32>) -> tensor<2x3x6xf32> {
  %s = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  %masked = arith.addf %s, %m : tensor<2x3x5xf32>
  %w = tfm.masked_softmax %masked valid_lens(%lens)
      : (tensor<2x3x5xf32>, tensor<2xi32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-mask): valid_lens of tfm.masked_softmax apply after the additive mask, and tfm.attention applies them before it}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @nonzero_accumulator(%q: tensor<2x3x4xf32>, %k: tensor<2x5x4xf32>,
                               %v: tensor<2x5x6xf32>, %bias: tensor<2x3x5xf32>)
    -> tensor<2x3x6xf32> {
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x3x4xf32>, tensor<2x5x4xf32>)
      outs(%bias : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-mask): Q·Kᵀ accumulates into a tensor that is not zero}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @broadcast_map(%q: tensor<2x3x4xf32>, %kt: tensor<4x5xf32>,
                         %v: tensor<2x5x6xf32>) -> tensor<2x3x6xf32> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf32>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (k, n)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %kt : tensor<2x3x4xf32>, tensor<4x5xf32>)
      outs(%z : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %w = tfm.masked_softmax %s : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{attention not fused (rejected-shape): Q·Kᵀ reads its operands through indexing maps that are not those of a matrix product}}
  %o = tfm.batch_matmul %w, %v
      : (tensor<2x3x5xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>
  return %o : tensor<2x3x6xf32>
}

// -----

func.func @f64(%q: tensor<2x3x4xf64>, %k: tensor<2x5x4xf64>,
               %v: tensor<2x5x6xf64>) -> tensor<2x3x6xf64> {
  %z = arith.constant dense<0.0> : tensor<2x3x5xf64>
  %s = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%q, %k : tensor<2x3x4xf64>, tensor<2x5x4xf64>)
      outs(%z : tensor<2x3x5xf64>) -> tensor<2x3x5xf64>
  %e = tensor.empty() : tensor<2x3x5xf64>
  %w = linalg.softmax dimension(2) ins(%s : tensor<2x3x5xf64>)
      outs(%e : tensor<2x3x5xf64>) -> tensor<2x3x5xf64>
  %z2 = arith.constant dense<0.0> : tensor<2x3x6xf64>
  // expected-remark @below {{attention not fused (rejected-shape): tfm.attention does not take f64 elements}}
  %o = linalg.batch_matmul ins(%w, %v : tensor<2x3x5xf64>, tensor<2x5x6xf64>)
      outs(%z2 : tensor<2x3x6xf64>) -> tensor<2x3x6xf64>
  return %o : tensor<2x3x6xf64>
}
