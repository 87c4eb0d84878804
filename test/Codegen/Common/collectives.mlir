// RUN: tfm-opt %s --convert-shard-to-mpi --tfm-simplify-mpi-comms=ranks=2 | FileCheck %s --check-prefix=COMM
// RUN: tfm-opt %s --convert-shard-to-mpi --tfm-simplify-mpi-comms=ranks=3 | FileCheck %s --check-prefix=OTHER
// RUN: tfm-opt %s --convert-shard-to-mpi --tfm-simplify-mpi-comms=ranks=2 \
// RUN:   --one-shot-bufferize="bufferize-function-boundaries" \
// RUN:   --buffer-deallocation-pipeline --convert-linalg-to-loops \
// RUN:   --convert-to-llvm="filter-dialects=mpi" --tfm-fix-openmpi-op-symbols \
// RUN:   | FileCheck %s --check-prefix=LLVM

// What tfm adds to upstream's lowering of a tensor-parallel model's
// all-reduce (convert-shard-to-mpi, the MPI dialect's lowering to LLVM).

// tfm-simplify-mpi-comms: the all-reduce on the whole 1-D grid of 2 ranks
// uses MPI_COMM_WORLD, not a communicator split off it before every call,
// and the grid goes once nothing names it. With another world size than
// the grid's, the rank modulo that size is not the rank: the split stays.
// COMM:       module
// COMM-NOT:   shard.grid
// COMM-NOT:   mpi.comm_split
// COMM-NOT:   mpi.comm_rank
// COMM:       %[[WORLD:.*]] = mpi.comm_world
// COMM-NEXT:  %[[FLAT:.*]] = memref.collapse_shape
// COMM-NEXT:  mpi.allreduce(%[[FLAT]], %[[FLAT]], MPI_SUM, %[[WORLD]])
// COMM-NOT:   mpi.comm_split
// OTHER:     mpi.comm_split

// Buffer deallocation accepts mpi.allreduce (its memory effects, which tfm
// attaches), and the LLVM code calls MPI_Allreduce with Open MPI's MPI_SUM,
// `ompi_mpi_op_sum` (the lowering alone names it `ompi_mpi_sum`, which
// libmpi does not define).
// LLVM-NOT:  @ompi_mpi_sum
// LLVM:      llvm.mlir.global external @ompi_mpi_op_sum()
// LLVM:      llvm.call @MPI_Allreduce
// LLVM-NOT:  @ompi_mpi_sum
module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">} {
  shard.grid @tfm_tp(shape = 2)
  func.func @partial_sum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %e = tensor.empty() : tensor<4x8xf32>
    %y = linalg.add ins(%x, %x : tensor<4x8xf32>, tensor<4x8xf32>)
        outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = shard.all_reduce %y on @tfm_tp grid_axes = [0]
        : tensor<4x8xf32> -> tensor<4x8xf32>
    return %r : tensor<4x8xf32>
  }
}
