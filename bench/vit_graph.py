#!/usr/bin/env python3
"""torchvision's VisionTransformer as a tfm graph, for any configuration.

    vit_graph.py [--image 224] [--patch 16] [--hidden 192] [--heads 3]
                 [--layers 12] [--mlp 768] [--classes 1000] [-o FILE]

prints (or writes) the graph of torchvision.models.VisionTransformer at
inference, batch 1, float32, modelled on examples/vit.mlir but following
torchvision exactly:

    x = conv_proj(image)                     tfm.patch_embed, [1, N, D]
    x = cat(class_token, x)                  tfm.prepend_class_token
    x = x + encoder.pos_embedding            arith.addf ([1, N + 1, D])
    for i in range(layers):                  encoder.layers.encoder_layer_{i}
        x = x + self_attention(ln_1(x))      LayerNorm eps 1e-6; MHA
        x = x + mlp(ln_2(x))                 Linear, exact GELU, Linear
    x = encoder.ln(x)[:, 0]                  eps 1e-6, then the class token
    logits = heads.head(x)                   tfm.linear, [1, classes]

Dropout is 0 in torchvision's ViT and is left out. Every parameter is an
argument of @main marked {tfm.weight = NAME} with NAME its state_dict name,
except nn.MultiheadAttention's packed input projection, which the graph
takes as three matrices and three biases:

    ...self_attention.in_proj_weight.{q,k,v}   rows [0:D], [D:2D], [2D:3D]
    ...self_attention.in_proj_bias.{q,k,v}

`weights_from_state_dict` writes exactly those tensors from a torchvision
state_dict (as NumPy arrays).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "python"))
from tfm_tools.graph import Module, enum, tensor  # noqa: E402

VIT_TI_16 = dict(patch=16, hidden=192, heads=3, layers=12, mlp=768)
VIT_B_16 = dict(patch=16, hidden=768, heads=12, layers=12, mlp=3072)


def layer_weights(i, hidden, mlp):
    """(argument suffix, state_dict name, shape) of encoder_layer_i's
    parameters, in @encoder_block's argument order."""
    p = f"encoder.layers.encoder_layer_{i}."
    a = p + "self_attention."
    d, f = hidden, mlp
    return [
        ("ln1_g", p + "ln_1.weight", (d,)),
        ("ln1_b", p + "ln_1.bias", (d,)),
        ("w_q", a + "in_proj_weight.q", (d, d)),
        ("w_k", a + "in_proj_weight.k", (d, d)),
        ("w_v", a + "in_proj_weight.v", (d, d)),
        ("w_o", a + "out_proj.weight", (d, d)),
        ("b_q", a + "in_proj_bias.q", (d,)),
        ("b_k", a + "in_proj_bias.k", (d,)),
        ("b_v", a + "in_proj_bias.v", (d,)),
        ("b_o", a + "out_proj.bias", (d,)),
        ("ln2_g", p + "ln_2.weight", (d,)),
        ("ln2_b", p + "ln_2.bias", (d,)),
        ("mlp_w1", p + "mlp.0.weight", (f, d)),
        ("mlp_b1", p + "mlp.0.bias", (f,)),
        ("mlp_w2", p + "mlp.3.weight", (d, f)),
        ("mlp_b2", p + "mlp.3.bias", (d,)),
    ]


