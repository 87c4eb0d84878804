//===- Distributed.h - Runs of a tensor-parallel model under MPI -*- C++ -*-===//
//
// A model compiled with `tfm-compile --tensor-parallel=N` runs as N
// processes (`mpirun -np N ./model ...`), each holding its ranks' slice of
// the weights. Its binary links libtfm_mpi_runtime.a (Distributed.cpp),
// which defines these functions; other binaries do not, and the weak
// declarations below read as null there, so Main.cpp and GenerateMain.cpp
// run one process as before.
//
// The executables' contract stays one process's: rank 0 reads the inputs
// and writes the outputs; the other ranks receive the inputs from it and
// compute their share.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_RUNTIME_DISTRIBUTED_H
#define TFM_RUNTIME_DISTRIBUTED_H

#include "Npy.h"

#include <cstdint>

extern "C" {
/// Starts MPI and returns this process's rank; exits with a message (on
/// rank 0) when the number of processes is not the one the model was
/// compiled for, as when it was started without mpirun.
int tfmDistributedStart(int *argc, char ***argv) __attribute__((weak));
/// Sends `bytes` bytes at `data` from rank 0 to every other rank.
void tfmDistributedBroadcast(void *data, uint64_t bytes)
    __attribute__((weak));
/// Ends MPI after a successful run (a failing rank exits without it, and
/// mpirun then stops the others).
void tfmDistributedFinish() __attribute__((weak));
}

namespace tfm {
namespace runtime {

/// This process's rank: 0 for a model that is not tensor-parallel.
inline int startDistributed(int *argc, char ***argv) {
  return tfmDistributedStart ? tfmDistributedStart(argc, argv) : 0;
}

/// Whether the model runs as several processes.
inline bool isDistributed() { return tfmDistributedStart != nullptr; }

/// Broadcasts a plain value from rank 0 (a no-op in one process).
template <typename T> void broadcastValue(T &value) {
  if (isDistributed())
    tfmDistributedBroadcast(&value, sizeof(T));
}

/// Sends `array` (its type, shape and data) from rank 0 to the other ranks
/// of a tensor-parallel run, which read no files.
inline void broadcastArray(Array &array) {
  if (!isDistributed())
    return;
  uint64_t header[2] = {static_cast<uint64_t>(array.dtype),
                        array.shape.size()};
  broadcastValue(header);
  array.dtype = static_cast<DType>(header[0]);
  array.shape.resize(header[1]);
  tfmDistributedBroadcast(array.shape.data(), header[1] * sizeof(int64_t));
  uint64_t bytes = array.data.size();
  broadcastValue(bytes);
  array.data.resize(bytes);
  tfmDistributedBroadcast(array.data.data(), bytes);
}

inline void finishDistributed() {
  if (tfmDistributedFinish)
    tfmDistributedFinish();
}

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_DISTRIBUTED_H
