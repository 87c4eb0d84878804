"""tfm.load of a decoder compiled with kv_cache=N: Model.generate gives
PyTorch's greedy tokens (gpt.generate), a KvState's prefill and step give
PyTorch's logits, and a state that would overflow its caches raises.

    generate.py WORK     (PYTHONPATH holds python/; TFM_COMPILE tfm-compile)
"""

import os
import sys

import numpy as np

import tfm
from tfm_tools import compare, gpt

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
model = gpt.build(std=0.3, seed=0)
onnx = os.path.join(work, "gpt.onnx")
gpt.export(model, onnx)
compiled = tfm.load(tfm.compile(onnx, os.path.join(work, "libgpt.so"),
                                kv_cache=48))
print("has caches:", compiled.signature.has_kv_cache)
prompt = np.random.default_rng(1).integers(0, 97, size=(2, 6), dtype=np.int64)
ref_tokens, ref_logits = gpt.generate(model, prompt, 20)
tokens = compiled.generate(prompt, 20)
print("tokens equal:", bool((tokens == ref_tokens).all()), tokens.shape)

state = compiled.start(batch=2)
logits = [state.prefill(prompt)[:, -1, :]]
for step in range(1, 20):
    logits.append(state.step(ref_tokens[:, step - 1]))
compare.check(np.stack(logits), ref_logits, label="logits")
print("positions:", state.length, "of", state.capacity)
try:
    state.prefill(np.zeros((2, 40), np.int64))
except ValueError as e:
    print("ValueError:", e)
state.reset()
print("after reset:", state.length)
# Bad arguments raise before C is called: a token count below 1 (as the
# executables' --generate), ids outside the vocabulary, ids that are not
# integers; and every use of a closed state.
for steps in (0, -3, 2.0):
    try:
        compiled.generate(prompt, steps)
    except ValueError as e:
        print("ValueError:", e)
bad = prompt.copy()
bad[1, 4] = state.vocab
for call in (lambda: state.prefill(bad),
             lambda: state.step(np.array([3, -1])),
             lambda: compiled.generate(bad, 2),
             lambda: state.step(np.array([1.0, 2.0]))):
    try:
        call()
    except ValueError as e:
        print("ValueError:", e)
print("length after the refusals:", state.length)
state.close()
for name, call in (("step", lambda: state.step(np.array([1, 2]))),
                   ("prefill", lambda: state.prefill(prompt)),
                   ("length", lambda: state.length),
                   ("capacity", lambda: state.capacity),
                   ("reset", state.reset)):
    try:
        call()
        print(name, "after close: no error")
    except ValueError as e:
        print(name, "after close: ValueError:", e)
state.close()  # twice is harmless
with compiled.start(batch=1) as scoped:
    scoped.prefill(prompt[:1])
print("closed after with:", scoped.closed)
try:
    tfm.load(tfm.compile(onnx, os.path.join(work, "libplain.so"),
                         kv_cache=48)).start(batch=0)
except ValueError as e:
    print("ValueError:", e)
# A library with its own symbol prefix exports the runtime's generation
# functions under it (gpt_kv_state_run); loaded with that prefix, it
# generates the same tokens, beside the first library in one process.
prefixed = tfm.load(tfm.compile(onnx, os.path.join(work, "libprefixed.so"),
                                kv_cache=48, symbol_prefix="gpt"),
                    prefix="gpt")
print("prefixed tokens equal:",
      bool((prefixed.generate(prompt, 5) == ref_tokens[:, :5]).all()))
print("ok")
