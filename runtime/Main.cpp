//===- Main.cpp - main() of the executables tfm-compile links -------------===//
//
//   ./model [--bench N] [--threads T] [--profile] -o out0.npy
//           [-o out1.npy ...] in0.npy [in1.npy ...]
//
// Reads one .npy per model input, checks it against the model's signature,
// runs the model and writes one .npy per output. With --bench N it also runs
// N timed iterations after a warm-up and prints the min and median latency.
// A model compiled with --tensor-parallel=N runs under `mpirun -np N`: rank
// 0 reads the inputs and sends them to the others, every rank computes its
// share, and rank 0 writes the outputs and prints (Distributed.h).
// With --profile (for models compiled with tfm-compile --profile) it prints
// the time of each kernel over those runs (or over one run after the
// warm-up, without --bench), slowest first.
// Bad arguments and bad inputs exit with code 2, with a message that names
// the input and says what was expected and what was found.
//
//===----------------------------------------------------------------------===//

#include "Cli.h"
#include "Distributed.h"
#include "Npy.h"
#include "Profile.h"
#include "Signature.h"

#include <algorithm>
#include <chrono>
#include <malloc.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

using namespace tfm::runtime;

namespace {

void printUsage(const char *argv0, const Signature &signature) {
  std::fprintf(stderr,
               "usage: %s [--bench N] [--threads T] [--profile] "
               "[--dump-attention DIR] -o OUT.npy ... "
               "IN.npy ...\n"
               "inputs:\n",
               argv0);
  for (const TensorSpec &in : signature.inputs)
    std::fprintf(stderr, "  %s: %s %s\n", in.name.c_str(),
                 dtypeName(in.dtype), signature.shapeText(in).c_str());
  std::fprintf(stderr, "outputs:\n");
  for (const TensorSpec &out : signature.outputs)
    if (out.attention.empty())
      std::fprintf(stderr, "  %s: %s %s\n", out.name.c_str(),
                   dtypeName(out.dtype), signature.shapeText(out).c_str());
  if (signature.numResults() < signature.outputs.size()) {
    std::fprintf(stderr, "attention weights (--dump-attention DIR writes "
                         "them as DIR/<name>.npy):\n");
    for (const TensorSpec &out : signature.outputs)
      if (!out.attention.empty())
        std::fprintf(stderr, "  %s: %s %s, at %s\n", out.name.c_str(),
                     dtypeName(out.dtype), signature.shapeText(out).c_str(),
                     out.attention.c_str());
  }
  if (!signature.dimNames.empty())
    std::fprintf(stderr, "sizes named in the shapes are dynamic: each is "
                         "taken from the inputs that have it\n");
  if (std::any_of(signature.inputs.begin(), signature.inputs.end(),
                  [](const TensorSpec &in) {
                    return in.role == TensorSpec::Role::KvCache;
                  }))
    std::fprintf(stderr,
                 "the model has key/value caches; to generate tokens:\n"
                 "  %s --generate N --prompt IDS.npy -o TOKENS.npy "
                 "[--logits LOGITS.npy]\n"
                 "     [--temperature T [--top-k K] [--seed S]] "
                 "[--threads T]\n",
                 argv0);
}

/// Where a dynamic size got its value: "input 0 (x) dimension 1".
struct Binding {
  int64_t value = -1;
  std::string where;
};

/// Checks `array`, read for input `index`, against `spec`, and binds the
/// dynamic sizes that its shape holds; fails with a message that names the
/// input, the dimension and what was expected.
void bindInput(const Signature &signature, size_t index, const TensorSpec &spec,
               const Array &array, const std::string &path,
               std::vector<Binding> &bindings) {
  std::string what = "input " + std::to_string(index) + " (" + spec.name + ")";
  auto mismatch = [&](const std::string &detail) {
    fail(kBadInput, what + ": expected " + dtypeName(spec.dtype) + " " +
                        signature.shapeText(spec) + ", found " +
                        dtypeName(array.dtype) + " " +
                        shapeToString(array.shape) + " in '" + path + "'" +
                        detail);
  };
  if (array.dtype != spec.dtype || array.shape.size() != spec.shape.size())
    mismatch("");
  for (size_t d = 0; d < spec.shape.size(); ++d) {
    int64_t symbol = TensorSpec::getSymbol(spec.shape[d]);
    int64_t size = array.shape[d];
    if (symbol < 0) {
      if (size != spec.shape[d])
        mismatch("");
      continue;
    }
    const std::string &name = signature.dimNames[symbol];
    std::string here = what + " dimension " + std::to_string(d);
    if (size == 0)
      mismatch(": " + name + " (" + here + ") is 0; dynamic sizes must be "
               "at least 1");
    if (int64_t bound = signature.dimBounds[symbol]; bound && size > bound)
      mismatch(": " + name + " (" + here + ") is " + std::to_string(size) +
               ", above the bound of " + std::to_string(bound) +
               " the model was compiled with (--max-size=" + name + "=" +
               std::to_string(bound) + ")");
    Binding &binding = bindings[symbol];
    if (binding.value < 0) {
      binding = {size, here};
    } else if (binding.value != size) {
      mismatch(": " + name + " is " + std::to_string(size) + " here (" +
               here + ") but " + std::to_string(binding.value) + " in " +
               binding.where + ", which the model requires to be equal");
    }
  }
}

/// Parses a positive integer option value or fails.
/// Allocates output `index`, whose shape is known, zeroed. Its size in
/// bytes is a product of sizes that the inputs gave: checked, so that it
/// cannot wrap around into a small buffer the model then overruns.
void allocateOutput(size_t index, const TensorSpec &spec, Array &array) {
  std::string what =
      "output " + std::to_string(index) + " (" + spec.name + ")";
  uint64_t bytes = dtypeSize(spec.dtype);
  for (int64_t dim : array.shape)
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes) ||
        bytes > static_cast<uint64_t>(PTRDIFF_MAX))
      fail(kBadInput, what + " of shape " + shapeToString(array.shape) +
                          " has a size in bytes that does not fit in 63 bits");
  try {
    array.data.assign(bytes, 0);
  } catch (const std::bad_alloc &) {
    fail(1, "out of memory: cannot allocate " + std::to_string(bytes) +
                " bytes for " + what + " of shape " +
                shapeToString(array.shape));
  }
}

} // namespace

