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

const fs = require('fs');
const path = require('path');

// ===--- .npy files -----------------------------------------------------=== //

// dtype string of a .npy header -> ONNX Runtime tensor type and typed array.
const NPY_TYPES = {
  '<f4': ['float32', Float32Array],
  '<f8': ['float64', Float64Array],
  '<i4': ['int32', Int32Array],
  '<i8': ['int64', BigInt64Array],
  '|b1': ['bool', Uint8Array],
  '|u1': ['uint8', Uint8Array],
};
const TYPE_DESCR = {};
for (const [descr, [type]] of Object.entries(NPY_TYPES)) {
  if (!(type in TYPE_DESCR)) TYPE_DESCR[type] = descr;
}

/// Reads a C-ordered .npy file; returns {type, dims, data}.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.length < 10 || bytes.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(`${file}: not a .npy file`);
  }
  const major = bytes[6];
  const headerLen =
      major === 1 ? bytes.readUInt16LE(8) : bytes.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = bytes.toString('latin1', start, start + headerLen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) {
    throw new Error(`${file}: cannot parse the header ${header}`);
  }
  if (fortran[1] === 'True') throw new Error(`${file}: Fortran order`);
  if (!(descr[1] in NPY_TYPES)) {
    throw new Error(`${file}: unsupported dtype ${descr[1]}`);
  }
  const [type, TypedArray] = NPY_TYPES[descr[1]];
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s)
      .map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = start + headerLen;
  const nbytes = count * TypedArray.BYTES_PER_ELEMENT;
  if (bytes.length < offset + nbytes) throw new Error(`${file}: truncated`);
  // A copy into a fresh, aligned buffer.
  const data = new TypedArray(count);
  new Uint8Array(data.buffer).set(bytes.subarray(offset, offset + nbytes));
  return {type, dims, data};
}

/// Writes a tensor's data as a version 1.0 .npy file.
function writeNpy(file, type, dims, data) {
  if (!(type in TYPE_DESCR)) throw new Error(`cannot write ${type} to .npy`);
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${TYPE_DESCR[type]}', 'fortran_order': False, ` +
      `'shape': ${shape}, }`;
  // Magic (6) + version (2) + length (2) + header + '\n', a multiple of 64.
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'),
                                        body]));
}

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

function milliseconds(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = require(require.resolve('onnxruntime-node',
                                      {paths: [path.resolve(args.ort)]}));
  const loadStart = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const loadMs = milliseconds(loadStart);
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
