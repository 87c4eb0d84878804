// RUN: tfm-opt %s --convert-tfm-to-linalg -split-input-file | FileCheck %s

// Embedding: a gather over [..., D] that reads the id, casts it to index and
// extracts the table row; scale_by_sqrt_dim multiplies by sqrt(D).

// CHECK-DAG: #[[IDS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding_scaled
// CHECK-SAME: (%[[IDX:.*]]: tensor<2x?xi64>, %[[T:.*]]: tensor<200x24xf32>)
// CHECK: %[[S:.*]] = tensor.dim %[[IDX]], %c1
// CHECK: %[[E:.*]] = tensor.empty(%[[S]]) : tensor<2x?x24xf32>
// CHECK: %[[SCALE:.*]] = arith.constant 4.89897966 : f32
// CHECK: linalg.generic {indexing_maps = [#[[IDS]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[IDX]] : tensor<2x?xi64>) outs(%[[E]] : tensor<2x?x24xf32>)
// CHECK: ^bb0(%[[ID_:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID_]] : i64 to index
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: %[[V:.*]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<200x24xf32>
// CHECK: %[[R:.*]] = arith.mulf %[[V]], %[[SCALE]] : f32
// CHECK: linalg.yield %[[R]] : f32
func.func @embedding_scaled(%ids: tensor<2x?xi64>, %table: tensor<200x24xf32>)
    -> tensor<2x?x24xf32> {
  %e = tfm.embedding %ids, %table {scale_by_sqrt_dim}
      : (tensor<2x?xi64>, tensor<200x24xf32>) -> tensor<2x?x24xf32>
  return %e : tensor<2x?x24xf32>
}

// -----

// i32 ids, f16 table, no scale: a plain gather.

// CHECK-LABEL: func.func @embedding_i32
// CHECK: linalg.generic
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: linalg.index 1 : index
// CHECK: tensor.extract %{{.*}} : tensor<10x4xf16>
// CHECK-NOT: arith.mulf
// CHECK: linalg.yield %{{.*}} : f16
func.func @embedding_i32(%ids: tensor<7xi32>, %table: tensor<10x4xf16>)
    -> tensor<7x4xf16> {
  %e = tfm.embedding %ids, %table : (tensor<7xi32>, tensor<10x4xf16>)
      -> tensor<7x4xf16>
  return %e : tensor<7x4xf16>
}

// -----

// A single id (rank 0) gives one row.

// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @embedding_scalar_id
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #[[ROW]]], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<i64>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.index 0 : index
// CHECK: tensor.extract
func.func @embedding_scalar_id(%id: tensor<i64>, %table: tensor<10x4xf32>)
    -> tensor<4xf32> {
  %e = tfm.embedding %id, %table : (tensor<i64>, tensor<10x4xf32>)
      -> tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

// A dynamic embedding dimension: sqrt(D) is computed at run time, the
// product is taken in f32 for a bf16 table.

// CHECK-LABEL: func.func @embedding_dynamic_dim_bf16
// CHECK-SAME: (%{{.*}}: tensor<3xi64>, %[[T:.*]]: tensor<?x?xbf16>)
// CHECK: %[[D:.*]] = tensor.dim %[[T]], %c1
// CHECK: %[[DI:.*]] = arith.index_castui %{{.*}} : index to i64
// CHECK: %[[DF:.*]] = arith.uitofp %[[DI]] : i64 to f32
// CHECK: %[[SCALE:.*]] = math.sqrt %[[DF]] : f32
// CHECK: linalg.generic
// CHECK: %[[V:.*]] = tensor.extract %[[T]]
// CHECK: %[[VX:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[VX]], %[[SCALE]] : f32
// CHECK: arith.truncf %[[P]] : f32 to bf16
func.func @embedding_dynamic_dim_bf16(%ids: tensor<3xi64>,
                                      %table: tensor<?x?xbf16>)
    -> tensor<3x?xbf16> {
  %e = tfm.embedding %ids, %table {scale_by_sqrt_dim}
      : (tensor<3xi64>, tensor<?x?xbf16>) -> tensor<3x?xbf16>
  return %e : tensor<3x?xbf16>
}

// -----

// Positional encoding: the [S, D] table comes from linalg.index, with the
// angle i / 10000^(2j/D) in f32, sin on even and cos on odd features; it is
// then added to X, broadcast over the batch.

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[SD:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @positional_encoding
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x32xf32>)
// CHECK: %[[S:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[E:.*]] = tensor.empty(%[[S]]) : tensor<?x32xf32>
// CHECK: %[[D:.*]] = arith.constant 3.200000e+01 : f32
// CHECK: %[[BASE:.*]] = arith.constant 1.000000e+04 : f32
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[ID2]]], iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<?x32xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[ODD:.*]] = arith.andi %[[J]], %{{.*}} : index
// CHECK: %[[EVEN:.*]] = arith.subi %[[J]], %[[ODD]] : index
// CHECK: %[[EVENF:.*]] = arith.uitofp %{{.*}} : i64 to f32
// CHECK: %[[EXP:.*]] = arith.divf %[[EVENF]], %[[D]] : f32
// CHECK: %[[DEN:.*]] = math.powf %[[BASE]], %[[EXP]] : f32
// CHECK: %[[IF:.*]] = arith.uitofp %{{.*}} : i64 to f32
// CHECK: %[[ANG:.*]] = arith.divf %[[IF]], %[[DEN]] : f32
// CHECK: %[[ISODD:.*]] = arith.cmpi ne, %[[ODD]], %{{.*}} : index
// CHECK: %[[SIN:.*]] = math.sin %[[ANG]] : f32
// CHECK: %[[COS:.*]] = math.cos %[[ANG]] : f32
// CHECK: arith.select %[[ISODD]], %[[COS]], %[[SIN]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[SD]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[P]] : tensor<?x?x32xf32>, tensor<?x32xf32>)
// CHECK: arith.addf
func.func @positional_encoding(%x: tensor<?x?x32xf32>) -> tensor<?x?x32xf32> {
  %y = tfm.positional_encoding %x : tensor<?x?x32xf32>
  return %y : tensor<?x?x32xf32>
}

