// RUN: tfm-opt %s -split-input-file --tfm-fuse-rotary-embedding | FileCheck %s

// Hugging Face's apply_rotary_pos_emb as the ONNX importer brings it: the
// angles of S positions times D/2 inverse frequencies, repeated
// (cat(freqs, freqs)), their cosines and sines broadcast over batch and
// heads; q · cos + rotate_half(q) · sin becomes tfm.rotary_embedding with
// tables of the half, [S, D/2].

// CHECK-LABEL: func.func @rotate_half
//  CHECK-SAME:   (%[[X:.*]]: tensor<?x8x?x8xf32>, %[[F:.*]]: tensor<?x4xf32>)
//   CHECK-DAG:   %[[COS:.*]] = math.cos %[[F]] : tensor<?x4xf32>
//   CHECK-DAG:   %[[SIN:.*]] = math.sin %[[F]] : tensor<?x4xf32>
//       CHECK:   %[[Y:.*]] = tfm.rotary_embedding %[[X]], %[[COS]], %[[SIN]] : (tensor<?x8x?x8xf32>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8x?x8xf32>
//       CHECK:   return %[[Y]]
func.func @rotate_half(%x: tensor<?x8x?x8xf32>, %freqs: tensor<?x4xf32>) -> tensor<?x8x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %x, %c0 : tensor<?x8x?x8xf32>
  %s = tensor.dim %x, %c2 : tensor<?x8x?x8xf32>
  %emb = tensor.concat dim(1) %freqs, %freqs : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  %cos = math.cos %emb : tensor<?x8xf32>
  %sin = math.sin %emb : tensor<?x8xf32>
  %e = tensor.empty(%b, %s) : tensor<?x8x?x8xf32>
  %cosb = linalg.broadcast ins(%cos : tensor<?x8xf32>) outs(%e : tensor<?x8x?x8xf32>) dimensions = [0, 1]
  %sinb = linalg.broadcast ins(%sin : tensor<?x8xf32>) outs(%e : tensor<?x8x?x8xf32>) dimensions = [0, 1]
  %a = arith.mulf %x, %cosb : tensor<?x8x?x8xf32>
  %x1 = tensor.extract_slice %x[0, 0, 0, 0] [%b, 8, %s, 4] [1, 1, 1, 1] : tensor<?x8x?x8xf32> to tensor<?x8x?x4xf32>
  %x2 = tensor.extract_slice %x[0, 0, 0, 4] [%b, 8, %s, 4] [1, 1, 1, 1] : tensor<?x8x?x8xf32> to tensor<?x8x?x4xf32>
  %n = arith.negf %x2 : tensor<?x8x?x4xf32>
  %r = tensor.concat dim(3) %n, %x1 : (tensor<?x8x?x4xf32>, tensor<?x8x?x4xf32>) -> tensor<?x8x?x8xf32>
  %m = arith.mulf %r, %sinb : tensor<?x8x?x8xf32>
  %y = arith.addf %a, %m : tensor<?x8x?x8xf32>
  return %y : tensor<?x8x?x8xf32>
}

// -----

// A rank-2 x and unbroadcast tables, the sum and products the other way
// round.

// CHECK-LABEL: func.func @rank2
//  CHECK-SAME:   (%[[X:.*]]: tensor<5x6xf32>, %[[F:.*]]: tensor<5x3xf32>)
//       CHECK:   tfm.rotary_embedding %[[X]], %{{.*}}, %{{.*}} : (tensor<5x6xf32>, tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
func.func @rank2(%x: tensor<5x6xf32>, %freqs: tensor<5x3xf32>) -> tensor<5x6xf32> {
  %emb = tensor.concat dim(1) %freqs, %freqs : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %cos = math.cos %emb : tensor<5x6xf32>
  %sin = math.sin %emb : tensor<5x6xf32>
  %x1 = tensor.extract_slice %x[0, 0] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %x2 = tensor.extract_slice %x[0, 3] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %n = arith.negf %x2 : tensor<5x3xf32>
  %r = tensor.concat dim(1) %n, %x1 : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %m = arith.mulf %sin, %r : tensor<5x6xf32>
  %a = arith.mulf %cos, %x : tensor<5x6xf32>
  %y = arith.addf %m, %a : tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}

