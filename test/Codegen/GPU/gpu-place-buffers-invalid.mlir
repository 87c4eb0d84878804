// RUN: tfm-opt %s --pass-pipeline="builtin.module(tfm-gpu-place-buffers)" --split-input-file --verify-diagnostics

// expected-error @below {{argument #0 has a non-identity layout, which the GPU mapping cannot copy to the device}}
func.func @strided(%x: memref<4xf32, strided<[2]>>) {
  return
}

// -----

func.func @host_loop(%x: memref<4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{allocates a buffer inside control flow on the host, which the GPU mapping does not support}}
    %buffer = memref.alloc() : memref<4xf32>
  }
  return
}

// -----

// expected-error @below {{'func.func' op cannot place buffers on the GPU: its body has more than one block}}
func.func @branches(%x: memref<4xf32>, %c: i1) {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return
^bb2:
  return
}
