// RUN: tfm-opt %s --pass-pipeline="builtin.module(func.func(tfm-gpu-drop-redundant-barriers))" | FileCheck %s

// A kernel's first barrier before any access to memory, and its last after
// the last, order nothing; of two with only views between, one stays.
// CHECK-LABEL: func.func @ends
// CHECK:         gpu.launch
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      memref.subview
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.terminator
func.func @ends(%shared: memref<64xf32, #gpu.address_space<workgroup>>,
                %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.subview %shared[0] [32] [1] : memref<64xf32, #gpu.address_space<workgroup>> to memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %f, %v[%t] : memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.subview %shared[32] [32] [1] : memref<64xf32, #gpu.address_space<workgroup>> to memref<32xf32, strided<[1], offset: 32>, #gpu.address_space<workgroup>>
    gpu.barrier
    %x = memref.load %v[%c0] : memref<32xf32, strided<[1]>, #gpu.address_space<workgroup>>
    memref.store %x, %out[%t] : memref<64xf32>
    gpu.barrier
    gpu.terminator
  }
  return
}

// A loop that stages a block into shared memory and reads it at every
// step: the barrier before the reads and the one after them (before the
// next step's writes into the same buffer) stay, although a barrier
// follows the loop; the one after the loop goes, for nothing touches
// memory after it.
// CHECK-LABEL: func.func @staged_loop
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.terminator
func.func @staged_loop(%shared: memref<32xf32, #gpu.address_space<workgroup>>,
                       %in: memref<?xf32>, %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %n step %c32 {
      %x = memref.load %in[%i] : memref<?xf32>
      memref.store %x, %shared[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %shared[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%i] : memref<?xf32>
      gpu.barrier
    }
    gpu.barrier
    gpu.terminator
  }
  return
}

// A body that starts with a barrier: the one that ends it meets that one
// (the next iteration) and the one after the loop (its exit), and goes;
// the first stays (the writes before the loop, the previous iteration's
// reads come before it).
// CHECK-LABEL: func.func @barrier_first
// CHECK:         memref.store
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    gpu.terminator
func.func @barrier_first(%shared: memref<32xf32, #gpu.address_space<workgroup>>,
                         %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %f, %shared[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %n step %c1 {
      gpu.barrier
      %y = memref.load %shared[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%i] : memref<?xf32>
      gpu.barrier
    }
    gpu.barrier
    memref.store %f, %shared[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// A wait for asynchronous copies counts as an access: the barrier after it
// is what makes the other threads' copies visible. A branch that ends
// with a barrier right before another loses its own.
// CHECK-LABEL: func.func @async_and_branch
// CHECK:         nvgpu.device_async_copy
// CHECK:         gpu.barrier
// CHECK-NEXT:    nvgpu.device_async_wait
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.load
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      memref.store
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.load
// CHECK-NEXT:    memref.store
// CHECK-NEXT:    gpu.terminator
func.func @async_and_branch(%shared: memref<32xf32, #gpu.address_space<workgroup>>,
                            %in: memref<32xf32>, %out: memref<32xf32>,
                            %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %copy = nvgpu.device_async_copy %in[%t], %shared[%t], 1 : memref<32xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %group = nvgpu.device_async_create_group %copy
    gpu.barrier
    nvgpu.device_async_wait %group
    gpu.barrier
    %x = memref.load %shared[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
    scf.if %cond {
      memref.store %x, %shared[%t] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
    }
    gpu.barrier
    %y = memref.load %shared[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%t] : memref<32xf32>
    gpu.terminator
  }
  return
}

// Where nothing before the loop touches memory, the barrier that starts
// the body is the one that goes (it is judged first): the previous
// iteration's end is a barrier, and so is the kernel's start.
// CHECK-LABEL: func.func @loop_first_in_kernel
// CHECK:         scf.for
// CHECK-NEXT:      memref.load
// CHECK-NEXT:      memref.store
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    memref.store
func.func @loop_first_in_kernel(%shared: memref<32xf32, #gpu.address_space<workgroup>>,
                                %out: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%b, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%t, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %n step %c1 {
      gpu.barrier
      %y = memref.load %shared[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%i] : memref<?xf32>
      gpu.barrier
    }
    gpu.barrier
    memref.store %f, %shared[%t] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