// -----

// f16 input with dynamic features: the table stays f32, D comes from
// tensor.dim and the sum is truncated back.

// CHECK-LABEL: func.func @positional_encoding_f16_dynamic_features
// CHECK-SAME: (%[[X:.*]]: tensor<5x?xf16>)
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %c1
// CHECK: tensor.empty(%[[D]]) : tensor<5x?xf32>
// CHECK: arith.uitofp %{{.*}} : i64 to f32
// CHECK: linalg.generic
// CHECK: math.powf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %{{.*}} : tensor<5x?xf16>, tensor<5x?xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @positional_encoding_f16_dynamic_features(%x: tensor<5x?xf16>)
    -> tensor<5x?xf16> {
  %y = tfm.positional_encoding %x : tensor<5x?xf16>
  return %y : tensor<5x?xf16>
}

// -----

// Patch embedding: split H and W into (H/ph, ph) and (W/pw, pw), move the
// patch grid in front of the channels, flatten to [B·N, C·ph·pw], multiply
// by the flattened kernel transposed, add the bias and expand to [B, N, D].

// CHECK-LABEL: func.func @patch_embed
// CHECK-SAME: (%[[IMG:.*]]: tensor<2x3x32x48xf32>, %[[W:.*]]: tensor<24x3x16x16xf32>, %[[B:.*]]: tensor<24xf32>)
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[IMG]] {{\[}}[0], [1], [2, 3], [4, 5]] output_shape [2, 3, 2, 16, 3, 16] : tensor<2x3x32x48xf32> into tensor<2x3x2x16x3x16xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[SPLIT]] : tensor<2x3x2x16x3x16xf32>) outs(%{{.*}} : tensor<2x2x3x3x16x16xf32>) permutation = [0, 2, 4, 1, 3, 5]
// CHECK: %[[LHSV:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<2x2x3x3x16x16xf32> into tensor<12x768xf32>
// CHECK: %[[WF:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<24x3x16x16xf32> into tensor<24x768xf32>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[WF]] : tensor<24x768xf32>) outs(%{{.*}} : tensor<768x24xf32>) permutation = [1, 0]
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[LHSV]], %[[WT]] : tensor<12x768xf32>, tensor<768x24xf32>)
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: ins(%[[MM]], %[[B]] : tensor<12x24xf32>, tensor<24xf32>)
// CHECK: arith.addf
// CHECK: tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 6, 24] : tensor<12x24xf32> into tensor<2x6x24xf32>
func.func @patch_embed(%img: tensor<2x3x32x48xf32>, %w: tensor<24x3x16x16xf32>,
                       %b: tensor<24xf32>) -> tensor<2x6x24xf32> {
  %p = tfm.patch_embed %img, %w, %b
      : (tensor<2x3x32x48xf32>, tensor<24x3x16x16xf32>, tensor<24xf32>)
      -> tensor<2x6x24xf32>
  return %p : tensor<2x6x24xf32>
}

// -----

// Dynamic batch: N stays static, so [B·N, D] can expand back.

