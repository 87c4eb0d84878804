// RUN: tfm-opt %s --convert-tfm-to-linalg -split-input-file | FileCheck %s

// nn.Linear: the leading dimensions collapse to M, the weight is transposed
// to [K, N] so that the matmul reads it by rows, the bias and the activation
// share one elementwise generic, and the result expands back.

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @linear_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<8x16xf32>) permutation = [1, 0]
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[XC]], %[[WT]] : tensor<8x8xf32>, tensor<8x16xf32>) outs(%[[ZERO]] : tensor<8x16xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[COL]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[MM]], %[[B]] : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
func.func @linear_relu(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>,
                       %b: tensor<16xf32>) -> tensor<2x4x16xf32> {
  %y = tfm.linear %x, %w, %b {activation = #tfm.activation<relu>}
      : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>)
      -> tensor<2x4x16xf32>
  return %y : tensor<2x4x16xf32>
}

// -----

// GELU (erf) as the activation: 0.5 x (1 + erf(x / sqrt 2)).

// CHECK-LABEL: func.func @linear_gelu
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.mulf %[[SUM]], %{{.*}} : f32
// CHECK: %[[E:.*]] = math.erf %[[S]] : f32
// CHECK: %[[ONE:.*]] = arith.addf %{{.*}}, %[[E]] : f32
// CHECK: %[[HALF:.*]] = arith.mulf %[[SUM]], %{{.*}} : f32
// CHECK: %[[R:.*]] = arith.mulf %[[HALF]], %[[ONE]] : f32
// CHECK: linalg.yield %[[R]] : f32
func.func @linear_gelu(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>,
                       %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %y = tfm.linear %x, %w, %b {activation = #tfm.activation<gelu>}
      : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// GELU (tanh) as the activation, without bias.

// CHECK-LABEL: func.func @linear_gelu_tanh
// CHECK: linalg.matmul
// CHECK: linalg.generic
// CHECK-NOT: math.erf
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: arith.constant 0.797884583 : f32
// CHECK: math.tanh
func.func @linear_gelu_tanh(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>)
    -> tensor<4x16xf32> {
  %y = tfm.linear %x, %w {activation = #tfm.activation<gelu_tanh>}
      : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Without bias or activation in f32 the matmul is the whole lowering: no
// epilogue generic.

// CHECK-LABEL: func.func @linear_plain
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK-NOT: linalg.generic
// CHECK: return %[[MM]] : tensor<4x16xf32>
func.func @linear_plain(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>)
    -> tensor<4x16xf32> {
  %y = tfm.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>)
      -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// A vector input is expanded to one row and collapsed back.

// CHECK-LABEL: func.func @linear_vector
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: linalg.matmul
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x16xf32> into tensor<16xf32>
func.func @linear_vector(%x: tensor<8xf32>, %w: tensor<16x8xf32>)
    -> tensor<16xf32> {
  %y = tfm.linear %x, %w : (tensor<8xf32>, tensor<16x8xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// f16: the matmul reads f16 and accumulates into an f32 init; the epilogue
// adds the extended bias in f32 and truncates. A dynamic batch flows through
// tensor.dim into the empty tensors and the expansion.

// CHECK-LABEL: func.func @linear_f16_dynamic_batch
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x8xf16>
// CHECK: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<?x4x8xf16> into tensor<?x8xf16>
// CHECK: %[[M:.*]] = tensor.dim %[[XC]], %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[M]]) : tensor<?x16xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x16xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK-SAME: ins(%[[XC]], %{{.*}} : tensor<?x8xf16>, tensor<8x16xf16>) outs(%[[Z]] : tensor<?x16xf32>) -> tensor<?x16xf32>
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MM]], %{{.*}} : tensor<?x16xf32>, tensor<16xf16>) outs(%{{.*}} : tensor<?x16xf16>)
// CHECK: ^bb0(%[[ACC:.*]]: f32, %[[BIAS:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[BX:.*]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[BX]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK: linalg.yield %[[T]] : f16
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %c0
// CHECK: tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [%[[B]], 4, 16] : tensor<?x16xf16> into tensor<?x4x16xf16>
func.func @linear_f16_dynamic_batch(%x: tensor<?x4x8xf16>,
                                    %w: tensor<16x8xf16>,
                                    %b: tensor<16xf16>) -> tensor<?x4x16xf16> {
  %y = tfm.linear %x, %w, %b : (tensor<?x4x8xf16>, tensor<16x8xf16>,
                               tensor<16xf16>) -> tensor<?x4x16xf16>
  return %y : tensor<?x4x16xf16>
}

// -----

// With a dynamic batch and a dynamic sequence the expansion back would hold
// two dynamic sizes in one group (which LLVM 22's expand-strided-metadata
// cannot lower), so the product is a generic contraction on [B, S, K] with
// no reshape.

// CHECK-DAG: #[[X3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[W3:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[Y3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @linear_dynamic_batch_and_seq
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xbf16>, %[[W:.*]]: tensor<16x8xbf16>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[S:.*]] = tensor.dim %[[X]], %c1
// CHECK: tensor.empty(%[[B]], %[[S]]) : tensor<?x?x16xf32>
// CHECK: linalg.transpose ins(%[[W]] : tensor<16x8xbf16>)
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [#[[X3]], #[[W3]], #[[Y3]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %{{.*}} : tensor<?x?x8xbf16>, tensor<8x16xbf16>) outs(%{{.*}} : tensor<?x?x16xf32>)
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: ins(%[[C]] : tensor<?x?x16xf32>) outs(%{{.*}} : tensor<?x?x16xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[Y]]
func.func @linear_dynamic_batch_and_seq(%x: tensor<?x?x8xbf16>,
                                        %w: tensor<16x8xbf16>)
    -> tensor<?x?x16xbf16> {
  %y = tfm.linear %x, %w : (tensor<?x?x8xbf16>, tensor<16x8xbf16>)
      -> tensor<?x?x16xbf16>
  return %y : tensor<?x?x16xbf16>
}

// -----

// A declared result more static than the inferred one gets a tensor.cast.

// CHECK-LABEL: func.func @linear_refined_result
// CHECK: %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<?x16xf32>
// CHECK: %[[R:.*]] = tensor.cast %[[MM]] : tensor<?x16xf32> to tensor<4x16xf32>
// CHECK: return %[[R]]
func.func @linear_refined_result(%x: tensor<?x8xf32>, %w: tensor<16x8xf32>)
    -> tensor<4x16xf32> {
  %y = tfm.linear %x, %w : (tensor<?x8xf32>, tensor<16x8xf32>)
      -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// LayerNorm: a sum over the last dimension, the mean, a sum of squared
// deviations from it, rstd = 1 / sqrt(var + eps) (the statistics once a
// row), then (x - mean) * rstd * gamma + beta. Statistics are f32 for an
// f16 input.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[FEAT:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @layer_norm_f16_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x4xf16>, %[[G:.*]]: tensor<4xf16>, %[[BETA:.*]]: tensor<4xf16>)
// CHECK: %[[D:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: %[[Z1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<?x?x4xf16>) outs(%[[Z1]] : tensor<?x?xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic {indexing_maps = [#[[ROWS]], #[[ROWS]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[SUM]] : tensor<?x?xf32>)
// CHECK: arith.divf %{{.*}}, %[[D]] : f32
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]], %[[MEAN]] : tensor<?x?x4xf16>, tensor<?x?xf32>)
// CHECK: ^bb0(%{{.*}}: f16, %[[MEANIN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[DEV:.*]] = arith.subf %{{.*}}, %[[MEANIN]] : f32
// CHECK: arith.mulf %[[DEV]], %[[DEV]] : f32
// CHECK: %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK: %[[RSTD:.*]] = linalg.generic {indexing_maps = [#[[ROWS]], #[[ROWS]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[SQ]] : tensor<?x?xf32>)
// CHECK: %[[VAR:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK: %[[VE:.*]] = arith.addf %[[VAR]], %[[EPS]] : f32
// CHECK: %[[ROOT:.*]] = math.sqrt %[[VE]] : f32
// CHECK: arith.divf %{{.*}}, %[[ROOT]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[FEAT]], #[[FEAT]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[G]], %[[BETA]] :
// CHECK-SAME: outs(%{{.*}} : tensor<?x?x4xf16>)
// CHECK: ^bb0(%{{.*}}: f16, %[[M:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: f16, %{{.*}}: f16, %{{.*}}: f16):
// CHECK: %[[C:.*]] = arith.subf %{{.*}}, %[[M]] : f32
// CHECK: arith.mulf %[[C]], %[[R]] : f32
// CHECK-NOT: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @layer_norm_f16_dynamic(%x: tensor<?x?x4xf16>, %g: tensor<4xf16>,
                                  %b: tensor<4xf16>) -> tensor<?x?x4xf16> {
  %y = tfm.layer_norm %x, %g, %b {epsilon = 1.0e-06 : f64}
      : (tensor<?x?x4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<?x?x4xf16>
  return %y : tensor<?x?x4xf16>
}

// -----

// tfm.rms_norm: one reduction, sum(x²) in f32, the row's
// 1 / sqrt(sum / D + eps), then x * that * gamma in one elementwise generic.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[FEAT:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @rms_norm_f16_dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf16>, %[[G:.*]]: tensor<8xf16>)
// CHECK: %[[D:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<?x?x8xf16>) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK: %[[XF:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.mulf %[[XF]], %[[XF]] : f32
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[RINV:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<?x?xf32>)
// CHECK: %[[MS:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK: %[[ME:.*]] = arith.addf %[[MS]], %[[EPS]] : f32
// CHECK: %[[RMS:.*]] = math.sqrt %[[ME]] : f32
// CHECK: arith.divf %{{.*}}, %[[RMS]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[FEAT]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[RINV]], %[[G]] :
// CHECK: ^bb0(%{{.*}}: f16, %[[RIN:.*]]: f32, %{{.*}}: f16, %{{.*}}: f16):
// CHECK: arith.mulf %{{.*}}, %[[RIN]] : f32
// CHECK-NOT: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @rms_norm_f16_dynamic(%x: tensor<?x?x8xf16>, %g: tensor<8xf16>) -> tensor<?x?x8xf16> {
  %y = tfm.rms_norm %x, %g {epsilon = 1.0e-05 : f64}
      : (tensor<?x?x8xf16>, tensor<8xf16>) -> tensor<?x?x8xf16>
  return %y : tensor<?x?x8xf16>
}

