//===- Main.cpp - main() of the executables tfm-compile links -------------===//
//
//   ./model [--bench N] [--threads T] [--profile] -o out0.npy
//           [-o out1.npy ...] in0.npy [in1.npy ...]
//
// Reads one .npy per model input, checks it against the model's signature,
// runs the model and writes one .npy per output. With --bench N it also runs
// N timed iterations after a warm-up and prints the min and median latency.
// With --profile (for models compiled with tfm-compile --profile) it prints
// the time of each kernel over those runs (or over one run after the
// warm-up, without --bench), slowest first.
// Bad arguments and bad inputs exit with code 2, with a message that names
// the input and says what was expected and what was found.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"
#include "Profile.h"
#include "Signature.h"

#include <algorithm>
#include <chrono>
#include <malloc.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tfm::runtime;

namespace {

constexpr int kBadInput = 2;

[[noreturn]] void fail(int code, const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(code);
}

void printUsage(const char *argv0, const Signature &signature) {
  std::fprintf(stderr,
               "usage: %s [--bench N] [--threads T] [--profile] -o OUT.npy ... "
               "IN.npy ...\n"
               "inputs:\n",
               argv0);
  for (const TensorSpec &in : signature.inputs)
    std::fprintf(stderr, "  %s: %s %s\n", in.name.c_str(),
                 dtypeName(in.dtype), shapeToString(in.shape).c_str());
  std::fprintf(stderr, "outputs:\n");
  for (const TensorSpec &out : signature.outputs)
    std::fprintf(stderr, "  %s: %s %s\n", out.name.c_str(),
                 dtypeName(out.dtype), shapeToString(out.shape).c_str());
}

/// Parses a positive integer option value or fails.
int parseCount(const char *option, const char *value) {
  char *end = nullptr;
  long n = value ? std::strtol(value, &end, 10) : 0;
  if (!value || *end != '\0' || n <= 0 || n > 1000000000)
    fail(kBadInput, std::string(option) + " expects a positive integer, found '" +
                        (value ? value : "") + "'");
  return static_cast<int>(n);
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::milli>(elapsed).count();
}

} // namespace

extern "C" const char *tfmGpuUnavailable() __attribute__((weak));
// The kernels' table of a model compiled with tfm-compile --profile.
extern "C" const char tfm_profile_kernels[] __attribute__((weak));

int main(int argc, char **argv) {
  // Compiled models allocate their intermediate buffers on every call. Keep
  // freed memory in the heap (no mmap for buffers up to 32 MiB, no trimming)
  // so that later calls reuse pages instead of faulting fresh ones in.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  Signature signature;
  std::string error;
  if (!parseSignature(tfm_signature, signature, error))
    fail(1, error);

  int benchRuns = 0;
  bool profile = false;
  std::vector<std::string> inputPaths, outputPaths;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      printUsage(argv[0], signature);
      return 0;
    }
    if (arg == "--bench") {
      benchRuns = parseCount("--bench", i + 1 < argc ? argv[++i] : nullptr);
    } else if (arg == "--threads") {
      int threads = parseCount("--threads", i + 1 < argc ? argv[++i] : nullptr);
      setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
    } else if (arg == "--profile") {
      if (!tfm_profile_kernels)
        fail(kBadInput, "--profile needs a model compiled with "
                        "tfm-compile --profile");
      profile = true;
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
  if (outputPaths.size() != signature.outputs.size()) {
    printUsage(argv[0], signature);
    fail(kBadInput, "expected " + std::to_string(signature.outputs.size()) +
                        " output file(s) given with -o, found " +
                        std::to_string(outputPaths.size()));
  }

  std::vector<Array> arrays(signature.inputs.size() +
                            signature.outputs.size());
  std::vector<void *> buffers;
  for (size_t i = 0; i < signature.inputs.size(); ++i) {
    const TensorSpec &spec = signature.inputs[i];
    Array &array = arrays[i];
    std::string what = "input " + std::to_string(i) + " (" + spec.name + ")";
    if (!readNpy(inputPaths[i], array, error))
      fail(kBadInput, what + ": " + error);
    if (array.dtype != spec.dtype || array.shape != spec.shape)
      fail(kBadInput, what + ": expected " + dtypeName(spec.dtype) + " " +
                          shapeToString(spec.shape) + ", found " +
                          dtypeName(array.dtype) + " " +
                          shapeToString(array.shape) + " in '" +
                          inputPaths[i] + "'");
    buffers.push_back(array.data.data());
  }
  for (size_t i = 0; i < signature.outputs.size(); ++i) {
    const TensorSpec &spec = signature.outputs[i];
    Array &array = arrays[signature.inputs.size() + i];
    array.dtype = spec.dtype;
    array.shape = spec.shape;
    array.data.assign(array.numElements() * dtypeSize(spec.dtype), 0);
    buffers.push_back(array.data.data());
  }

  // Binaries compiled for the GPU link its runtime, which says whether the
  // driver and a device are there; for the CPU the symbol is absent.
  if (tfmGpuUnavailable)
    if (const char *why = tfmGpuUnavailable())
      fail(1, why);

  if (tfm_run(buffers.data()) != 0)
    fail(1, "the model failed");

  if (profile)
    resetProfile();
  if (profile && benchRuns == 0) {
    tfm_run(buffers.data());
    endProfileRun();
    printProfile(stdout, tfm_profile_kernels);
  }
  if (benchRuns > 0) {
    std::vector<double> times;
    for (int run = 0; run < benchRuns; ++run) {
      auto start = std::chrono::steady_clock::now();
      tfm_run(buffers.data());
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

  for (size_t i = 0; i < signature.outputs.size(); ++i)
    if (!writeNpy(outputPaths[i], arrays[signature.inputs.size() + i], error))
      fail(1, error);
  return 0;
}
