// RUN: tfm-opt %s --tfm-drop-unit-dims --canonicalize -split-input-file | FileCheck %s

// The out-projection of an exported nn.MultiheadAttention: [S, D] x [D, 1, D]
// into [S, 1, D]. Without the unit dimension it is a plain matmul of
// [S, D] x [D, D], whose result is expanded back.

// CHECK-LABEL: func.func @projection(
//       CHECK:   %[[W:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<768x1x64xf32> into tensor<768x64xf32>
//       CHECK:   %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %[[W]] : tensor<16x768xf32>, tensor<768x64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
//       CHECK:   tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [16, 1, 64] : tensor<16x64xf32> into tensor<16x1x64xf32>
func.func @projection(%x: tensor<16x768xf32>, %w: tensor<768x1x64xf32>, %y: tensor<16x1x64xf32>) -> tensor<16x1x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<16x768xf32>, tensor<768x1x64xf32>) outs(%y : tensor<16x1x64xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x1x64xf32>
  return %0 : tensor<16x1x64xf32>
}

// -----

// A named contraction with a unit loop (a batch_matmul of one batch, as
// tfm.batch_matmul lowers) is generalized and loses it: a plain matmul,
// whose right operand tfm-cpu-pack-panels can pack.

// CHECK-LABEL: func.func @named_batch_of_one(
//       CHECK:   %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x100x300xf32> into tensor<100x300xf32>
//       CHECK:   %[[B:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x300x256xf32> into tensor<300x256xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[A]], %[[B]] : tensor<100x300xf32>, tensor<300x256xf32>) outs(%{{.*}} : tensor<100x256xf32>)
//   CHECK-NOT:   linalg.batch_matmul
func.func @named_batch_of_one(%a: tensor<1x100x300xf32>, %b: tensor<1x300x256xf32>, %c: tensor<1x100x256xf32>) -> tensor<1x100x256xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<1x100x300xf32>, tensor<1x300x256xf32>) outs(%c : tensor<1x100x256xf32>) -> tensor<1x100x256xf32>
  return %0 : tensor<1x100x256xf32>
}

// -----

// Elementwise ops, and contractions inside a tile loop, keep their unit
// dimensions.

// CHECK-LABEL: func.func @kept(
//   CHECK-NOT:   tensor.collapse_shape
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<4x1xf32>)
//       CHECK:   scf.forall
//       CHECK:     linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<8x4xf32>)
func.func @kept(%x: tensor<4x1xf32>, %a: tensor<1x8xf32>, %b: tensor<8x4xf32>, %c: tensor<1x4xf32>) -> (tensor<4x1xf32>, tensor<1x4xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x1xf32>) outs(%x : tensor<4x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %e = math.exp %v : f32
    linalg.yield %e : f32
  } -> tensor<4x1xf32>
  %1 = scf.forall (%i) in (2) shared_outs(%out = %c) -> (tensor<1x4xf32>) {
    %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x8xf32>, tensor<8x4xf32>) outs(%out : tensor<1x4xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    } -> tensor<1x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %r into %out[0, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<1x4xf32>
    }
  }
  return %0, %1 : tensor<4x1xf32>, tensor<1x4xf32>
}

// -----

// One token's projection, [1, 1, K] x [K, N]: every row dimension is a unit
// one, and the last of them stays, so that it is a matmul of one row (the
// micro-kernel's) and not a vector-matrix product, which would read the
// weights a column at a time.

// CHECK-LABEL: func.func @one_token(
//       CHECK:   %[[X:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x1x768xf32> into tensor<1x768xf32>
//       CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %{{.*}} : tensor<1x768xf32>, tensor<768x3072xf32>) outs(%{{.*}} : tensor<1x3072xf32>)
func.func @one_token(%x: tensor<1x1x768xf32>, %w: tensor<768x3072xf32>, %y: tensor<1x1x3072xf32>) -> tensor<1x1x3072xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x1x768xf32>, tensor<768x3072xf32>) outs(%y : tensor<1x1x3072xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x1x3072xf32>
  return %0 : tensor<1x1x3072xf32>
}

// -----

// A product's epilogue loses its unit dimensions as well: the op computing
// its accumulator (a bias broadcast) and the op reading its result (a GELU),
// each its only user, reshapes aside. An elementwise op that is not the
// only reader of a product keeps them.

// CHECK-LABEL: func.func @epilogue(
//       CHECK:   %[[INIT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
//       CHECK:   %[[P:.*]] = linalg.matmul {{.*}} outs(%[[INIT]] : tensor<16x64xf32>)
//       CHECK:   linalg.generic {{.*}} ins(%[[P]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
//       CHECK:   math.erf
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<1x16x64xf32>) outs(%{{.*}} : tensor<1x16x64xf32>)
//       CHECK:   math.exp
func.func @epilogue(%x: tensor<16x32xf32>, %w: tensor<32x64xf32>, %b: tensor<64xf32>)
    -> (tensor<1x16x64xf32>, tensor<1x16x64xf32>) {
  %e = tensor.empty() : tensor<1x16x64xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(u, i, j) -> (j)>, affine_map<(u, i, j) -> (u, i, j)>],
                          iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%b : tensor<64xf32>) outs(%e : tensor<1x16x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x16x64xf32>
  %c = tensor.collapse_shape %init [[0, 1], [2]] : tensor<1x16x64xf32> into tensor<16x64xf32>
  %p = linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = tensor.expand_shape %p [[0, 1], [2]] output_shape [1, 16, 64] : tensor<16x64xf32> into tensor<1x16x64xf32>
  %e1 = tensor.empty() : tensor<1x16x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(u, i, j) -> (u, i, j)>, affine_map<(u, i, j) -> (u, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x16x64xf32>) outs(%e1 : tensor<1x16x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.erf %a : f32
    linalg.yield %v : f32
  } -> tensor<1x16x64xf32>
  %e2 = tensor.empty() : tensor<1x16x64xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(u, i, j) -> (u, i, j)>, affine_map<(u, i, j) -> (u, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%g : tensor<1x16x64xf32>) outs(%e2 : tensor<1x16x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<1x16x64xf32>
  return %g, %h : tensor<1x16x64xf32>, tensor<1x16x64xf32>
}
