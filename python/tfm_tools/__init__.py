"""What tfm's tests and benchmarks share, in Python (NumPy only).

    graph        writes tfm graphs: func.func text with typed tensors,
                 `tfm.name`/`tfm.weight` arguments and the ops' syntax
    reference    the NumPy references of every tfm op and example model,
                 written from the math in float64
    safetensors  reads and writes .safetensors weight files
    runner       runs tfm-compile and the executables it makes; .npy files
    compare      the maximum relative error and its tolerances

Scripts find the package from their own location, with no install step:

    sys.path.insert(0, os.path.join(<repository root>, "python"))
    from tfm_tools import compare, graph, reference

See README.md next to this file.
"""
