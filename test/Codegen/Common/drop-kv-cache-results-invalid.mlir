// RUN: tfm-opt %s -split-input-file --tfm-drop-kv-cache-results --verify-diagnostics

// A result marked as an updated cache must be its argument's buffer once
// bufferized: a cache written anywhere else would be copied every step.

// expected-error @+1 {{result 0 is a key/value cache that bufferization could not update in place ('past_key')}}
func.func @not_in_place(%cache: memref<4x8xf32>, %other: memref<4x8xf32>)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64, tfm.name = "past_key"}) {
  return %other : memref<4x8xf32>
}

// -----

// Only the entry may hold caches: a caller would have to drop the results
// too.
// expected-error @+1 {{a function that returns key/value caches is called; only the entry may hold them}}
func.func private @step(%cache: memref<4x8xf32>)
    -> (memref<4x8xf32> {tfm.kv_cache = 0 : i64}) {
  return %cache : memref<4x8xf32>
}
func.func @main(%cache: memref<4x8xf32>) -> memref<4x8xf32> {
  %0 = call @step(%cache) : (memref<4x8xf32>) -> memref<4x8xf32>
  return %0 : memref<4x8xf32>
}
