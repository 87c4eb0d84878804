//===- TfmAttrs.td - tfm attributes and enums --------------*- tablegen -*-===//

#ifndef TFM_DIALECT_TFM_IR_TFMATTRS_TD
#define TFM_DIALECT_TFM_IR_TFMATTRS_TD

include "tfm/Dialect/Tfm/IR/TfmDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class Tfm_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Tfm_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_Activation : I32EnumAttr<"Activation",
    "activation applied after a linear layer", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"relu", 1>,
      I32EnumAttrCase<"gelu", 2>,
      I32EnumAttrCase<"gelu_tanh", 3>,
    ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_ActivationAttr : Tfm_EnumAttr<Tfm_Activation, "activation">;

def Tfm_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "how GELU is evaluated (PyTorch's `approximate`)", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>,
    ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_GeluApproximationAttr
    : Tfm_EnumAttr<Tfm_GeluApproximation, "gelu_approximation">;

def Tfm_PoolingKernel : I32EnumAttr<"PoolingKernel",
    "similarity kernel of Nadaraya-Watson attention pooling", [
      I32EnumAttrCase<"gaussian", 0>,
      I32EnumAttrCase<"boxcar", 1>,
      I32EnumAttrCase<"constant", 2>,
      I32EnumAttrCase<"epanechikov", 3>,
    ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_PoolingKernelAttr : Tfm_EnumAttr<Tfm_PoolingKernel, "kernel">;

#endif // TFM_DIALECT_TFM_IR_TFMATTRS_TD