// CHECK-LABEL: func.func @patch_embed_dynamic_batch
// CHECK-SAME: (%[[IMG:.*]]: tensor<?x3x32x32xf16>
// CHECK: %[[B:.*]] = tensor.dim %[[IMG]], %c0
// CHECK: tensor.expand_shape %[[IMG]] {{.*}} output_shape [%[[B]], 3, 2, 16, 2, 16]
// CHECK: linalg.transpose
// CHECK: tensor.collapse_shape {{.*}} into tensor<?x768xf16>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x768xf16>, tensor<768x24xf16>) outs(%{{.*}} : tensor<?x24xf32>)
// CHECK: linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [%[[B]], 4, 24] : tensor<?x24xf16> into tensor<?x4x24xf16>
func.func @patch_embed_dynamic_batch(%img: tensor<?x3x32x32xf16>,
                                     %w: tensor<24x3x16x16xf16>)
    -> tensor<?x4x24xf16> {
  %p = tfm.patch_embed %img, %w
      : (tensor<?x3x32x32xf16>, tensor<24x3x16x16xf16>) -> tensor<?x4x24xf16>
  return %p : tensor<?x4x24xf16>
}

// -----

// Dynamic batch and image size: H/ph and W/pw are computed with divui and
// the product is a contraction of [B, N, C·ph·pw], with no expansion of two
// dynamic sizes in one group.

// CHECK-DAG: #[[X3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[W3:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[Y3:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @patch_embed_dynamic_image
// CHECK-SAME: (%[[IMG:.*]]: tensor<?x3x?x?xf32>
// CHECK: %[[H:.*]] = tensor.dim %[[IMG]], %c2
// CHECK: %[[W:.*]] = tensor.dim %[[IMG]], %c3
// CHECK: %[[HP:.*]] = arith.divui %[[H]], %c16
// CHECK: %[[WP:.*]] = arith.divui %[[W]], %c8
// CHECK: tensor.expand_shape %[[IMG]] {{.*}} output_shape [%{{.*}}, 3, %[[HP]], 16, %[[WP]], 8]
// CHECK: linalg.transpose
// CHECK: %[[L:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3, 4, 5]] : tensor<?x?x?x3x16x8xf32> into tensor<?x?x384xf32>
// CHECK-NOT: linalg.matmul
// CHECK: linalg.generic {indexing_maps = [#[[X3]], #[[W3]], #[[Y3]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[L]], %{{.*}} : tensor<?x?x384xf32>, tensor<384x24xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: return %{{.*}} : tensor<?x?x24xf32>
func.func @patch_embed_dynamic_image(%img: tensor<?x3x?x?xf32>,
                                     %w: tensor<24x3x16x8xf32>)
    -> tensor<?x?x24xf32> {
  %p = tfm.patch_embed %img, %w
      : (tensor<?x3x?x?xf32>, tensor<24x3x16x8xf32>) -> tensor<?x?x24xf32>
  return %p : tensor<?x?x24xf32>
}

// -----

// Class token: broadcast [1, 1, D] over the batch and insert it and the
// input into [B, N + 1, D].

// CHECK-LABEL: func.func @prepend_class_token
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32>, %[[C:.*]]: tensor<1x1x768xf32>)
// CHECK: %[[B:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0, 1, 2]] : tensor<1x1x768xf32> into tensor<768xf32>
// CHECK: %[[TE:.*]] = tensor.empty(%[[B]]) : tensor<?x1x768xf32>
// CHECK: %[[TOK:.*]] = linalg.broadcast ins(%[[FLAT]] : tensor<768xf32>) outs(%[[TE]] : tensor<?x1x768xf32>) dimensions = [0, 1]
// CHECK: %[[N1:.*]] = arith.addi %[[N]], %{{.*}} : index
// CHECK: %[[E:.*]] = tensor.empty(%[[B]], %[[N1]]) : tensor<?x?x768xf32>
// CHECK: %[[R0:.*]] = tensor.insert_slice %[[TOK]] into %[[E]][0, 0, 0] [%[[B]], 1, 768] [1, 1, 1]
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[X]] into %[[R0]][0, 1, 0] [%[[B]], %[[N]], 768] [1, 1, 1]
// CHECK: return %[[R1]]
func.func @prepend_class_token(%x: tensor<?x?x768xf32>,
                               %cls: tensor<1x1x768xf32>)
    -> tensor<?x?x768xf32> {
  %t = tfm.prepend_class_token %x, %cls
      : (tensor<?x?x768xf32>, tensor<1x1x768xf32>) -> tensor<?x?x768xf32>
  return %t : tensor<?x?x768xf32>
}

