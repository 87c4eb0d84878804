//===- Passes.td - tfm graph transformations ---------------*- tablegen -*-===//

#ifndef TFM_TRANSFORMS_PASSES_TD
#define TFM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TfmDecompose : Pass<"tfm-decompose"> {
  let summary = "Decompose composite tfm ops into the primitives they are "
                "built from";
  let description = [{
    Rewrites the composite layers of the tfm dialect into the primitive tfm
    and upstream ops that d2l builds them from:

    - `tfm.multi_head_attention` becomes three `tfm.linear` projections,
      `tfm.split_heads` on each, one `tfm.attention` over
      `[batch * heads, seq, head_dim]`, `tfm.merge_heads` and the output
      `tfm.linear`. `valid_lens` is repeated for every head as d2l's
      `repeat_interleave` does.
    - `tfm.ffn` becomes a `tfm.linear` carrying the activation followed by a
      second `tfm.linear`.
    - `tfm.add_norm` becomes an `arith.addf` of the residual and the
      sub-layer followed by `tfm.layer_norm`.

    Dropout is the identity at inference and disappears. After this pass the
    code generators only see primitive ops.

    ```mlir
    %y = tfm.ffn %x dense1(%w1, %b1) dense2(%w2, %b2) : ...
    // becomes
    %h = tfm.linear %x, %w1, %b1 {activation = #tfm.activation<relu>} : ...
    %y = tfm.linear %h, %w2, %b2 : ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def TfmCpuVectorize : Pass<"tfm-cpu-vectorize"> {
  let summary = "Tile linalg ops on tensors and vectorize every tile";
  let description = [{
    The CPU code generator's generic path. Every linalg op on tensors is
    tiled with `scf.for` loops so that a tile spans `vector-width` elements
    of the innermost loop and one element of every other loop, and the tile
    is vectorized with the vector dialect. Sizes that are not a multiple of
    the vector width, and dynamic sizes, are handled by masked vectors, so
    every shape gets vector code.

    An op the vectorizer rejects is left as it is for the loop lowering, with
    a remark.
  }];
  let options = [
    Option<"vectorWidthBits", "vector-width-bits", "unsigned",
           /*default=*/"512",
           "Width of the target's vector registers in bits (512 for "
           "AVX-512, 256 for AVX2)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def TfmApproximateMath : Pass<"tfm-approximate-math"> {
  let summary = "Replace transcendental math ops by polynomial approximations";
  let description = [{
    Rewrites `math.exp`, `math.erf` and `math.tanh`, scalar or vector, into
    the polynomial approximations of upstream's math dialect, so that they
    vectorize instead of becoming calls into libm (f16 and bf16 are computed
    in f32). `math.sin` and `math.cos` are left precise: the positional
    encoding needs them at large angles.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // TFM_TRANSFORMS_PASSES_TD
