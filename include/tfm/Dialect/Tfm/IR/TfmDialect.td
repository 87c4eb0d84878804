//===- TfmDialect.td - The tfm dialect ---------------------*- tablegen -*-===//
//
// The tfm dialect models the building blocks of Transformer and Vision
// Transformer graphs at the level of d2l's chapter 11: attention scoring and
// pooling, multi-head attention, positional encoding, position-wise FFN,
// add & norm and the ViT front end.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_DIALECT_TFM_IR_TFMDIALECT_TD
#define TFM_DIALECT_TFM_IR_TFMDIALECT_TD

include "mlir/IR/OpBase.td"

def Tfm_Dialect : Dialect {
  let name = "tfm";
  let cppNamespace = "::mlir::tfm";
  let summary = "Transformer and ViT building blocks";
  let description = [{
    The `tfm` dialect holds the operations of a Transformer or Vision
    Transformer graph at the granularity in which such models are written:
    scaled dot-product attention, masked softmax, multi-head split and merge,
    multi-head attention, positional encoding, position-wise FFN, add & norm,
    LayerNorm, GELU, embeddings and ViT's patch embedding and class token.

    All operations work on ranked tensors of `f32`, `f16` or `bf16` (integer
    tensors for token ids and `valid_lens`). Batch and sequence dimensions may
    be dynamic. Weights follow PyTorch's layouts (`nn.Linear` weights are
    `[out_features, in_features]`) so that parameters import without
    transposition. Elementwise math, reshapes and transposes are left to the
    upstream `arith`, `math`, `tensor` and `linalg` dialects, and graphs may
    mix them freely with `tfm` operations.

    Dropout rates are carried for fidelity to the source model; every
    operation in this dialect has inference semantics, so dropout is the
    identity.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 0;
}

/// Base class of every tfm operation.
class Tfm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfm_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// Element types that tfm's floating-point operations accept.
def Tfm_FloatElement : AnyTypeOf<[F32, F16, BF16]>;

/// A ranked tensor of f32, f16 or bf16.
def Tfm_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;

/// A ranked tensor of signless 32- or 64-bit integers: token ids and lengths.
def Tfm_IntTensor : RankedTensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// Attribute constraints
//===----------------------------------------------------------------------===//

/// An attribute with a default, which the op reference shows: ODS's
/// DefaultValuedAttr keeps the summary of the attribute it wraps.
class Tfm_Default<Attr attr, string value, string shown = value>
    : DefaultValuedAttr<attr, value> {
  let summary = attr.summary # " (default: " # shown # ")";
}
class Tfm_DefaultF64<string value> : Tfm_Default<F64Attr, value>;

#endif // TFM_DIALECT_TFM_IR_TFMDIALECT_TD
