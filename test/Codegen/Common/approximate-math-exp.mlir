// RUN: tfm-opt %s --tfm-approximate-math --split-input-file | FileCheck %s

// On an AVX-512 target (a module without tfm.target is one), exp of 16
// float32 lanes is 2^k exp(r): x clamped to [-104, 88.75], k =
// roundeven(x log2(e)), r = x - k ln(2) in two fused multiply-adds, exp(r)
// = 1 + r P(r) by Horner's rule (six fused multiply-adds), and the scaling
// by 2^k is vscalefps. A vector of several rows is scaled row by row;
// other widths keep upstream's approximation (no vscalefps).

// CHECK-LABEL: func.func @exp16
//  CHECK-SAME:   %[[X:[^:]*]]: vector<16xf32>
//       CHECK:   %[[MIN:.*]] = arith.minimumf %[[X]], %{{.*}} : vector<16xf32>
//       CHECK:   %[[C:.*]] = arith.maximumf %[[MIN]], %{{.*}} : vector<16xf32>
//       CHECK:   %[[T:.*]] = arith.mulf %[[C]], %{{.*}} : vector<16xf32>
//       CHECK:   %[[K:.*]] = math.roundeven %[[T]] : vector<16xf32>
//       CHECK:   %[[R1:.*]] = math.fma %[[K]], %{{.*}}, %[[C]]
//       CHECK:   %[[R:.*]] = math.fma %[[K]], %{{.*}}, %[[R1]]
//  CHECK-COUNT-5:   math.fma %{{.*}}, %[[R]], %{{.*}}
//       CHECK:   %[[E:.*]] = math.fma %[[R]], %{{.*}}, %{{.*}}
//       CHECK:   %[[Y:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%[[E]], %[[K]], %[[E]], %{{.*}}, %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>, i16, i32) -> vector<16xf32>
//       CHECK:   return %[[Y]]
func.func @exp16(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// CHECK-LABEL: func.func @exp2x16
//       CHECK:   %[[K:.*]] = math.roundeven %{{.*}} : vector<2x16xf32>
//       CHECK:   %[[E0:.*]] = vector.extract %[[E:.*]][0] : vector<16xf32> from vector<2x16xf32>
//  CHECK-NEXT:   %[[K0:.*]] = vector.extract %[[K]][0] : vector<16xf32> from vector<2x16xf32>
//  CHECK-NEXT:   %[[S0:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%[[E0]], %[[K0]], %[[E0]],
//  CHECK-NEXT:   %[[V0:.*]] = vector.insert %[[S0]], %{{.*}} [0] : vector<16xf32> into vector<2x16xf32>
//  CHECK-NEXT:   %[[E1:.*]] = vector.extract %[[E]][1] : vector<16xf32> from vector<2x16xf32>
//  CHECK-NEXT:   %[[K1:.*]] = vector.extract %[[K]][1] : vector<16xf32> from vector<2x16xf32>
//  CHECK-NEXT:   %[[S1:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%[[E1]], %[[K1]], %[[E1]],
//  CHECK-NEXT:   %[[V1:.*]] = vector.insert %[[S1]], %[[V0]] [1] : vector<16xf32> into vector<2x16xf32>
//  CHECK-NEXT:   return %[[V1]]
func.func @exp2x16(%x: vector<2x16xf32>) -> vector<2x16xf32> {
  %0 = math.exp %x : vector<2x16xf32>
  return %0 : vector<2x16xf32>
}

// CHECK-LABEL: func.func @exp8
//   CHECK-NOT:   llvm.call_intrinsic
//       CHECK:   return
func.func @exp8(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// An AVX2 target keeps upstream's exp.

// CHECK-LABEL: func.func @avx2
//   CHECK-NOT:   llvm.call_intrinsic
//       CHECK:   return
module attributes {tfm.target = #tfm.cpu<name = "haswell", isa = "avx2", vector_bits = 256, vector_registers = 16, features = ["fma", "avx2"], l1_bytes = 32768, l2_bytes = 262144, l3_bytes = 8388608>} {
  func.func @avx2(%x: vector<16xf32>) -> vector<16xf32> {
    %0 = math.exp %x : vector<16xf32>
    return %0 : vector<16xf32>
  }
}

// -----

// A GPU module's kernels keep upstream's exp, whatever the host's target.

// CHECK-LABEL: gpu.func @kernel
//   CHECK-NOT:   llvm.call_intrinsic
//       CHECK:   gpu.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @kernel(%x: vector<16xf32>) kernel {
      %0 = math.exp %x : vector<16xf32>
      gpu.return
    }
  }
}
