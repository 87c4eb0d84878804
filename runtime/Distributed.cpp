//===- Distributed.cpp - The MPI side of tensor-parallel executables ------===//
//
// libtfm_mpi_runtime.a: what Distributed.h declares, on MPI. tfm-compile
// links it whole, with libmpi, into a model compiled with
// --tensor-parallel=N; the model's all-reduces call MPI themselves (lowered
// by MLIR's convert-shard-to-mpi), on MPI_COMM_WORLD.
//
//===----------------------------------------------------------------------===//

#include "Distributed.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <utility>

// The number of processes the model was split for, which the compiled
// module defines (tfm-tensor-parallel).
extern "C" const int32_t tfm_tensor_parallel_ranks;
// runtime/Weights.cpp's, in a binary with weights: moves this rank's share
// of them into the process's memory.
extern "C" void tfmMoveRankWeights(int rank) __attribute__((weak));

namespace {

/// The exit code of bad arguments (Cli.h's kBadInput).
constexpr int kBadInput = 2;

int worldRank = 0;

/// Says that the world's size is not the model's, on rank 0, and exits.
[[noreturn]] void wrongSize(int size, int rank, const char *argv0) {
  if (rank == 0)
    std::fprintf(stderr,
                 "error: this model was compiled with --tensor-parallel=%d "
                 "and runs as %d processes, found %d: run it with "
                 "`mpirun -np %d %s ...`\n",
                 tfm_tensor_parallel_ranks, tfm_tensor_parallel_ranks, size,
                 tfm_tensor_parallel_ranks, argv0);
  std::exit(kBadInput);
}

/// The launcher's number of processes and this one's rank, from the
/// environment that mpirun (Open MPI's, or a PMI launcher's) gives each
/// process; {1, 0} for a process started on its own.
std::pair<int, int> getLaunch() {
  for (auto [size, rank] : {std::pair{"OMPI_COMM_WORLD_SIZE",
                                      "OMPI_COMM_WORLD_RANK"},
                            std::pair{"PMI_SIZE", "PMI_RANK"}})
    if (const char *text = std::getenv(size)) {
      const char *rankText = std::getenv(rank);
      return {std::atoi(text), rankText ? std::atoi(rankText) : 0};
    }
  return {1, 0};
}

} // namespace

extern "C" int tfmDistributedStart(int *argc, char ***argv) {
  // Checked before MPI starts: a process started without mpirun would
  // otherwise become an MPI singleton, spawning Open MPI's daemon only to
  // be told it is alone.
  auto [launched, launchRank] = getLaunch();
  if (launched != tfm_tensor_parallel_ranks)
    wrongSize(launched, launchRank, (*argv)[0]);
  int provided = 0;
  // One thread calls MPI; OpenMP's threads only compute.
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  if (size != tfm_tensor_parallel_ranks) {
    MPI_Finalize();
    wrongSize(size, worldRank, (*argv)[0]);
  }
  if (tfmMoveRankWeights)
    tfmMoveRankWeights(worldRank);
  // Only rank 0 speaks: the others would repeat its lines and messages
  // (mpirun still reports a rank that fails).
  if (worldRank != 0 && (!std::freopen("/dev/null", "w", stdout) ||
                         !std::freopen("/dev/null", "w", stderr)))
    std::exit(1);
  return worldRank;
}

extern "C" void tfmDistributedBroadcast(void *data, uint64_t bytes) {
  char *bytesLeft = static_cast<char *>(data);
  // MPI counts are ints: a tensor over 2 GiB goes in pieces.
  while (bytes > 0) {
    int count = static_cast<int>(std::min<uint64_t>(bytes, INT_MAX));
    MPI_Bcast(bytesLeft, count, MPI_BYTE, 0, MPI_COMM_WORLD);
    bytesLeft += count;
    bytes -= count;
  }
}

extern "C" void tfmDistributedFinish() { MPI_Finalize(); }
