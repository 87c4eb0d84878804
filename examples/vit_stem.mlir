// The stem of the ViT in vit.mlir for a batch of 4 images: what changes
// when the batch is more than 1. The class token and the position embedding
// are parameters of one token and one sequence ([1, 1, 48], [1, 17, 48]),
// shared by every image:
//
//   - tfm.prepend_class_token takes the [1, 1, 48] token as it is and
//     prepends it to each image's patches;
//   - an elementwise op wants equal shapes, so the position embedding is
//     broadcast over the batch first: collapsed to [17, 48], then
//     linalg.broadcast along dimension 0 (numpy's broadcasting, written out,
//     as the ONNX importer writes it for an exported model).
//
// Inputs and the result are named (tfm.name), so that the executable's
// --help and messages, and a library's C parameters, say image, cls_token,
// pos_embedding ... and tokens. Run it with:
//
//   build/bin/tfm-compile examples/vit_stem.mlir -o vit_stem
//   ./vit_stem image.npy cls.npy pos.npy w.npy b.npy -o tokens.npy
func.func @main(
    %image: tensor<4x3x32x32xf32> {tfm.name = "image"},
    %cls_token: tensor<1x1x48xf32> {tfm.name = "cls_token"},
    %pos_embedding: tensor<1x17x48xf32> {tfm.name = "pos_embedding"},
    %patch_w: tensor<48x3x8x8xf32> {tfm.name = "patch_w"},
    %patch_b: tensor<48xf32> {tfm.name = "patch_b"})
    -> (tensor<4x17x48xf32> {tfm.name = "tokens"}) {
  %patches = tfm.patch_embed %image, %patch_w, %patch_b
      : (tensor<4x3x32x32xf32>, tensor<48x3x8x8xf32>, tensor<48xf32>)
      -> tensor<4x16x48xf32>
  %tokens = tfm.prepend_class_token %patches, %cls_token
      : (tensor<4x16x48xf32>, tensor<1x1x48xf32>) -> tensor<4x17x48xf32>
  // [1, 17, 48] -> [17, 48] -> [4, 17, 48], one copy per image.
  %pos = tensor.collapse_shape %pos_embedding [[0, 1], [2]]
      : tensor<1x17x48xf32> into tensor<17x48xf32>
  %init = tensor.empty() : tensor<4x17x48xf32>
  %pos_batch = linalg.broadcast ins(%pos : tensor<17x48xf32>)
      outs(%init : tensor<4x17x48xf32>) dimensions = [0]
  %x = arith.addf %tokens, %pos_batch : tensor<4x17x48xf32>
  return %x : tensor<4x17x48xf32>
}
