// RUN: tfm-opt %s --tfm-fix-openmpi-op-symbols -verify-diagnostics

// The misnamed op and Open MPI's own name in one module: which one the
// calls mean is not for the pass to guess.

// expected-error @+1 {{both @ompi_mpi_sum and @ompi_mpi_op_sum are defined}}
llvm.mlir.global external @ompi_mpi_sum() : !llvm.struct<"ompi_predefined_op_t", opaque>
llvm.mlir.global external @ompi_mpi_op_sum() : !llvm.struct<"ompi_predefined_op_t", opaque>
