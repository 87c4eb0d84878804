// RUN: tfm-opt %s --split-input-file --tfm-kv-cache=max-len=32 --verify-diagnostics
// RUN: not tfm-opt %s --split-input-file --tfm-kv-cache 2>&1 | FileCheck %s --check-prefix=LEN

// LEN: error: a key/value cache needs its length: compile with --kv-cache=N

// expected-error @+1 {{entry @main has no key/value cache: none of its results is one of its arguments with this call's positions appended}}
func.func @main(%x: tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32> {
  return %x : tensor<1x2x?x4xf32>
}

// -----

func.func @main(%past: tensor<1x2x?x4xf32> {tfm.dims = ["", "", "past", ""]},
                %k: tensor<1x?x2x4xf32>) -> tensor<1x?x?x4xf32> {
  // expected-error @+1 {{the cache of argument 0 is appended to along dimension 1; tfm's caches are [..., length, head_dim]}}
  %c = tensor.concat dim(1) %past, %k : (tensor<1x2x?x4xf32>, tensor<1x?x2x4xf32>) -> tensor<1x?x?x4xf32>
  return %c : tensor<1x?x?x4xf32>
}

// -----

func.func @main(%past: tensor<1x2x?x4xf32> {tfm.dims = ["", "", "past", ""]},
                %k: tensor<1x2x?x4xf32>) -> (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) {
  %c = tensor.concat dim(2) %past, %k : (tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  // expected-error @+1 {{the model reads argument 0 other than by appending to it; a cache is only appended to}}
  %d = arith.addf %past, %past : tensor<1x2x?x4xf32>
  return %c, %d : tensor<1x2x?x4xf32>, tensor<1x2x?x4xf32>
}

// -----

// expected-error @+1 {{entry @main holds key/value caches already (argument 0 ('cache') is marked tfm.kv_cache): compile it without --kv-cache}}
func.func @main(%cache: tensor<1x2x8x4xf32> {tfm.kv_cache, tfm.name = "cache"}, %k: tensor<1x2x1x4xf32>, %p: index)
    -> (tensor<1x2x8x4xf32> {tfm.kv_cache = 0 : i64}) {
  %u, %keys = tfm.kv_cache_append %cache, %k at %p : tensor<1x2x8x4xf32>, tensor<1x2x1x4xf32> -> tensor<1x2x8x4xf32>, tensor<1x2x?x4xf32>
  return %u : tensor<1x2x8x4xf32>
}

// -----

func.func @main(%past: tensor<1x2x3x4xf32> {tfm.name = "past_key"},
                %k: tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32> {
  // expected-error @+1 {{argument 0 ('past_key') has a past of static length 3; export it with the past length as a dynamic axis}}
  %c = tensor.concat dim(2) %past, %k : (tensor<1x2x3x4xf32>, tensor<1x2x?x4xf32>) -> tensor<1x2x?x4xf32>
  return %c : tensor<1x2x?x4xf32>
}
