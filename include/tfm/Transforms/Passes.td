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

#endif // TFM_TRANSFORMS_PASSES_TD
