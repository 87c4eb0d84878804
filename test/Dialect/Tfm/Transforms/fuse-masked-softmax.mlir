// RUN: tfm-opt %s -split-input-file --tfm-fuse-masked-softmax \
// RUN:   | FileCheck %s

// tfm-fuse-masked-softmax: a select of the scores by `key index < length`
// before a softmax over the keys becomes tfm.masked_softmax.

// The seed's masked_softmax as torch.onnx.export writes it: the scores
// [2, 3, 4] merged into rows [6, 4], `arange(4.0) < float(lens[:, None])`,
// its negation selecting -1e6, and the softmax after splitting the rows
// again. The reshapes of the scores fold away; the integer lengths behind
// sitofp become valid_lens, one per row.

// CHECK-LABEL: func.func @seed_form
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>, %[[L:[^:]*]]: tensor<6x1xi64>
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[L]] {{\[}}[0, 1]] : tensor<6x1xi64> into tensor<6xi64>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[C]] {{\[}}[0, 1]] output_shape [2, 3] : tensor<6xi64> into tensor<2x3xi64>
// CHECK:         %[[S:.*]] = tfm.masked_softmax %[[X]] valid_lens(%[[E]]) : (tensor<2x3x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[S]]
func.func @seed_form(%x: tensor<2x3x4xf32>, %lens: tensor<6x1xi64>)
    -> tensor<2x3x4xf32> {
  %rows = tensor.collapse_shape %x [[0, 1], [2]]
      : tensor<2x3x4xf32> into tensor<6x4xf32>
  %f = arith.sitofp %lens : tensor<6x1xi64> to tensor<6x1xf32>
  %fl = tensor.collapse_shape %f [[0, 1]] : tensor<6x1xf32> into tensor<6xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %keys = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %kb = linalg.broadcast ins(%keys : tensor<4xf32>) outs(%e : tensor<6x4xf32>)
      dimensions = [0]
  %lb = linalg.broadcast ins(%fl : tensor<6xf32>) outs(%e : tensor<6x4xf32>)
      dimensions = [1]
  %keep = arith.cmpf olt, %kb, %lb : tensor<6x4xf32>
  %true = arith.constant dense<true> : tensor<6x4xi1>
  %drop = arith.xori %keep, %true : tensor<6x4xi1>
  %fill = arith.constant dense<-1.0e6> : tensor<6x4xf32>
  %masked = arith.select %drop, %fill, %rows : tensor<6x4xi1>, tensor<6x4xf32>
  %back = tensor.expand_shape %masked [[0, 1], [2]] output_shape [2, 3, 4]
      : tensor<6x4xf32> into tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%back : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %w : tensor<2x3x4xf32>
}

// -----

// Integer keys (`arange(4) < lens`, i32) written as `lens > key`, with the
// scores on the true side and one length per batch, broadcast over the
// queries: the lengths stay broadcast over the queries.

// CHECK-LABEL: func.func @per_batch_int
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>, %[[L:[^:]*]]: tensor<2xi32>
// CHECK:         %[[B:.*]] = linalg.broadcast ins(%[[L]] : tensor<2xi32>) outs(%{{.*}} : tensor<2x3xi32>) dimensions = [1]
// CHECK:         %[[S:.*]] = tfm.masked_softmax %[[X]] valid_lens(%[[B]]) : (tensor<2x3x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[S]]
func.func @per_batch_int(%x: tensor<2x3x4xf32>, %lens: tensor<2xi32>)
    -> tensor<2x3x4xf32> {
  %e = tensor.empty() : tensor<2x3x4xi32>
  %keys = arith.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xi32>
  %k1 = tensor.collapse_shape %keys [[0, 1]] : tensor<1x4xi32> into tensor<4xi32>
  %kb = linalg.broadcast ins(%k1 : tensor<4xi32>) outs(%e : tensor<2x3x4xi32>)
      dimensions = [0, 1]
  %lb = linalg.broadcast ins(%lens : tensor<2xi32>)
      outs(%e : tensor<2x3x4xi32>) dimensions = [1, 2]
  %keep = arith.cmpi sgt, %lb, %kb : tensor<2x3x4xi32>
  %fill = arith.constant dense<-1.0e9> : tensor<2x3x4xf32>
  %masked = arith.select %keep, %x, %fill : tensor<2x3x4xi1>, tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %w : tensor<2x3x4xf32>
}

