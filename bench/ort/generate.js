#!/usr/bin/env node
// Greedy generation with ONNX Runtime on a decoder exported "with past"
// (python/tfm_tools/gpt.py): the ONNX Runtime side of bench/generate.py.
//
//   node bench/ort/generate.js --ort DIR --model M.onnx --prompt P.npy
//        --steps N [--threads T] [-o tokens.npy]
//
// The session is bench/ort/run.js's (graphOptimizationLevel 'all',
// intraOpNumThreads T, interOpNumThreads 1, sequential). The prompt
// ([batch, S] int64) runs in one call with empty pasts ([batch, heads, 0,
// head_dim]); then N - 1 calls of one token per sequence, each feeding the
// previous call's presents back as the pasts, as a user of the model with
// past runs it step by step. The last line of stdout is JSON:
//
//   {"load_ms": L, "prefill_ms": P, "step_ms": [t1, ..., t(N-1)]}
//
// and -o writes the N greedy tokens of each sequence ([batch, N] int64).
'use strict';

const {readNpy, writeNpy, milliseconds, createSession} =
    require('./common.js');

function parseArgs(argv) {
  const args = {threads: 1};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--ort') args.ort = value();
    else if (a === '--model') args.model = value();
    else if (a === '--prompt') args.prompt = value();
    else if (a === '--steps') args.steps = Number(value());
    else if (a === '--threads') args.threads = Number(value());
    else if (a === '-o') args.output = value();
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.ort || !args.model || !args.prompt || !(args.steps >= 1)) {
    throw new Error('need --ort DIR, --model, --prompt and --steps N');
  }
  return args;
}

/// The most likely token of each sequence at position `seq - 1`.
function argmaxLast(logits, batch, seq) {
  const vocab = logits.dims[2];
  const next = new BigInt64Array(batch);
  for (let b = 0; b < batch; ++b) {
    const base = (b * seq + seq - 1) * vocab;
    let best = 0;
    for (let i = 1; i < vocab; ++i) {
      if (logits.data[base + i] > logits.data[base + best]) best = i;
    }
    next[b] = BigInt(best);
  }
  return next;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const {ort, session, loadMs} =
      await createSession(args.ort, args.model, args.threads);
  const prompt = readNpy(args.prompt);
  const [batch, length] = prompt.dims;

  // The pasts' shapes from the model: [batch, heads, past, head_dim].
  const pastNames = session.inputNames.slice(1);
  const meta = session.inputMetadata;
  const feeds = {[session.inputNames[0]]:
                     new ort.Tensor('int64', prompt.data, prompt.dims)};
  pastNames.forEach((name, i) => {
    const shape = (meta && meta[i + 1] && meta[i + 1].shape) || [];
    const heads = Number(shape[1]), headDim = Number(shape[3]);
    if (!(heads > 0 && headDim > 0)) {
      throw new Error(`cannot read the shape of ${name}`);
    }
    feeds[name] = new ort.Tensor('float32', new Float32Array(0),
                                 [batch, heads, 0, headDim]);
  });

  const tokens = new BigInt64Array(batch * args.steps);
  const take = (step, next) => {
    for (let b = 0; b < batch; ++b) tokens[b * args.steps + step] = next[b];
  };
  let start = process.hrtime.bigint();
  let results = await session.run(feeds);
  const prefillMs = milliseconds(start);
  let next = argmaxLast(results[session.outputNames[0]], batch, length);
  take(0, next);
  const stepMs = [];
  for (let step = 1; step < args.steps; ++step) {
    feeds[session.inputNames[0]] = new ort.Tensor('int64', next, [batch, 1]);
    pastNames.forEach((name, i) => {
      feeds[name] = results[session.outputNames[i + 1]];
    });
    start = process.hrtime.bigint();
    results = await session.run(feeds);
    stepMs.push(milliseconds(start));
    next = argmaxLast(results[session.outputNames[0]], batch, 1);
    take(step, next);
  }
  if (args.output) {
    writeNpy(args.output, 'int64', [batch, args.steps], tokens);
  }
  console.log(JSON.stringify({load_ms: loadMs, prefill_ms: prefillMs,
                              step_ms: stepMs}));
}

main().catch((e) => {
  console.error(`error: ${e.message || e}`);
  process.exit(1);
});
