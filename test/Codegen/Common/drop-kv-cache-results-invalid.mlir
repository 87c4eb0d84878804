// RUN: tfm-opt %s -split-input-file --tfm-drop-kv-cache-results --verify-diagnostics

// A result marked as an updated cache must be its argument's buffer once
// bufferized: a cache written anywhere else would be copied every step.

// expected-error @+1 {{result 0 is a key/value cache that bufferization could not update in place ('past_key')}}
func.func @not_in_place(%cache: memref<4x8xf32>, %other: memref<4x8xf32>)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64, tfm.name = "past_key"}) {
  return %other : memref<4x8xf32>
}

// -----

// A function that returns caches is only called: its calls drop the
// results with it.
// expected-error @+1 {{a function that returns key/value caches is used other than by calls}}
func.func private @step(%cache: memref<4x8xf32>)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64}) {
  return %cache : memref<4x8xf32>
}
func.func @main() -> ((memref<4x8xf32>) -> memref<4x8xf32>) {
  %f = func.constant @step : (memref<4x8xf32>) -> memref<4x8xf32>
  return %f : (memref<4x8xf32>) -> memref<4x8xf32>
}

// -----

// A dispatch whose cases yield different buffers is no update in place.
// expected-error @+1 {{result 0 is a key/value cache that bufferization could not update in place}}
func.func @switch(%cache: memref<4x8xf32>, %other: memref<4x8xf32>, %rank: index)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64}) {
  %r = scf.index_switch %rank -> memref<4x8xf32>
  case 1 {
    scf.yield %other : memref<4x8xf32>
  }
  default {
    scf.yield %cache : memref<4x8xf32>
  }
  return %r : memref<4x8xf32>
}