// -----

// Not rotate-half RoPE, left alone:
// - @swapped_halves: concat(x1, -x2), the rotation the other way;
// - @other_angles: cos and sin of different angles;
// - @not_repeated: angles that do not repeat their half;
// - @sin_first: x · sin + rotate_half(x) · cos.

// CHECK-LABEL: func.func @swapped_halves
//   CHECK-NOT:   tfm.rotary_embedding
func.func @swapped_halves(%x: tensor<5x6xf32>, %freqs: tensor<5x3xf32>) -> tensor<5x6xf32> {
  %emb = tensor.concat dim(1) %freqs, %freqs : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %cos = math.cos %emb : tensor<5x6xf32>
  %sin = math.sin %emb : tensor<5x6xf32>
  %x1 = tensor.extract_slice %x[0, 0] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %x2 = tensor.extract_slice %x[0, 3] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %n = arith.negf %x1 : tensor<5x3xf32>
  %r = tensor.concat dim(1) %n, %x2 : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %m = arith.mulf %r, %sin : tensor<5x6xf32>
  %a = arith.mulf %x, %cos : tensor<5x6xf32>
  %y = arith.addf %a, %m : tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}

// CHECK-LABEL: func.func @other_angles
//   CHECK-NOT:   tfm.rotary_embedding
func.func @other_angles(%x: tensor<5x6xf32>, %f: tensor<5x3xf32>, %g: tensor<5x3xf32>) -> tensor<5x6xf32> {
  %ef = tensor.concat dim(1) %f, %f : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %eg = tensor.concat dim(1) %g, %g : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %cos = math.cos %ef : tensor<5x6xf32>
  %sin = math.sin %eg : tensor<5x6xf32>
  %x1 = tensor.extract_slice %x[0, 0] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %x2 = tensor.extract_slice %x[0, 3] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %n = arith.negf %x2 : tensor<5x3xf32>
  %r = tensor.concat dim(1) %n, %x1 : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %m = arith.mulf %r, %sin : tensor<5x6xf32>
  %a = arith.mulf %x, %cos : tensor<5x6xf32>
  %y = arith.addf %a, %m : tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}

// CHECK-LABEL: func.func @not_repeated
//   CHECK-NOT:   tfm.rotary_embedding
func.func @not_repeated(%x: tensor<5x6xf32>, %f: tensor<5x3xf32>, %g: tensor<5x3xf32>) -> tensor<5x6xf32> {
  %emb = tensor.concat dim(1) %f, %g : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %cos = math.cos %emb : tensor<5x6xf32>
  %sin = math.sin %emb : tensor<5x6xf32>
  %x1 = tensor.extract_slice %x[0, 0] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %x2 = tensor.extract_slice %x[0, 3] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %n = arith.negf %x2 : tensor<5x3xf32>
  %r = tensor.concat dim(1) %n, %x1 : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %m = arith.mulf %r, %sin : tensor<5x6xf32>
  %a = arith.mulf %x, %cos : tensor<5x6xf32>
  %y = arith.addf %a, %m : tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}

// CHECK-LABEL: func.func @sin_first
//   CHECK-NOT:   tfm.rotary_embedding
func.func @sin_first(%x: tensor<5x6xf32>, %freqs: tensor<5x3xf32>) -> tensor<5x6xf32> {
  %emb = tensor.concat dim(1) %freqs, %freqs : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %cos = math.cos %emb : tensor<5x6xf32>
  %sin = math.sin %emb : tensor<5x6xf32>
  %x1 = tensor.extract_slice %x[0, 0] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %x2 = tensor.extract_slice %x[0, 3] [5, 3] [1, 1] : tensor<5x6xf32> to tensor<5x3xf32>
  %n = arith.negf %x2 : tensor<5x3xf32>
  %r = tensor.concat dim(1) %n, %x1 : (tensor<5x3xf32>, tensor<5x3xf32>) -> tensor<5x6xf32>
  %m = arith.mulf %r, %cos : tensor<5x6xf32>
  %a = arith.mulf %x, %sin : tensor<5x6xf32>
  %y = arith.addf %a, %m : tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}
