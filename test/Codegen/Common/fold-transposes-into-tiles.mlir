// RUN: tfm-opt %s --tfm-fold-transposes-into-tiles -split-input-file | FileCheck %s

// Heads split as attention's lowering tiles them: [S, H, D] transposed to
// [H, S, D] and read one head's block of rows at a time. Each tile is
// [Sq, 1, D] of the untransposed tensor: read there, at a stride of H x D,
// and the transpose over the whole tensor is gone. The keys' transpose to
// [H, D, S] moves whole rows and stays; so does the values', whose tile
// (a head's) every query tile of the head reads.
// CHECK-LABEL: func.func @read_heads(
// CHECK-SAME: %[[X:[^:]*]]: tensor<128x12x64xf32>
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[X]] : tensor<128x12x64xf32>) outs(%{{.*}} : tensor<12x64x128xf32>) permutation = [1, 2, 0]
// CHECK: %[[VT:.*]] = linalg.transpose ins(%[[X]] : tensor<128x12x64xf32>) outs(%{{.*}} : tensor<12x128x64xf32>) permutation = [1, 0, 2]
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall (%[[H:.*]], %[[Q:.*]]) = (0, 0) to (12, 128) step (1, 32)
// CHECK: %[[TILE:.*]] = tensor.extract_slice %[[X]][%[[Q]], %[[H]], 0] [32, 1, 64] [1, 1, 1] : tensor<128x12x64xf32> to tensor<32x1x64xf32>
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[TILE]] {{\[}}[0], [1, 2]] : tensor<32x1x64xf32> into tensor<32x64xf32>
// CHECK: tensor.expand_shape %[[ROWS]] {{\[}}[0, 1], [2]] output_shape [1, 32, 64] : tensor<32x64xf32> into tensor<1x32x64xf32>
// CHECK: tensor.extract_slice %[[KT]][%[[H]], 0, 0] [1, 64, 128]
// CHECK: tensor.extract_slice %[[VT]][%[[H]], 0, 0] [1, 128, 64]
func.func @read_heads(%x: tensor<128x12x64xf32>, %init: tensor<12x32x64xf32>) -> tensor<12x32x64xf32> {
  %e = tensor.empty() : tensor<12x128x64xf32>
  %xt = linalg.transpose ins(%x : tensor<128x12x64xf32>) outs(%e : tensor<12x128x64xf32>) permutation = [1, 0, 2]
  %ek = tensor.empty() : tensor<12x64x128xf32>
  %kt = linalg.transpose ins(%x : tensor<128x12x64xf32>) outs(%ek : tensor<12x64x128xf32>) permutation = [1, 2, 0]
  %vt = linalg.transpose ins(%x : tensor<128x12x64xf32>) outs(%e : tensor<12x128x64xf32>) permutation = [1, 0, 2]
  %r = scf.forall (%h, %q) = (0, 0) to (12, 128) step (1, 32) shared_outs(%o = %init) -> (tensor<12x32x64xf32>) {
    %tile = tensor.extract_slice %xt[%h, %q, 0] [1, 32, 64] [1, 1, 1] : tensor<12x128x64xf32> to tensor<1x32x64xf32>
    %keys = tensor.extract_slice %kt[%h, 0, 0] [1, 64, 128] [1, 1, 1] : tensor<12x64x128xf32> to tensor<1x64x128xf32>
    %values = tensor.extract_slice %vt[%h, 0, 0] [1, 128, 64] [1, 1, 1] : tensor<12x128x64xf32> to tensor<1x128x64xf32>
    %se = tensor.empty() : tensor<1x32x128xf32>
    %s = linalg.batch_matmul ins(%tile, %keys : tensor<1x32x64xf32>, tensor<1x64x128xf32>) outs(%se : tensor<1x32x128xf32>) -> tensor<1x32x128xf32>
    %acc = tensor.extract_slice %o[%h, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<12x32x64xf32> to tensor<1x32x64xf32>
    %y = linalg.batch_matmul ins(%s, %values : tensor<1x32x128xf32>, tensor<1x128x64xf32>) outs(%acc : tensor<1x32x64xf32>) -> tensor<1x32x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[%h, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x64xf32> into tensor<12x32x64xf32>
    }
  }
  return %r : tensor<12x32x64xf32>
}

// -----

// A rank-reducing tile read ([Sq, D] of one head, dynamic Sq): the same
// unit dimension of the input is dropped.
// CHECK-LABEL: func.func @read_rank_reduced(
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x12x64xf32>, %{{[^:]*}}: index, %[[N:[^:]*]]: index
// CHECK-NOT: linalg.transpose
// CHECK: %[[T:.*]] = tensor.extract_slice %[[X]][0, 3, 0] [%[[N]], 1, 64] [1, 1, 1] : tensor<?x12x64xf32> to tensor<?x64xf32>
// CHECK: return %[[T]] : tensor<?x64xf32>
func.func @read_rank_reduced(%x: tensor<?x12x64xf32>, %s: index, %n: index) -> tensor<?x64xf32> {
  %e = tensor.empty(%s) : tensor<12x?x64xf32>
  %xt = linalg.transpose ins(%x : tensor<?x12x64xf32>) outs(%e : tensor<12x?x64xf32>) permutation = [1, 0, 2]
  %t = tensor.extract_slice %xt[3, 0, 0] [1, %n, 64] [1, 1, 1] : tensor<12x?x64xf32> to tensor<?x64xf32>
  return %t : tensor<?x64xf32>
}

// -----

// Heads merged after attention: a forall builds [H, S, D] from an empty
// tensor one [1, Sq, D] tile at a time and [S, H, D] is read. It builds
// [S, H, D] instead, each tile inserted as [Sq, 1, D].
// CHECK-LABEL: func.func @write_heads(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<128x12x64xf32>
// CHECK: %[[R:.*]] = scf.forall (%[[H:.*]], %[[Q:.*]]) = (0, 0) to (12, 128) step (1, 32) shared_outs(%[[O:.*]] = %[[E]]) -> (tensor<128x12x64xf32>)
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x32x64xf32> into tensor<32x64xf32>
// CHECK: %[[TILE:.*]] = tensor.expand_shape %[[ROWS]] {{\[}}[0], [1, 2]] output_shape [32, 1, 64] : tensor<32x64xf32> into tensor<32x1x64xf32>
// CHECK: tensor.parallel_insert_slice %[[TILE]] into %[[O]][%[[Q]], %[[H]], 0] [32, 1, 64] [1, 1, 1] : tensor<32x1x64xf32> into tensor<128x12x64xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[R]] : tensor<128x12x64xf32>
func.func @write_heads(%x: tensor<12x128x64xf32>) -> tensor<128x12x64xf32> {
  %e = tensor.empty() : tensor<12x128x64xf32>
  %r = scf.forall (%h, %q) = (0, 0) to (12, 128) step (1, 32) shared_outs(%o = %e) -> (tensor<12x128x64xf32>) {
    %in = tensor.extract_slice %x[%h, %q, 0] [1, 32, 64] [1, 1, 1] : tensor<12x128x64xf32> to tensor<1x32x64xf32>
    %init = tensor.empty() : tensor<1x32x64xf32>
    %y = linalg.exp ins(%in : tensor<1x32x64xf32>) outs(%init : tensor<1x32x64xf32>) -> tensor<1x32x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %o[%h, %q, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x64xf32> into tensor<12x128x64xf32>
    }
  }
  %et = tensor.empty() : tensor<128x12x64xf32>
  %t = linalg.transpose ins(%r : tensor<12x128x64xf32>) outs(%et : tensor<128x12x64xf32>) permutation = [1, 0, 2]
  return %t : tensor<128x12x64xf32>
}

// -----

// Left alone: a forall that reads what it builds (its shared output's
// values matter), one built on a tensor other than an empty one, and one
// whose tiles' transpose would move rows of 2 heads.
// CHECK-LABEL: func.func @write_kept(
// CHECK-COUNT-3: linalg.transpose
// CHECK-NOT: linalg.transpose
func.func @write_kept(%x: tensor<12x128x64xf32>, %base: tensor<12x128x64xf32>) -> (tensor<128x12x64xf32>, tensor<128x12x64xf32>, tensor<128x12x64xf32>) {
  %e = tensor.empty() : tensor<12x128x64xf32>
  %et = tensor.empty() : tensor<128x12x64xf32>
  %r0 = scf.forall (%h) in (12) shared_outs(%o = %e) -> (tensor<12x128x64xf32>) {
    %old = tensor.extract_slice %o[%h, 0, 0] [1, 128, 64] [1, 1, 1] : tensor<12x128x64xf32> to tensor<1x128x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %old into %o[%h, 0, 0] [1, 128, 64] [1, 1, 1] : tensor<1x128x64xf32> into tensor<12x128x64xf32>
    }
  }
  %t0 = linalg.transpose ins(%r0 : tensor<12x128x64xf32>) outs(%et : tensor<128x12x64xf32>) permutation = [1, 0, 2]
  %r1 = scf.forall (%h) in (12) shared_outs(%o = %base) -> (tensor<12x128x64xf32>) {
    %in = tensor.extract_slice %x[%h, 0, 0] [1, 128, 64] [1, 1, 1] : tensor<12x128x64xf32> to tensor<1x128x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %in into %o[%h, 0, 0] [1, 128, 64] [1, 1, 1] : tensor<1x128x64xf32> into tensor<12x128x64xf32>
    }
  }
  %t1 = linalg.transpose ins(%r1 : tensor<12x128x64xf32>) outs(%et : tensor<128x12x64xf32>) permutation = [1, 0, 2]
  %r2 = scf.forall (%h) in (6) shared_outs(%o = %e) -> (tensor<12x128x64xf32>) {
    %h2 = affine.apply affine_map<(d0) -> (d0 * 2)>(%h)
    %in = tensor.extract_slice %x[%h2, 0, 0] [2, 128, 64] [1, 1, 1] : tensor<12x128x64xf32> to tensor<2x128x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %in into %o[%h2, 0, 0] [2, 128, 64] [1, 1, 1] : tensor<2x128x64xf32> into tensor<12x128x64xf32>
    }
  }
  %t2 = linalg.transpose ins(%r2 : tensor<12x128x64xf32>) outs(%et : tensor<128x12x64xf32>) permutation = [1, 0, 2]
  return %t0, %t1, %t2 : tensor<128x12x64xf32>, tensor<128x12x64xf32>, tensor<128x12x64xf32>
}

