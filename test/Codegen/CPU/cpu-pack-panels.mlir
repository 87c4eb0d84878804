// RUN: tfm-opt %s --tfm-cpu-pack-panels --canonicalize --split-input-file | FileCheck %s
// RUN: tfm-opt %s --tfm-set-cpu-target=cpu=avx512 --tfm-cpu-pack-panels --canonicalize --split-input-file | FileCheck %s --check-prefix=AVX512

// On a (hypothetical) CPU of 64-bit vectors, which hold 2 f32, panels are
// Nr = 4 columns wide (AVX-512's 32, below, leave these products alone). A constant [K, N]
// operand is packed at compile time into [ceil(N / 4), K, 4], its last panel
// padded with zeros; the product computes 8 columns into a fill and keeps 6.

// CHECK-LABEL: func.func @constant_kn
// CHECK-DAG:   %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01]], {{\[}}[5.000000e+00, 6.000000e+00, 0.000000e+00, 0.000000e+00], [1.100000e+01, 1.200000e+01, 0.000000e+00, 0.000000e+00]]]> : tensor<2x2x4xf32>
// CHECK-DAG:   %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<5x2x4xf32>
// CHECK:       %[[R:.*]] = linalg.generic {indexing_maps = [#[[$A:.*]], #[[$B:.*]], #[[$C:.*]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%{{.*}}, %[[P]] : tensor<5x2xf32>, tensor<2x2x4xf32>) outs(%[[ACC]] : tensor<5x2x4xf32>)
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<5x2x4xf32> into tensor<5x8xf32>
// CHECK:       %[[Y:.*]] = tensor.extract_slice %[[FLAT]][0, 0] [5, 6] [1, 1]
// CHECK:       return %[[Y]]
// AVX512-LABEL: func.func @constant_kn
// AVX512:       linalg.matmul
module attributes {tfm.target = #tfm.cpu<name = "test", isa = "sse", vector_bits = 64, vector_registers = 16, features = [], l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>} {
func.func @constant_kn(%x: tensor<5x2xf32>) -> tensor<5x6xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [7.0, 8.0, 9.0, 10.0, 11.0, 12.0]]> : tensor<2x6xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<5x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<5x6xf32>) -> tensor<5x6xf32>
  %y = linalg.matmul ins(%x, %w : tensor<5x2xf32>, tensor<2x6xf32>) outs(%acc : tensor<5x6xf32>) -> tensor<5x6xf32>
  return %y : tensor<5x6xf32>
}
}
// -----

// A weight stored [N, K] (nn.Linear's) packs to the same layout, without a
// transposed copy; Nr divides N = 8, so the accumulator, which need not be a
// fill, is reshaped into panels.

// CHECK-DAG:   #[[$LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
// CHECK-DAG:   #[[$RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d4, d3)>
// CHECK-DAG:   #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @constant_nk
// CHECK-SAME:      (%[[X:.*]]: tensor<2x3x2xf32>, %[[ACC:.*]]: tensor<2x3x8xf32>)
// CHECK:       %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}[0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00], [1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00]], {{\[}}[8.000000e+00, 1.000000e+01, 1.200000e+01, 1.400000e+01], [9.000000e+00, 1.100000e+01, 1.300000e+01, 1.500000e+01]]]> : tensor<2x2x4xf32>
// CHECK:       %[[PANELS:.*]] = tensor.expand_shape %[[ACC]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 4]
// CHECK:       %[[R:.*]] = linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[P]] : tensor<2x3x2xf32>, tensor<2x2x4xf32>) outs(%[[PANELS]] : tensor<2x3x2x4xf32>)
// CHECK:       tensor.collapse_shape %[[R]] {{\[}}[0], [1], [2, 3]] : tensor<2x3x2x4xf32> into tensor<2x3x8xf32>
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs = affine_map<(b, m, n, k) -> (n, k)>
#out = affine_map<(b, m, n, k) -> (b, m, n)>
module attributes {tfm.target = #tfm.cpu<name = "test", isa = "sse", vector_bits = 64, vector_registers = 16, features = [], l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>} {
func.func @constant_nk(%x: tensor<2x3x2xf32>, %acc: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %w = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0]]> : tensor<8x2xf32>
  %y = linalg.generic {indexing_maps = [#lhs, #rhs, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x3x2xf32>, tensor<8x2xf32>) outs(%acc : tensor<2x3x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x8xf32>
  return %y : tensor<2x3x8xf32>
}
}
// -----

// A weight that the lowering transposed ([N, K] -> [K, N], a patch
// embedding's kernel) is packed from the constant itself at compile time:
// the same panels as @constant_nk, and no transpose is left to run.

// CHECK-LABEL: func.func @transposed_constant
// CHECK:       %[[P:.*]] = arith.constant dense<{{\[}}{{\[}}[0.000000e+00, 2.000000e+00, 4.000000e+00, 6.000000e+00], [1.000000e+00, 3.000000e+00, 5.000000e+00, 7.000000e+00]], {{\[}}[8.000000e+00, 1.000000e+01, 1.200000e+01, 1.400000e+01], [9.000000e+00, 1.100000e+01, 1.300000e+01, 1.500000e+01]]]> : tensor<2x2x4xf32>
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<3x2xf32>, tensor<2x2x4xf32>)
// CHECK-NOT:   linalg.transpose
// CHECK:       return
module attributes {tfm.target = #tfm.cpu<name = "test", isa = "sse", vector_bits = 64, vector_registers = 16, features = [], l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>} {
func.func @transposed_constant(%x: tensor<3x2xf32>, %acc: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %w = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0]]> : tensor<8x2xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %t = linalg.transpose ins(%w : tensor<8x2xf32>) outs(%e : tensor<2x8xf32>) permutation = [1, 0]
  %y = linalg.matmul ins(%x, %t : tensor<3x2xf32>, tensor<2x8xf32>) outs(%acc : tensor<3x8xf32>) -> tensor<3x8xf32>
  return %y : tensor<3x8xf32>
}
}
// -----

