// What bench/ort's drivers (run.js, generate.js) share: the .npy files they
// exchange with the benchmarks (C order; float32, float64, int32, int64,
// bool, uint8) and the ONNX Runtime session they time.
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

function milliseconds(start) {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/// A CPU session of `model` with onnxruntime-node from `ortDir`, as every
/// benchmark runs it: graphOptimizationLevel 'all', intraOpNumThreads
/// `threads`, interOpNumThreads 1, sequential. Returns {ort, session,
/// loadMs}.
async function createSession(ortDir, model, threads) {
  const ort = require(require.resolve('onnxruntime-node',
                                      {paths: [path.resolve(ortDir)]}));
  const start = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  return {ort, session, loadMs: milliseconds(start)};
}

module.exports = {readNpy, writeNpy, milliseconds, createSession};
