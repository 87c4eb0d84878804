// RUN: tfm-opt %s --tfm-lower-asserts | FileCheck %s

// A failed check calls the runtime's tfm_check_failed with its message
// (which prints it and exits 1) instead of aborting without it.

//       CHECK: llvm.func @tfm_check_failed(!llvm.ptr)
//       CHECK: llvm.mlir.global private constant @[[TEXT:__tfm_check_0[_0-9]*]](dense<[115, 101, 113, {{.*}}, 49, 54, 0]>
// CHECK-LABEL: func.func @bounded
//  CHECK-SAME:   (%[[SEQ:.*]]: index)
//       CHECK:   %[[OK:.*]] = arith.cmpi sle, %[[SEQ]]
//       CHECK:   cf.cond_br %[[OK]], ^[[AFTER:.*]], ^[[FAILED:[a-z0-9]*]]
//       CHECK: ^[[FAILED]]:
//       CHECK:   llvm.mlir.addressof @[[TEXT]]
//       CHECK:   llvm.call @tfm_check_failed(
//       CHECK:   llvm.unreachable
//       CHECK: ^[[AFTER]]:
//       CHECK:   return
//   CHECK-NOT: cf.assert
func.func @bounded(%seq: index) {
  %c16 = arith.constant 16 : index
  %ok = arith.cmpi sle, %seq, %c16 : index
  cf.assert %ok, "seq must be at most 16"
  return
}