// -----

// Rows that a query tile does not divide: the tiles' loop covers a slice
// of the transposed tensor (192 of 197 rows), which only tiles read. The
// transpose moves below that slice, to the tiles, which read in place.
// CHECK-LABEL: func.func @read_split(
// CHECK-SAME: %[[X:[^:]*]]: tensor<197x12x64xf32>
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall (%[[H:.*]], %[[Q:.*]]) = (0, 0) to (12, 192) step (1, 32)
// CHECK: tensor.extract_slice %{{.*}}[%[[Q]], %[[H]], 0] [32, 1, 64] [1, 1, 1] : tensor<192x12x64xf32> to tensor<32x1x64xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @read_split(%x: tensor<197x12x64xf32>, %init: tensor<12x192x64xf32>) -> tensor<12x192x64xf32> {
  %e = tensor.empty() : tensor<12x197x64xf32>
  %xt = linalg.transpose ins(%x : tensor<197x12x64xf32>) outs(%e : tensor<12x197x64xf32>) permutation = [1, 0, 2]
  %part = tensor.extract_slice %xt[0, 0, 0] [12, 192, 64] [1, 1, 1] : tensor<12x197x64xf32> to tensor<12x192x64xf32>
  %r = scf.forall (%h, %q) = (0, 0) to (12, 192) step (1, 32) shared_outs(%o = %init) -> (tensor<12x192x64xf32>) {
    %tile = tensor.extract_slice %part[%h, %q, 0] [1, 32, 64] [1, 1, 1] : tensor<12x192x64xf32> to tensor<1x32x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %tile into %o[%h, %q, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x64xf32> into tensor<12x192x64xf32>
    }
  }
  return %r : tensor<12x192x64xf32>
}

