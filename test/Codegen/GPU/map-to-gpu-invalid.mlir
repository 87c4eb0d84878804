// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-map-to-gpu))" --split-input-file --verify-diagnostics

func.func @dynamic_tile(%x: memref<?xf32>, %n: index) {
  scf.forall (%i) in (2) {
    // expected-error @below {{allocates a buffer of dynamic shape inside a GPU block; only static tiles can live in shared memory}}
    %tile = memref.alloc(%n) : memref<?xf32>
    memref.copy %x, %tile : memref<?xf32> to memref<?xf32>
  }
  return
}

// -----

func.func @too_much_shared_memory(%x: memref<128x128xf32>) {
  scf.forall (%i) in (2) {
    // expected-error @below {{needs 65536 bytes of shared memory per block, more than the 49152 available; use smaller tiles}}
    %tile = memref.alloc() : memref<128x128xf32>
    memref.copy %x, %tile : memref<128x128xf32> to memref<128x128xf32>
  }
  return
}

// -----

func.func @host_read(%x: memref<4xindex>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{reads device memory on the host, which the GPU mapping does not support}}
  %n = memref.load %x[%c0] : memref<4xindex>
  %buffer = memref.alloc(%n) : memref<?xf32>
  memref.copy %buffer, %y : memref<?xf32> to memref<?xf32>
  return
}

// -----

func.func @four_dimensional(%x: memref<2x2x2x2xf32>) {
  // expected-error @below {{has 4 dimensions; a GPU grid has at most 3}}
  scf.forall (%i, %j, %k, %l) in (2, 2, 2, 2) {
    %one = arith.constant 1.0 : f32
    memref.store %one, %x[%i, %j, %k, %l] : memref<2x2x2x2xf32>
  }
  return
}

// -----

func.func @tall_grid(%x: memref<2x70000xf32>) {
  // expected-error @below {{has 70000 iterations in dimension 1, more than the 65535 blocks a GPU grid has there}}
  scf.forall (%i, %j) in (2, 70000) {
    %one = arith.constant 1.0 : f32
    memref.store %one, %x[%i, %j] : memref<2x70000xf32>
  }
  return
}

// -----

func.func @alloc_outside_tiles(%x: memref<4xf32>, %c: i1) {
  scf.if %c {
    // expected-error @below {{allocates a buffer inside control flow outside a tile loop, which the GPU mapping does not support}}
    %buffer = memref.alloc() : memref<4xf32>
    memref.copy %x, %buffer : memref<4xf32> to memref<4xf32>
  }
  return
}

// -----

func.func @write_with_result(%x: memref<4xf32>) {
  scf.forall (%i) in (2) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    // expected-error @below {{writes memory and returns a value inside a GPU block, which the GPU mapping cannot distribute}}
    %r = scf.execute_region -> f32 {
      memref.store %one, %x[%c0] : memref<4xf32>
      scf.yield %one : f32
    }
  }
  return
}

// -----

func.func @tensor_tiles(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot be mapped to the GPU before bufferization}}
  %0 = scf.forall (%i) in (4) shared_outs(%out = %x) -> (tensor<4xf32>) {
    scf.forall.in_parallel {
    }
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @parallel_reduction(%x: memref<4xf32>, %y: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @below {{with reductions cannot be mapped to the GPU}}
  %sum = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%zero) -> f32 {
    %v = memref.load %x[%i] : memref<4xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  memref.store %sum, %y[] : memref<f32>
  return
}

// -----

// expected-error @below {{'func.func' op cannot be mapped to the GPU: its body has more than one block}}
func.func @branches(%x: memref<4xf32>) {
  cf.br ^next
^next:
  return
}

// -----

// The mark that ties a tensor-core product to the epilogue its warps apply
// is the pass's own: an op that carries one with no product to apply it is
// refused, not dropped.

func.func @foreign_mark(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  scf.forall (%i) = (0) to (64) step (32) {
    %sx = memref.subview %x[%i, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    %sy = memref.subview %y[%i, 0] [32, 64] [1, 1] : memref<64x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    // expected-error @+1 {{was to be applied to a tensor-core product's fragments, but the product did not apply it}}
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%sx : memref<32x64xf32, strided<[64, 1], offset: ?>>) outs(%sy : memref<32x64xf32, strided<[64, 1], offset: ?>>) attrs = {tfm.fragment_epilogue = 3 : i64} {
    ^bb0(%a: f32, %b: f32):
      linalg.yield %a : f32
    }
  }
  return
}