def graph_weights(image=224, patch=16, hidden=192, heads=3, layers=12,
                  mlp=768, classes=1000, channels=3):
    """(argument name, state_dict name, shape) of every weight argument of
    @main, in order."""
    tokens = (image // patch) ** 2 + 1
    d = hidden
    out = [
        ("class_token", "class_token", (1, 1, d)),
        ("patch_w", "conv_proj.weight", (d, channels, patch, patch)),
        ("patch_b", "conv_proj.bias", (d,)),
        ("pos_embedding", "encoder.pos_embedding", (1, tokens, d)),
    ]
    for i in range(layers):
        out += [(f"l{i}_{suffix}", name, shape)
                for suffix, name, shape in layer_weights(i, hidden, mlp)]
    out += [
        ("ln_g", "encoder.ln.weight", (d,)),
        ("ln_b", "encoder.ln.bias", (d,)),
        ("head_w", "heads.head.weight", (classes, d)),
        ("head_b", "heads.head.bias", (classes,)),
    ]
    return out


def encoder_block(fn, hidden, heads, mlp, tokens, eps=1e-6):
    """Writes torchvision's EncoderBlock into the Function FN, whose
    arguments are x and the parameters of layer_weights."""
    x_t = tensor((1, tokens, hidden))
    x = fn.arg("x", x_t)
    w = {suffix: fn.arg(suffix, tensor(shape))
         for suffix, _, shape in layer_weights(0, hidden, mlp)}
    n1 = fn.op("tfm.layer_norm", [x, w["ln1_g"], w["ln1_b"]], x_t,
               attrs={"epsilon": eps}, name="n1")
    attn = fn.op("tfm.multi_head_attention", [n1, n1, n1], x_t,
                 groups={"weights": [w[n] for n in ("w_q", "w_k", "w_v",
                                                    "w_o")],
                         "biases": [w[n] for n in ("b_q", "b_k", "b_v",
                                                   "b_o")]},
                 attrs={"num_heads": heads}, name="attn")
    y = fn.op("arith.addf", [x, attn], same_type=True, name="y")
    n2 = fn.op("tfm.layer_norm", [y, w["ln2_g"], w["ln2_b"]], x_t,
               attrs={"epsilon": eps}, name="n2")
    mlp_out = fn.op("tfm.ffn", [n2], x_t,
                    groups={"dense1": [w["mlp_w1"], w["mlp_b1"]],
                            "dense2": [w["mlp_w2"], w["mlp_b2"]]},
                    attrs={"activation": enum("tfm.activation", "gelu")},
                    name="mlp")
    z = fn.op("arith.addf", [y, mlp_out], same_type=True, name="z")
    fn.ret(z)


def vit_graph(image=224, patch=16, hidden=192, heads=3, layers=12, mlp=768,
              classes=1000, channels=3, eps=1e-6):
    """The graph's text."""
    if image % patch:
        raise ValueError("the image size must be a multiple of the patch")
    if hidden % heads:
        raise ValueError("the heads must divide the hidden size")
    n = (image // patch) ** 2
    s, d, f = n + 1, hidden, mlp
    x_t = tensor((1, s, d))
    module = Module(comment=(
        f"torchvision VisionTransformer(image_size={image}, "
        f"patch_size={patch}, num_layers={layers}, num_heads={heads},\n"
        f"  hidden_dim={d}, mlp_dim={f}, num_classes={classes}) at "
        f"inference, batch 1;\n"
        "generated by bench/vit_graph.py."))
    main = module.func("main")
    block = module.func("encoder_block", private=True, comment=(
        "torchvision's EncoderBlock: x + attn(ln_1(x)), then "
        "x + mlp(ln_2(x))."))
    encoder_block(block, d, heads, f, s, eps)

    pixels = main.input("image", tensor((1, channels, image, image)))
    w = {arg: main.weight(arg, tensor(shape), name)
         for arg, name, shape in graph_weights(image, patch, hidden, heads,
                                               layers, mlp, classes,
                                               channels)}
    patches = main.op("tfm.patch_embed",
                      [pixels, w["patch_w"], w["patch_b"]],
                      tensor((1, n, d)), name="patches")
    tokens = main.op("tfm.prepend_class_token",
                     [patches, w["class_token"]], x_t, name="tokens")
    x = main.op("arith.addf", [tokens, w["pos_embedding"]], same_type=True,
                name="x0")
    for i in range(layers):
        x = main.call(block, [x] + [w[f"l{i}_{suffix}"] for suffix, _, _
                                    in layer_weights(i, d, f)],
                      name=f"x{i + 1}")
    norm = main.op("tfm.layer_norm", [x, w["ln_g"], w["ln_b"]], x_t,
                   attrs={"epsilon": eps}, name="norm")
    cls = main.extract_slice(norm, [0, 0, 0], [1, 1, d], name="cls")
    cls_flat = main.collapse_shape(cls, [[0, 1], [2]], name="cls_flat")
    logits = main.op("tfm.linear", [cls_flat, w["head_w"], w["head_b"]],
                     tensor((1, classes)), name="logits")
    main.ret(logits, names="logits")
    return module.text()


def weights_from_state_dict(state_dict, **config):
    """The tensors the graph of CONFIG binds, from a torchvision
    VisionTransformer state_dict (values: torch tensors or arrays), as
    float32 NumPy arrays keyed by the graph's weight names."""
    import numpy as np

    def array(name):
        value = state_dict[name]
        if hasattr(value, "detach"):
            value = value.detach().cpu().numpy()
        return np.ascontiguousarray(value, dtype=np.float32)

    out = {}
    for _, name, shape in graph_weights(**config):
        base, _, part = name.rpartition(".")
        if base.endswith(("in_proj_weight", "in_proj_bias")):
            packed = array(base)
            d = packed.shape[0] // 3
            value = packed["qkv".index(part) * d:("qkv".index(part) + 1) * d]
        else:
            value = array(name)
        if tuple(value.shape) != tuple(shape):
            raise ValueError(f"{name}: expected {shape}, found "
                             f"{tuple(value.shape)}")
        out[name] = np.ascontiguousarray(value)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", type=int, default=224)
    parser.add_argument("--patch", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=192)
    parser.add_argument("--heads", type=int, default=3)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--mlp", type=int, default=768)
    parser.add_argument("--classes", type=int, default=1000)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    text = vit_graph(args.image, args.patch, args.hidden, args.heads,
                     args.layers, args.mlp, args.classes)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