// An operand computed at run time is packed by a copy (the transpose of its
// expanded shape) when the product has 64 rows or more; AVX-512's panels are
// 32 columns wide.

// AVX512-LABEL: func.func @runtime
// AVX512-SAME:      (%[[X:.*]]: tensor<64x16xf32>, %[[W:.*]]: tensor<16x64xf32>
// AVX512:       %[[E:.*]] = tensor.expand_shape %[[W]] {{\[}}[0], [1, 2]] output_shape [16, 2, 32]
// AVX512:       %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<16x2x32xf32>) outs(%{{.*}} : tensor<2x16x32xf32>) permutation = [1, 0, 2]
// AVX512:       linalg.generic
// AVX512-SAME:      ins(%[[X]], %[[P]] : tensor<64x16xf32>, tensor<2x16x32xf32>)
func.func @runtime(%x: tensor<64x16xf32>, %w: tensor<16x64xf32>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<64x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}

// -----

// Left alone: a run-time operand read by few rows (the copy would not pay),
// one whose columns Nr does not divide, and a batched product.

// AVX512-LABEL: func.func @unpacked
// AVX512-NOT:   linalg.transpose
// AVX512-NOT:   linalg.generic
// AVX512:       linalg.matmul
// AVX512:       linalg.matmul
// AVX512:       linalg.batch_matmul
// AVX512:       return
func.func @unpacked(%x: tensor<8x16xf32>, %w: tensor<16x64xf32>, %acc: tensor<8x64xf32>,
                    %x2: tensor<64x16xf32>, %w2: tensor<16x48xf32>, %acc2: tensor<64x48xf32>,
                    %bx: tensor<2x64x16xf32>, %bw: tensor<2x16x64xf32>, %bacc: tensor<2x64x64xf32>)
    -> (tensor<8x64xf32>, tensor<64x48xf32>, tensor<2x64x64xf32>) {
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y2 = linalg.matmul ins(%x2, %w2 : tensor<64x16xf32>, tensor<16x48xf32>) outs(%acc2 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %y3 = linalg.batch_matmul ins(%bx, %bw : tensor<2x64x16xf32>, tensor<2x16x64xf32>) outs(%bacc : tensor<2x64x64xf32>) -> tensor<2x64x64xf32>
  return %y, %y2, %y3 : tensor<8x64xf32>, tensor<64x48xf32>, tensor<2x64x64xf32>
}
// -----

// The product's epilogue moves into the panels' shape: the op that computes
// its accumulator (the bias, broadcast) produces [M, N / Nr, Nr] itself and
// the op that reads its result (a GELU) reads the panels; the reshape back
// to [M, N] comes after it.

// CHECK-LABEL: func.func @epilogue_in_panels
// CHECK:       %[[B:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
// CHECK:       %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<3x2x4xf32>)
// CHECK:       %[[P:.*]] = linalg.generic {{.*}} outs(%[[INIT]] : tensor<3x2x4xf32>)
// CHECK:       %[[G:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<3x2x4xf32>) outs(%{{.*}} : tensor<3x2x4xf32>)
// CHECK:         math.erf
// CHECK:       %[[Y:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1, 2]] : tensor<3x2x4xf32> into tensor<3x8xf32>
// CHECK:       return %[[Y]]
module attributes {tfm.target = #tfm.cpu<name = "test", isa = "sse", vector_bits = 64, vector_registers = 16, features = [], l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>} {
func.func @epilogue_in_panels(%x: tensor<3x2xf32>, %b: tensor<8xf32>) -> tensor<3x8xf32> {
  %w = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xf32>
  %e0 = tensor.empty() : tensor<3x8xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<8xf32>) outs(%e0 : tensor<3x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<3x8xf32>
  %p = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x8xf32>) outs(%init : tensor<3x8xf32>) -> tensor<3x8xf32>
  %e1 = tensor.empty() : tensor<3x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x8xf32>) outs(%e1 : tensor<3x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.erf %a : f32
    linalg.yield %v : f32
  } -> tensor<3x8xf32>
  return %g : tensor<3x8xf32>
}
}
// -----

// A product whose reduction is cut into cache blocks (800 steps) keeps its
// activation on rows [M, N]: its register tiles cannot take it in.

// CHECK-LABEL: func.func @blocked_epilogue_on_rows
// CHECK:       %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x2x4xf32>)
// CHECK:       %[[FLAT:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0], [1, 2]] : tensor<3x2x4xf32> into tensor<3x8xf32>
// CHECK:       linalg.generic {{.*}} ins(%[[FLAT]] : tensor<3x8xf32>) outs(%{{.*}} : tensor<3x8xf32>)
// CHECK:         math.erf
module attributes {tfm.target = #tfm.cpu<name = "test", isa = "sse", vector_bits = 64, vector_registers = 16, features = [], l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>} {
func.func @blocked_epilogue_on_rows(%x: tensor<3x800xf32>, %w: tensor<800x8xf32>, %acc: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %c = arith.constant dense<1.0> : tensor<800x8xf32>
  %p = linalg.matmul ins(%x, %c : tensor<3x800xf32>, tensor<800x8xf32>) outs(%acc : tensor<3x8xf32>) -> tensor<3x8xf32>
  %e1 = tensor.empty() : tensor<3x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x8xf32>) outs(%e1 : tensor<3x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.erf %a : f32
    linalg.yield %v : f32
  } -> tensor<3x8xf32>
  return %g : tensor<3x8xf32>
}
}