// -----

// A dynamic feature dimension: the divisor comes from tensor.dim.

// CHECK-LABEL: func.func @layer_norm_dynamic_features
// CHECK-SAME: (%[[X:.*]]: tensor<3x?xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[NI:.*]] = arith.index_castui %[[N]] : index to i64
// CHECK: %[[NF:.*]] = arith.uitofp %[[NI]] : i64 to f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: arith.divf %{{.*}}, %[[NF]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: arith.divf %{{.*}}, %[[NF]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
func.func @layer_norm_dynamic_features(%x: tensor<3x?xf32>, %g: tensor<?xf32>,
                                       %b: tensor<?xf32>) -> tensor<3x?xf32> {
  %y = tfm.layer_norm %x, %g, %b
      : (tensor<3x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<3x?xf32>
  return %y : tensor<3x?xf32>
}

// -----

// tfm.gelu, erf form, in f32 for a bf16 input.

// CHECK-LABEL: func.func @gelu_erf_bf16
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.constant 0.707106769 : f32
// CHECK: math.erf
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @gelu_erf_bf16(%x: tensor<?x3xbf16>) -> tensor<?x3xbf16> {
  %y = tfm.gelu %x : tensor<?x3xbf16>
  return %y : tensor<?x3xbf16>
}

// -----

// tfm.gelu, tanh form.

// CHECK-LABEL: func.func @gelu_tanh
// CHECK: linalg.generic
// CHECK-NOT: math.erf
// CHECK: math.tanh
func.func @gelu_tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tfm.gelu %x {approximate = #tfm.gelu_approximation<tanh>}
      : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Dropout is the identity at inference.

// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x3xf32>
func.func @dropout(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tfm.dropout %x {rate = 1.0e-01 : f64} : tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A rank-1 input reduces into rank-0 statistics.

// CHECK-DAG: #[[V:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @layer_norm_vector
// CHECK: linalg.generic {indexing_maps = [#[[V]], #[[S]]], iterator_types = ["reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {{.*}} iterator_types = []} ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#[[V]], #[[S]], #[[S]]], iterator_types = ["reduction"]}
// CHECK: linalg.generic {{.*}} iterator_types = []} ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#[[V]], #[[S]], #[[S]], #[[V]], #[[V]], #[[V]]], iterator_types = ["parallel"]}
func.func @layer_norm_vector(%x: tensor<?xf32>, %g: tensor<?xf32>,
                             %b: tensor<?xf32>) -> tensor<?xf32> {
  %y = tfm.layer_norm %x, %g, %b
      : (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// A constant weight is transposed at compile time: no linalg.transpose
// remains, and the constant holds the [K, N] matrix.

// CHECK-LABEL: func.func @linear_constant_weight
// CHECK-NOT: linalg.transpose
// CHECK: %[[WT:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[WT]] : tensor<4x3xf32>, tensor<3x2xf32>)
func.func @linear_constant_weight(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = tfm.linear %x, %w : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
