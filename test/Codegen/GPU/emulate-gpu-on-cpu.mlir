// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-emulate-gpu-on-cpu))" --split-input-file --verify-diagnostics | FileCheck %s

// A launch of one-thread blocks becomes a loop nest over the grid: the block
// ids are the induction variables, the thread id is 0, shared memory is a
// stack buffer allocated once before the loops (each block reuses it) and
// barriers are gone; device memory is host memory.

// CHECK-LABEL: func.func @launch(
// CHECK-SAME:      %[[X:.*]]: memref<8xf32>
// CHECK:         %[[D:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT:    memref.copy %[[X]], %[[D]]
// CHECK:         %[[SHARED:.*]] = memref.alloca() : memref<1xf32>
// CHECK-NEXT:    scf.for %[[B:.*]] = %[[C0:.*]] to %c8 step %[[C1:.*]] {
// CHECK-NEXT:      scf.for %{{.*}} = %[[C0]] to %c1 step %[[C1]] {
// CHECK-NEXT:        scf.for %{{.*}} = %[[C0]] to %c1 step %[[C1]] {
// CHECK-NEXT:          %[[V:.*]] = memref.load %[[D]][%[[B]]]
// CHECK-NEXT:          memref.store %[[V]], %[[SHARED]][%[[C0]]]
// CHECK-NEXT:          %[[W:.*]] = memref.load %[[SHARED]][%[[C0]]]
// CHECK-NEXT:          memref.store %[[W]], %[[D]][%[[B]]]
// CHECK:         memref.copy %[[D]], %[[X]]
// CHECK-NEXT:    memref.dealloc %[[D]]
// CHECK-NOT:     gpu.
func.func @launch(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %d = gpu.alloc () : memref<8xf32>
  gpu.memcpy %d, %x : memref<8xf32>, memref<8xf32>
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%shared : memref<1xf32, #gpu.address_space<workgroup>>) {
    %tile = memref.memory_space_cast %shared : memref<1xf32, #gpu.address_space<workgroup>> to memref<1xf32>
    %v = memref.load %d[%b] : memref<8xf32>
    memref.store %v, %tile[%t] : memref<1xf32>
    gpu.barrier
    %w = memref.load %tile[%t] : memref<1xf32>
    memref.store %w, %d[%b] : memref<8xf32>
    gpu.terminator
  }
  gpu.memcpy %x, %d : memref<8xf32>, memref<8xf32>
  gpu.dealloc %d : memref<8xf32>
  return
}

// -----

// Dynamic shared memory: its bytes allocated once, before the loops over
// the grid, and viewed as the block's buffers inside them.

// CHECK-LABEL: func.func @dynamic_shared(
// CHECK:         %[[BYTES:.*]] = memref.alloca(%{{.*}}) : memref<?xi8>
// CHECK-NEXT:    scf.for
// CHECK-NOT:       memref.alloca
// CHECK:           memref.view %[[BYTES]][%{{.*}}][] : memref<?xi8> to memref<4xf32>
func.func @dynamic_shared(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %bytes = arith.constant 16 : i32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    %shared = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %shared[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    %v = memref.load %x[%b] : memref<8xf32>
    memref.store %v, %tile[%t] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @dynamic_shared_without_size(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{uses dynamic shared memory but gives no size for it; it cannot be emulated}}
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %shared = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @wide_blocks(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @below {{has blocks of more than one thread, which the CPU emulation cannot run (map with block-size=1)}}
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @asynchronous(%x: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  %token = gpu.wait async
  // expected-error @below {{cannot be emulated on the CPU}}
  %done = gpu.launch async [%token] blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
