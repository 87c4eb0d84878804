// RUN: tfm-opt %s -split-input-file --tfm-lower-dynamic-all-reduces --convert-shard-to-mpi -verify-diagnostics | FileCheck %s

// An all-reduce of dynamic shape (a tensor-parallel model compiled for any
// batch): its partial sum is copied into a buffer sized by tensor.dim, which
// MPI_Allreduce sums in place on MPI_COMM_WORLD. (convert-shard-to-mpi sizes
// that buffer with memref.dim of the dynamic-size marker as the index; the
// static all-reduce stays its.)

// CHECK-LABEL: func.func @dynamic(
//  CHECK-SAME:     %[[X:.*]]: tensor<?x?x8xf32>)
//   CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[D0:.*]] = tensor.dim %[[X]], %[[C0]]
//   CHECK-DAG:   %[[D1:.*]] = tensor.dim %[[X]], %[[C1]]
//       CHECK:   %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<?x?x8xf32> to memref<?x?x8xf32>
//       CHECK:   %[[BUF:.*]] = memref.alloc(%[[D0]], %[[D1]]) : memref<?x?x8xf32>
//       CHECK:   memref.copy %[[IN]], %[[BUF]]
//       CHECK:   %[[FLAT:.*]] = memref.collapse_shape %[[BUF]] {{\[}}[0, 1, 2]] : memref<?x?x8xf32> into memref<?xf32>
//       CHECK:   %[[WORLD:.*]] = mpi.comm_world
//       CHECK:   mpi.allreduce(%[[FLAT]], %[[FLAT]], MPI_SUM, %[[WORLD]]) : memref<?xf32>, memref<?xf32>
//       CHECK:   %[[SUM:.*]] = bufferization.to_tensor %[[BUF]] restrict : memref<?x?x8xf32> to tensor<?x?x8xf32>
//       CHECK:   return %[[SUM]]
shard.grid @tp(shape = 2)
func.func @dynamic(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %s = shard.all_reduce %x on @tp grid_axes = [0] : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  return %s : tensor<?x?x8xf32>
}

// -----

shard.grid @tp(shape = 2)
func.func @max(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{tfm lowers all-reduces of dynamic shape only as sums of one type over every rank of a 1-D grid}}
  %s = shard.all_reduce %x on @tp grid_axes = [0] reduction = max : tensor<?x8xf32> -> tensor<?x8xf32>
  return %s : tensor<?x8xf32>
}
