//===- FuzzInput.h - Fuzzer bytes as a file ---------------------*- C++ -*-===//
//
// The .npy and safetensors readers take paths, as the binaries and
// tfm-compile call them. Their fuzzers write each input to one file per
// process and hand over its path.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_FUZZ_FUZZINPUT_H
#define TFM_FUZZ_FUZZINPUT_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace tfm {
namespace fuzz {

/// Writes `size` bytes to this process's input file and returns its path
/// (under $TMPDIR, named by the process id so that parallel jobs do not
/// share it). Aborts when the file cannot be written: the fuzzer would
/// otherwise test nothing.
inline const std::string &writeInputFile(const uint8_t *data, size_t size,
                                         const char *suffix) {
  static const std::string path = [&] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tfm-fuzz-" +
           std::to_string(getpid()) + suffix;
  }();
  FILE *file = std::fopen(path.c_str(), "wb");
  if (!file || (size && std::fwrite(data, 1, size, file) != size) ||
      std::fclose(file) != 0)
    std::abort();
  return path;
}

} // namespace fuzz
} // namespace tfm

#endif // TFM_FUZZ_FUZZINPUT_H
