//===- Cli.h - What the executables' command lines share --------*- C++ -*-===//

#ifndef TFM_RUNTIME_CLI_H
#define TFM_RUNTIME_CLI_H

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tfm {
namespace runtime {

/// The exit code of bad arguments and bad inputs.
constexpr int kBadInput = 2;

/// Prints `error: <message>` and exits with `code`.
[[noreturn]] inline void fail(int code, const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(code);
}

inline double millisecondsSince(std::chrono::steady_clock::time_point start) {
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::milli>(elapsed).count();
}

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_CLI_H
