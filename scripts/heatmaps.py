#!/usr/bin/python3
"""Renders the attention weights a compiled model dumped as heatmaps, a grid
like d2l's show_heatmaps: one row per attention, one panel per head, keys
across and queries down.

    tfm-compile model.onnx --attention-weights -o model
    ./model -o y.npy x.npy --dump-attention weights/
    scripts/heatmaps.py weights/ -o heatmaps.png [--batch 0] [--heads H]
        [--attention attention_0 ...] [--max-heads 8]

DIR holds attention_<i>.npy, the softmax probabilities [..., queries, keys]
of each attention, and attention.txt, their locations. For weights of rank
4 ([batch, heads, Sq, Sk]) a row shows the heads of element --batch; of rank
3 ([batch * heads, Sq, Sk], PyTorch's and d2l's layout) --heads H splits the
first dimension (default: one panel per entry of it, up to --max-heads).
Needs matplotlib (Debian's python3-matplotlib, which scripts/setup.sh
installs).
"""

import argparse
import os
import sys

import numpy as np


def load(directory, names):
    """[(name, location, weights)] of DIR, in the index's order."""
    index = os.path.join(directory, "attention.txt")
    if not os.path.exists(index):
        sys.exit(f"error: no {index}: run the model with --dump-attention "
                 f"{directory} (compiled with --attention-weights)")
    entries = []
    for line in open(index):
        name, _, location = line.rstrip("\n").partition("\t")
        if names and name not in names:
            continue
        entries.append((name, location,
                        np.load(os.path.join(directory, name + ".npy"))))
    missing = set(names or []) - {name for name, _, _ in entries}
    if missing:
        sys.exit(f"error: no attention named {', '.join(sorted(missing))} "
                 f"in {index}")
    return entries


def panels(weights, batch, heads, max_heads):
    """The [panels, Sq, Sk] matrices of one row."""
    if weights.ndim == 2:
        return weights[None]
    if weights.ndim == 4:
        return weights[batch][:max_heads]
    if weights.ndim == 3 and heads:
        return weights.reshape(-1, heads, *weights.shape[1:])[batch]
    return weights.reshape(-1, *weights.shape[-2:])[:max_heads]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("-o", "--output", default="heatmaps.png")
    parser.add_argument("--batch", type=int, default=0)
    parser.add_argument("--heads", type=int)
    parser.add_argument("--max-heads", type=int, default=8)
    parser.add_argument("--attention", nargs="+", metavar="NAME")
    parser.add_argument("--cmap", default="Reds")
    args = parser.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [(name, location, panels(w, args.batch, args.heads, args.max_heads))
            for name, location, w in load(args.directory, args.attention)]
    if not rows:
        sys.exit("error: no attention weights to show")
    cols = max(len(p) for _, _, p in rows)
    fig, axes = plt.subplots(len(rows), cols, squeeze=False,
                             figsize=(2.2 * cols + 1, 2.7 * len(rows)),
                             sharex=False, sharey=False)
    image = None
    for r, (name, location, matrices) in enumerate(rows):
        for c in range(cols):
            ax = axes[r][c]
            if c >= len(matrices):
                ax.axis("off")
                continue
            image = ax.imshow(matrices[c], cmap=args.cmap, vmin=0, vmax=1)
            ax.set_title(f"head {c}", fontsize=8)
            if r == len(rows) - 1:
                ax.set_xlabel("Keys")
            if c == 0:
                ax.set_ylabel("Queries")
                ax.text(0, 1.22, f"{name}: {location}", fontsize=8,
                        transform=ax.transAxes)
            ax.tick_params(labelsize=6)
    fig.colorbar(image, ax=axes, shrink=0.6)
    fig.savefig(args.output, dpi=110, bbox_inches="tight")
    print(f"wrote {args.output}: {len(rows)} attention(s), up to {cols} "
          f"head(s) each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