// -----

// `key >= length` selects the fill: the same mask.

// CHECK-LABEL: func.func @greater_equal
// CHECK:         tfm.masked_softmax %{{.*}} valid_lens(%{{.*}}) : (tensor<3x4xf32>, tensor<3xi64>)
// CHECK-NOT:     arith.select
func.func @greater_equal(%x: tensor<3x4xf32>, %lens: tensor<3xi64>)
    -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xi64>
  %keys = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %kb = linalg.broadcast ins(%keys : tensor<4xi64>) outs(%e : tensor<3x4xi64>)
      dimensions = [0]
  %lb = linalg.broadcast ins(%lens : tensor<3xi64>) outs(%e : tensor<3x4xi64>)
      dimensions = [1]
  %drop = arith.cmpi sge, %kb, %lb : tensor<3x4xi64>
  %fill = arith.constant dense<-1.0e6> : tensor<3x4xf32>
  %masked = arith.select %drop, %fill, %x : tensor<3x4xi1>, tensor<3x4xf32>
  %e1 = tensor.empty() : tensor<3x4xf32>
  %w = linalg.softmax dimension(1) ins(%masked : tensor<3x4xf32>)
      outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %w : tensor<3x4xf32>
}

// -----

// Behind a tfm.attention's product: after this pass, attention fusion sees
// a masked_softmax (tfm-graph-optimizer runs it first).

// CHECK-LABEL: func.func @scores
// CHECK:         %[[S:.*]] = tfm.batch_matmul
// CHECK:         tfm.masked_softmax %[[S]] valid_lens(%{{.*}}) : (tensor<2x3x4xf32>, tensor<2x3xi64>)
func.func @scores(%q: tensor<2x3x8xf32>, %k: tensor<2x4x8xf32>,
                  %lens: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %x = tfm.batch_matmul %q, %k {transpose_rhs}
      : (tensor<2x3x8xf32>, tensor<2x4x8xf32>) -> tensor<2x3x4xf32>
  %e = tensor.empty() : tensor<2x3x4xi64>
  %keys = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %kb = linalg.broadcast ins(%keys : tensor<4xi64>)
      outs(%e : tensor<2x3x4xi64>) dimensions = [0, 1]
  %lb = linalg.broadcast ins(%lens : tensor<2x3xi64>)
      outs(%e : tensor<2x3x4xi64>) dimensions = [2]
  %keep = arith.cmpi slt, %kb, %lb : tensor<2x3x4xi64>
  %fill = arith.constant dense<-1.0e6> : tensor<2x3x4xf32>
  %masked = arith.select %keep, %x, %fill : tensor<2x3x4xi1>, tensor<2x3x4xf32>
  %e1 = tensor.empty() : tensor<2x3x4xf32>
  %w = linalg.softmax dimension(2) ins(%masked : tensor<2x3x4xf32>)
      outs(%e1 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %w : tensor<2x3x4xf32>
}

// -----

// A constant key index of the full shape [3, 4] (no broadcast) is the key
// index too.

// CHECK-LABEL: func.func @full_key_constant
// CHECK:         tfm.masked_softmax
func.func @full_key_constant(%x: tensor<3x4xf32>, %lens: tensor<3xi64>)
    -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xi64>
  %keys = arith.constant dense<[[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]]>
      : tensor<3x4xi64>
  %lb = linalg.broadcast ins(%lens : tensor<3xi64>) outs(%e : tensor<3x4xi64>)
      dimensions = [1]
  %keep = arith.cmpi slt, %keys, %lb : tensor<3x4xi64>
  %fill = arith.constant dense<-1.0e6> : tensor<3x4xf32>
  %masked = arith.select %keep, %x, %fill : tensor<3x4xi1>, tensor<3x4xf32>
  %e1 = tensor.empty() : tensor<3x4xf32>
  %w = linalg.softmax dimension(1) ins(%masked : tensor<3x4xf32>)
      outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %w : tensor<3x4xf32>
}