// -----

// An elementwise op (attention's normalization after split loops) whose
// result only the heads' merge reads writes [S, H, D] itself, through its
// output map. One whose output value is read (an accumulation), and one
// whose transpose moves the innermost dimension (a transpose kernel's
// work), keep their transposes.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @write_elementwise(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<197x12x64xf32>
// CHECK: %[[N:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[T]]], {{.*}} outs(%[[E]] : tensor<197x12x64xf32>)
// CHECK: %[[A:.*]] = linalg.generic
// CHECK: %[[AT:.*]] = linalg.transpose ins(%[[A]]
// CHECK: %[[E:.*]] = linalg.generic
// CHECK: %[[ET:.*]] = linalg.transpose ins(%[[E]] : tensor<12x197x64xf32>) outs(%{{.*}} : tensor<12x64x197xf32>)
// CHECK: return %[[N]], %[[AT]], %[[ET]]
func.func @write_elementwise(%o: tensor<12x197x64xf32>, %sum: tensor<12x197xf32>, %acc: tensor<12x197x64xf32>) -> (tensor<197x12x64xf32>, tensor<197x12x64xf32>, tensor<12x64x197xf32>) {
  %e = tensor.empty() : tensor<12x197x64xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o, %sum : tensor<12x197x64xf32>, tensor<12x197xf32>) outs(%e : tensor<12x197x64xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<12x197x64xf32>
  %et = tensor.empty() : tensor<197x12x64xf32>
  %nt = linalg.transpose ins(%n : tensor<12x197x64xf32>) outs(%et : tensor<197x12x64xf32>) permutation = [1, 0, 2]
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o : tensor<12x197x64xf32>) outs(%acc : tensor<12x197x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %out : f32
    linalg.yield %d : f32
  } -> tensor<12x197x64xf32>
  %at = linalg.transpose ins(%a : tensor<12x197x64xf32>) outs(%et : tensor<197x12x64xf32>) permutation = [1, 0, 2]
  %ee = tensor.empty() : tensor<12x197x64xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%o : tensor<12x197x64xf32>) outs(%ee : tensor<12x197x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<12x197x64xf32>
  %ek = tensor.empty() : tensor<12x64x197xf32>
  %kt = linalg.transpose ins(%ex : tensor<12x197x64xf32>) outs(%ek : tensor<12x64x197xf32>) permutation = [0, 2, 1]
  return %nt, %at, %kt : tensor<197x12x64xf32>, tensor<197x12x64xf32>, tensor<12x64x197xf32>
}
