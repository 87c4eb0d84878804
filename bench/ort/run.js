#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime's CPU execution provider and times it:
// the ONNX Runtime side of bench/ort.py.
//
//   node bench/ort/run.js --ort DIR --model M.onnx [--threads T]
//        [--warmup W] [--runs N] [-o out0.npy ...] in0.npy [in1.npy ...]
//
// DIR is where `npm ci --ignore-scripts` installed bench/ort/package.json
// (onnxruntime-node, whose native binding and libonnxruntime ship inside the
// package). The session runs with graphOptimizationLevel 'all',
// intraOpNumThreads T, interOpNumThreads 1 and sequential execution. The
// inputs are .npy files (float32, int64 or bool), fed to the model's inputs
// in order; after W warm-up runs (default 1) and N timed runs (default 10)
// each output goes to the file of one -o, in the model's output order. The
// last line of stdout is JSON:
//
//   {"load_ms": L, "times_ms": [t1, ..., tN], "inputs": [NAMES],
//    "outputs": [NAMES]}
//
// where times_ms are the wall times of each `await session.run(feeds)`.
'use strict';

const {readNpy, writeNpy, milliseconds, createSession} =
    require('./common.js');

// ===--- Command line ---------------------------------------------------=== //

function parseArgs(argv) {
  const args = {threads: 1, warmup: 1, runs: 10, outputs: [], inputs: []};
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--ort') args.ort = value();
    else if (a === '--model') args.model = value();
    else if (a === '--threads') args.threads = Number(value());
    else if (a === '--warmup') args.warmup = Number(value());
    else if (a === '--runs') args.runs = Number(value());
    else if (a === '-o') args.outputs.push(value());
    else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else args.inputs.push(a);
  }
  if (!args.ort || !args.model) throw new Error('need --ort DIR and --model');
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const {ort, session, loadMs} =
      await createSession(args.ort, args.model, args.threads);
  if (args.inputs.length !== session.inputNames.length) {
    throw new Error(`the model has ${session.inputNames.length} inputs ` +
                    `(${session.inputNames.join(', ')}), given ` +
                    `${args.inputs.length}`);
  }
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const {type, dims, data} = readNpy(args.inputs[i]);
    feeds[name] = new ort.Tensor(type, data, dims);
  });

  let results;
  for (let i = 0; i < args.warmup; ++i) results = await session.run(feeds);
  const times = [];
  for (let i = 0; i < args.runs; ++i) {
    const start = process.hrtime.bigint();
    results = await session.run(feeds);
    times.push(milliseconds(start));
  }
  if (results === undefined) results = await session.run(feeds);
  args.outputs.forEach((file, i) => {
    const t = results[session.outputNames[i]];
    writeNpy(file, t.type, t.dims, t.data);
  });
  console.log(JSON.stringify({load_ms: loadMs, times_ms: times,
                              inputs: session.inputNames,
                              outputs: session.outputNames}));
}

main().catch((e) => {
  console.error(`error: ${e.message || e}`);
  process.exit(1);
});