// -----

// Left alone, each for a reason the rewrite would change the result:
// a -inf fill (a row with no valid key is NaN, masked_softmax's uniform), a
// fill that is not large negative, keys that are not 0..K-1, the select
// keeping the keys past the length, and float lengths with no integers
// behind them.

// CHECK-LABEL: func.func @negative
// CHECK-NOT:     tfm.masked_softmax
// CHECK-COUNT-5: linalg.softmax
func.func @negative(%x: tensor<3x4xf32>, %lens: tensor<3xi64>,
                    %flens: tensor<3xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
        tensor<3x4xf32>) {
  %e = tensor.empty() : tensor<3x4xi64>
  %keys = arith.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %kb = linalg.broadcast ins(%keys : tensor<4xi64>) outs(%e : tensor<3x4xi64>)
      dimensions = [0]
  %lb = linalg.broadcast ins(%lens : tensor<3xi64>) outs(%e : tensor<3x4xi64>)
      dimensions = [1]
  %keep = arith.cmpi slt, %kb, %lb : tensor<3x4xi64>
  %e1 = tensor.empty() : tensor<3x4xf32>

  %ninf = arith.constant dense<0xFF800000> : tensor<3x4xf32>
  %m0 = arith.select %keep, %x, %ninf : tensor<3x4xi1>, tensor<3x4xf32>
  %w0 = linalg.softmax dimension(1) ins(%m0 : tensor<3x4xf32>)
      outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>

  %small = arith.constant dense<-10.0> : tensor<3x4xf32>
  %m1 = arith.select %keep, %x, %small : tensor<3x4xi1>, tensor<3x4xf32>
  %w1 = linalg.softmax dimension(1) ins(%m1 : tensor<3x4xf32>)
      outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>

  %big = arith.constant dense<-1.0e6> : tensor<3x4xf32>
  %odd = arith.constant dense<[0, 2, 1, 3]> : tensor<4xi64>
  %ob = linalg.broadcast ins(%odd : tensor<4xi64>) outs(%e : tensor<3x4xi64>)
      dimensions = [0]
  %oddkeep = arith.cmpi slt, %ob, %lb : tensor<3x4xi64>
  %m2 = arith.select %oddkeep, %x, %big : tensor<3x4xi1>, tensor<3x4xf32>
  %w2 = linalg.softmax dimension(1) ins(%m2 : tensor<3x4xf32>)
      outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>

  %m3 = arith.select %keep, %big, %x : tensor<3x4xi1>, tensor<3x4xf32>
  %w3 = linalg.softmax dimension(1) ins(%m3 : tensor<3x4xf32>)
      outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>

  %fkeys = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %fkb = linalg.broadcast ins(%fkeys : tensor<4xf32>)
      outs(%e1 : tensor<3x4xf32>) dimensions = [0]
  %flb = linalg.broadcast ins(%flens : tensor<3xf32>)
      outs(%e1 : tensor<3x4xf32>) dimensions = [1]
  %fkeep = arith.cmpf olt, %fkb, %flb : tensor<3x4xf32>
  %m4 = arith.select %fkeep, %x, %big : tensor<3x4xi1>, tensor<3x4xf32>
  %w4 = linalg.softmax dimension(1) ins(%m4 : tensor<3x4xf32>)
      outs(%e1 : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %w0, %w1, %w2, %w3, %w4
      : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
        tensor<3x4xf32>
}
