"""Checks the layout of a tensor-parallel binary's weights: the table
`tfm_weights_ranks` (lib/Target/Native/WeightsObject.h) at the start of the
section `tfm_weights`, then the weights every rank reads, then each rank's
on whole pages of their own.

    rankweights.py BINARY RANKS

prints, per rank, `rank R: N weights, B bytes on pages P0..P1` and
`shared: N weights`, and exits with 1 when the table says another number of
ranks, a rank's range is empty, not page-aligned, overlaps another or lies
outside the section, or a weight straddles two ranges.
"""

import struct
import subprocess
import sys

PAGE = 4096


def sections(path):
    """{name: (address, file offset, size)} from the ELF section headers."""
    data = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    result = {}
    for name, _, _, addr, offset, size in headers:
        end = data.index(b"\0", names + name)
        result[data[names + name:end].decode()] = (addr, offset, size)
    return data, result


def main():
    path, ranks = sys.argv[1], int(sys.argv[2])
    data, secs = sections(path)
    if "tfm_weights" not in secs:
        print("error: no section tfm_weights")
        return 1
    addr, offset, size = secs["tfm_weights"]
    symbols = {}
    for line in subprocess.run(["nm", "-S", path], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 4:
            symbols[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    if "tfm_weights_ranks" not in symbols:
        print("error: no table of the ranks' weights (tfm_weights_ranks)")
        return 1
    table_at = symbols["tfm_weights_ranks"][0]
    if table_at != addr:
        print("error: the table is not at the section's start")
        return 1
    count, shared_end = struct.unpack_from("<QQ", data, offset)
    pairs = struct.unpack_from(f"<{2 * count}Q", data, offset + 16)
    if count != ranks:
        print(f"error: the table has {count} ranks, expected {ranks}")
        return 1
    ranges = [(pairs[2 * r], pairs[2 * r + 1]) for r in range(count)]
    previous = shared_end
    for r, (begin, end) in enumerate(ranges):
        if (addr + begin) % PAGE or begin < previous or end <= begin or \
                end > size:
            print(f"error: rank {r}'s range [{begin}, {end}) after "
                  f"{previous}, section of {size} bytes")
            return 1
        previous = end
    weights = [(at - addr, at - addr + n) for name, (at, n) in symbols.items()
               if addr <= at < addr + size and name != "tfm_weights_ranks"
               and not name.startswith(("__start_", "__stop_"))]
    for begin, end in weights:
        inside = [r for r, (b, e) in enumerate(ranges) if b <= begin < e]
        if inside and end > ranges[inside[0]][1]:
            print(f"error: a weight at [{begin}, {end}) leaves its rank's range")
            return 1
    print(f"shared: {sum(end <= shared_end for _, end in weights)} weights")
    for r, (b, e) in enumerate(ranges):
        n = sum(b <= w < e for w, _ in weights)
        print(f"rank {r}: {n} weights, {e - b} bytes on pages "
              f"{(addr + b) // PAGE}..{(addr + e - 1) // PAGE}")
        if n == 0:
            print(f"error: rank {r} has no weights of its own")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
