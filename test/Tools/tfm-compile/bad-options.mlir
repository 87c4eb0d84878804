// Options the command line accepts but no compile can use are refused
// before the graph is read, with exit code 1 and what would be valid.

// RUN: not tfm-compile %s -O9 -o %t 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: -O9: the optimization level is 0, 1, 2 or 3

// RUN: not tfm-compile %s --attention-q-tile=-4 -o %t 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not tfm-compile %s --attention-kv-tile=-1 -o %t 2>&1 | FileCheck %s --check-prefix=TILE
// TILE: error: --attention-q-tile and --attention-kv-tile take a positive size, or 0 for the default

// RUN: not tfm-compile %s --target=nvptx --gpu-block-size=0 -o %t 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not tfm-compile %s --target=nvptx --gpu-block-size=2048 -o %t 2>&1 | FileCheck %s --check-prefix=BLOCK2048
// BLOCK: error: --gpu-block-size=0: a block has 1 to 1024 threads
// BLOCK2048: error: --gpu-block-size=2048: a block has 1 to 1024 threads

// RUN: not tfm-compile %s --profile --emit=lib -o %t.so 2>&1 | FileCheck %s --check-prefix=PROFILE
// RUN: not tfm-compile %s --profile --emit=obj -o %t.o 2>&1 | FileCheck %s --check-prefix=PROFILE
// PROFILE: error: --profile is for executables (--emit=exe): only their --profile prints the kernels' times

// RUN: not tfm-compile %s --tensor-parallel=0 -o %t 2>&1 | FileCheck %s --check-prefix=TP0
// TP0: error: --tensor-parallel=0: the number of processes is at least 1
// RUN: not tfm-compile %s --tensor-parallel=2 --target=nvptx -o %t 2>&1 | FileCheck %s --check-prefix=TPGPU
// TPGPU: error: --tensor-parallel is for --target=cpu for now
// RUN: not tfm-compile %s --tensor-parallel=2 --emit=lib -o %t.so 2>&1 | FileCheck %s --check-prefix=TPLIB
// TPLIB: error: --tensor-parallel makes executables (--emit=exe) and IR for now

// An output in a directory that does not exist is refused up front, not
// by the linker after the whole compile.
// RUN: not tfm-compile %s -o %t.missing/dir/model 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: error: cannot write '{{.*}}.missing/dir/model': '{{.*}}.missing/dir' is not a directory

// An output that cannot be written (a full disk) is an error of
// tfm-compile's, exit code 1, for every kind of output, never LLVM's or the
// linker's crash.
// RUN: not tfm-compile %s --emit=exe -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not tfm-compile %s --emit=lib -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not tfm-compile %s --emit=obj -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not tfm-compile %s --emit=mlir -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not tfm-compile %s --emit=llvm -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// FULL-NOT: LLVM ERROR
// FULL: error: cannot write '/dev/full': No space left on device
// FULL-NOT: LLVM ERROR

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