// -----

// Static shapes: N + 1 folds.

// CHECK-LABEL: func.func @prepend_class_token_static
// CHECK: tensor.empty() : tensor<2x197x8xf16>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0] [2, 1, 8] [1, 1, 1] : tensor<2x1x8xf16> into tensor<2x197x8xf16>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 1, 0] [2, 196, 8] [1, 1, 1] : tensor<2x196x8xf16> into tensor<2x197x8xf16>
func.func @prepend_class_token_static(%x: tensor<2x196x8xf16>,
                                      %cls: tensor<1x1x8xf16>)
    -> tensor<2x197x8xf16> {
  %t = tfm.prepend_class_token %x, %cls
      : (tensor<2x196x8xf16>, tensor<1x1x8xf16>) -> tensor<2x197x8xf16>
  return %t : tensor<2x197x8xf16>
}

// -----

// tfm.rotary_embedding, interleaved, from a run-time offset: a check that
// offset + S fits the tables, their rows offset .. offset + S, the input
// viewed as [2, S, 4, 2] and its pairs' elements as strided slices, one
// generic that picks a cos - b sin or b cos + a sin by the pair index,
// collapsed back.

// CHECK-DAG: #[[HALF:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[TABLE:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @rotary_embedding_interleaved
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x8xf32>, %[[C:.*]]: tensor<16x4xf32>, %[[S:.*]]: tensor<16x4xf32>, %[[P:.*]]: index)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[END:.*]] = arith.addi %[[P]], %[[N]]
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[END]], %{{.*}}
// CHECK: cf.assert %[[FITS]], "{{.*}}the positions of a rotary embedding (offset + S) run past the rows of its cos and sin tables"
// CHECK: %[[CR:.*]] = tensor.extract_slice %[[C]][%[[P]], 0] [%[[N]], 4] [1, 1]
// CHECK: %[[SR:.*]] = tensor.extract_slice %[[S]][%[[P]], 0] [%[[N]], 4] [1, 1]
// CHECK: %[[V:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, %[[N]], 4, 2]
// CHECK: %[[A:.*]] = tensor.extract_slice %[[V]][0, 0, 0, 0] [2, %[[N]], 4, 1] [1, 1, 1, 1] : tensor<2x?x4x2xf32> to tensor<2x?x4xf32>
// CHECK: %[[B:.*]] = tensor.extract_slice %[[V]][0, 0, 0, 1] [2, %[[N]], 4, 1] [1, 1, 1, 1] : tensor<2x?x4x2xf32> to tensor<2x?x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[HALF]], #[[HALF]], #[[TABLE]], #[[TABLE]], #[[ID]]]
// CHECK-SAME: ins(%[[A]], %[[B]], %[[CR]], %[[SR]] :
// CHECK: linalg.index 3
// CHECK: arith.select
// CHECK: tensor.collapse_shape %[[R]] {{\[}}[0], [1], [2, 3]] : tensor<2x?x4x2xf32> into tensor<2x?x8xf32>
func.func @rotary_embedding_interleaved(%x: tensor<2x?x8xf32>, %c: tensor<16x4xf32>, %s: tensor<16x4xf32>, %p: index) -> tensor<2x?x8xf32> {
  %y = tfm.rotary_embedding %x, %c, %s offset(%p) {interleaved}
      : (tensor<2x?x8xf32>, tensor<16x4xf32>, tensor<16x4xf32>, index) -> tensor<2x?x8xf32>
  return %y : tensor<2x?x8xf32>
}

// -----

// Rotate-half from position 0: the view is [1, 3, 2, 4], the halves
// x[..., :4] and x[..., 4:].

// CHECK-LABEL: func.func @rotary_embedding_half
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [3, 4] [1, 1] : tensor<5x4xf32> to tensor<3x4xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [1, 3, 2, 4]
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 3, 1, 4] [1, 1, 1, 1] : tensor<1x3x2x4xf32> to tensor<1x3x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 1, 0] [1, 3, 1, 4] [1, 1, 1, 1] : tensor<1x3x2x4xf32> to tensor<1x3x4xf32>
// CHECK: linalg.index 2
func.func @rotary_embedding_half(%x: tensor<1x3x8xf32>, %c: tensor<5x4xf32>, %s: tensor<5x4xf32>) -> tensor<1x3x8xf32> {
  %y = tfm.rotary_embedding %x, %c, %s
      : (tensor<1x3x8xf32>, tensor<5x4xf32>, tensor<5x4xf32>) -> tensor<1x3x8xf32>
  return %y : tensor<1x3x8xf32>
}
