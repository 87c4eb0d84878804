//===- Cli.h - What the executables' command lines share --------*- C++ -*-===//

#ifndef TFM_RUNTIME_CLI_H
#define TFM_RUNTIME_CLI_H

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace tfm {
namespace runtime {

/// The exit code of bad arguments and bad inputs.
constexpr int kBadInput = 2;

/// Prints `error: <message>` and exits with `code`.
[[noreturn]] inline void fail(int code, const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(code);
}

/// The integer `text` given for `option`, in [min, max]; anything else (no
/// digits, trailing characters, out of range, too large for 64 bits) fails
/// with a message naming the option and the range.
inline int64_t parseInteger(const char *option, const char *text, int64_t min,
                            int64_t max) {
  char *end = nullptr;
  errno = 0;
  long long value = text ? std::strtoll(text, &end, 10) : 0;
  if (!text || *text == '\0' || *end != '\0' || errno == ERANGE ||
      value < min || value > max)
    fail(kBadInput, std::string(option) + " expects an integer from " +
                        std::to_string(min) + " to " + std::to_string(max) +
                        ", found '" + (text ? text : "") + "'");
  return value;
}

/// The unsigned 64-bit integer `text` given for `option` (a seed): every
/// value from 0 to 2^64-1, and nothing else.
inline uint64_t parseUnsigned64(const char *option, const char *text) {
  char *end = nullptr;
  errno = 0;
  unsigned long long value = text ? std::strtoull(text, &end, 10) : 0;
  if (!text || *text == '\0' || *text == '-' || *end != '\0' ||
      errno == ERANGE)
    fail(kBadInput, std::string(option) + " expects an integer from 0 to " +
                        std::to_string(UINT64_MAX) + ", found '" +
                        (text ? text : "") + "'");
  return value;
}

/// The most threads `--threads` sets: more than a few per core only makes
/// the OpenMP runtime's start-up fail (it aborts past what the system lets a
/// process create) and never runs faster.
inline int64_t maxThreads() {
  int64_t cores = std::thread::hardware_concurrency();
  return cores > 0 ? 4 * cores : 64;
}

/// Parses `--threads T` (a positive integer) and sets the OpenMP thread
/// count; a count above maxThreads() is lowered to it with a warning.
inline void setThreads(const char *text) {
  int64_t threads = parseInteger("--threads", text, 1, INT64_MAX);
  if (int64_t most = maxThreads(); threads > most) {
    std::fprintf(stderr,
                 "warning: --threads %lld is more than 4 per core of this "
                 "machine's %u; using %lld\n",
                 static_cast<long long>(threads),
                 std::thread::hardware_concurrency(),
                 static_cast<long long>(most));
    threads = most;
  }
  setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1);
}

inline double millisecondsSince(std::chrono::steady_clock::time_point start) {
  auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::milli>(elapsed).count();
}

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_CLI_H