// --generate, for models compiled with --kv-cache (GenerateMain.cpp), as
// process `rank` of a tensor-parallel run (0 in one process).
int tfmGenerateMain(int argc, char **argv, int rank);

extern "C" const char *tfmGpuUnavailable() __attribute__((weak));
// The kernels' table of a model compiled with tfm-compile --profile.
extern "C" const char tfm_profile_kernels[] __attribute__((weak));

int main(int argc, char **argv) {
  // Compiled models allocate their intermediate buffers on every call. Keep
  // freed memory in the heap (no mmap for buffers up to 32 MiB, no trimming)
  // so that later calls reuse pages instead of faulting fresh ones in.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  const int rank = startDistributed(&argc, &argv);
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--generate") == 0)
      return tfmGenerateMain(argc, argv, rank);
  Signature signature;
  std::string error;
  if (!parseSignature(tfm_signature, signature, error))
    fail(1, error);

  int benchRuns = 0;
  bool profile = false;
  std::string dumpAttention;
  std::vector<std::string> inputPaths, outputPaths;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      printUsage(argv[0], signature);
      return 0;
    }
    if (arg == "--bench") {
      benchRuns = parseInteger("--bench", i + 1 < argc ? argv[++i] : nullptr,
                               1, 1000000000);
    } else if (arg == "--threads") {
      setThreads(i + 1 < argc ? argv[++i] : nullptr);
    } else if (arg == "--profile") {
      if (!tfm_profile_kernels)
        fail(kBadInput, "--profile needs a model compiled with "
                        "tfm-compile --profile");
      profile = true;
    } else if (arg == "--dump-attention") {
      if (i + 1 >= argc)
        fail(kBadInput, "--dump-attention expects a directory");
      if (signature.numResults() == signature.outputs.size())
        fail(kBadInput, "--dump-attention needs a model compiled with "
                        "tfm-compile --attention-weights");
      dumpAttention = argv[++i];
      // An empty name would write nothing and exit 0.
      if (dumpAttention.empty())
        fail(kBadInput, "--dump-attention expects a directory, found an "
                        "empty name");
    } else if (arg == "-o") {
      if (i + 1 >= argc)
        fail(kBadInput, "-o expects a file name");
      outputPaths.push_back(argv[++i]);
    } else if (arg.size() > 1 && arg[0] == '-') {
      printUsage(argv[0], signature);
      fail(kBadInput, "unknown option '" + arg + "'");
    } else {
      inputPaths.push_back(arg);
    }
  }

  if (inputPaths.size() != signature.inputs.size()) {
    printUsage(argv[0], signature);
    fail(kBadInput, "expected " + std::to_string(signature.inputs.size()) +
                        " input file(s), found " +
                        std::to_string(inputPaths.size()));
  }
  const size_t numResults = signature.numResults();
  if (outputPaths.size() != numResults) {
    printUsage(argv[0], signature);
    fail(kBadInput, "expected " + std::to_string(numResults) +
                        " output file(s) given with -o, found " +
                        std::to_string(outputPaths.size()));
  }

  std::vector<Array> arrays(signature.inputs.size() +
                            signature.outputs.size());
  std::vector<void *> buffers;
  std::vector<Binding> bindings(signature.dimNames.size());
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    const TensorSpec &spec = signature.inputs[i];
    Array &array = arrays[i];
    bool outOfMemory = false;
    if (rank == 0 && !readNpy(inputPaths[i], array, error, &outOfMemory))
      fail(outOfMemory ? 1 : kBadInput,
           std::string(outOfMemory ? "out of memory: " : "") + "input " +
               std::to_string(i) + " (" + spec.name + "): " + error);
    if (rank == 0)
      bindInput(signature, i, spec, array, inputPaths[i], bindings);
    broadcastArray(array);
    if (rank != 0)
      bindInput(signature, i, spec, array, inputPaths[i], bindings);
    buffers.push_back(array.data.data());
  }
  // Every dynamic size is some input's, or a sum of them (tfm-compile
  // checks), so the outputs' shapes are known now.
  std::vector<int64_t> dims;
  for (const Binding &binding : bindings)
    dims.push_back(binding.value);
  // An output may be as long as some inputs together (`sum` sizes).
  if (!signature.computeSums(dims))
    fail(kBadInput, "the inputs' sizes add up to more than an output can "
                    "hold");
  for (size_t i = 0; i < signature.outputs.size(); ++i) {
    const TensorSpec &spec = signature.outputs[i];
    Array &array = arrays[signature.inputs.size() + i];
    array.dtype = spec.dtype;
    array.shape = spec.shape;
    for (int64_t &dim : array.shape)
      if (int64_t symbol = TensorSpec::getSymbol(dim); symbol >= 0)
        dim = dims[symbol];
    allocateOutput(i, spec, array);
    buffers.push_back(array.data.data());
  }

  // Binaries compiled for the GPU link its runtime, which says whether the
  // driver and a device are there; for the CPU the symbol is absent.
  if (tfmGpuUnavailable)
    if (const char *why = tfmGpuUnavailable())
      fail(1, why);

  if (tfm_run_dims(dims.data(), buffers.data()) != 0)
    fail(1, "the model failed");

  if (profile)
    resetProfile();
  if (profile && benchRuns == 0) {
    tfm_run_dims(dims.data(), buffers.data());
    endProfileRun();
    printProfile(stdout, tfm_profile_kernels);
  }
  if (benchRuns > 0) {
    std::vector<double> times;
    for (int run = 0; run < benchRuns; ++run) {
      auto start = std::chrono::steady_clock::now();
      tfm_run_dims(dims.data(), buffers.data());
      times.push_back(millisecondsSince(start));
      if (profile)
        endProfileRun();
    }
    std::sort(times.begin(), times.end());
    double median = times.size() % 2
                        ? times[times.size() / 2]
                        : (times[times.size() / 2 - 1] + times[times.size() / 2]) / 2;
    std::printf("latency over %d runs: min %.4f ms, median %.4f ms\n",
                benchRuns, times.front(), median);
    if (profile)
      printProfile(stdout, tfm_profile_kernels);
  }

  if (rank != 0) {
    finishDistributed();
    return 0;
  }
  for (size_t i = 0; i < numResults; ++i)
    if (!writeNpy(outputPaths[i], arrays[signature.inputs.size() + i], error))
      fail(1, error);
  if (!dumpAttention.empty()) {
    // DIR/<name>.npy per attention, and DIR/attention.txt: name, location.
    std::string index;
    for (size_t i = numResults; i < signature.outputs.size(); ++i) {
      const TensorSpec &spec = signature.outputs[i];
      std::string path = dumpAttention + "/" + spec.name + ".npy";
      if (!writeNpy(path, arrays[signature.inputs.size() + i], error))
        fail(1, "--dump-attention: " + error);
      index += spec.name + "\t" + spec.attention + "\n";
    }
    std::string path = dumpAttention + "/attention.txt";
    std::FILE *file = std::fopen(path.c_str(), "w");
    if (!file || std::fputs(index.c_str(), file) < 0 || std::fclose(file) != 0)
      fail(1, "--dump-attention: cannot write '" + path + "'");
  }
  finishDistributed();
  return 0;
}
