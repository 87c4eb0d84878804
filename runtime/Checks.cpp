//===- Checks.cpp - The failed checks of compiled models -------------------===//
//
// A compiled model's own checks (cf.assert, lowered by tfm-lower-asserts)
// call tfm_check_failed with their message when they fail: the bounds of
// dynamic sizes that the ONNX importer could not check at import time, such
// as a sequence longer than the position table it slices. The process ends
// with the message and exit code 1, as for the executables' other errors.
//
//===----------------------------------------------------------------------===//

#include <cstdio>
#include <cstdlib>

extern "C" [[noreturn]] void tfm_check_failed(const char *message) {
  std::fprintf(stderr, "error: %s\n", message);
  // What the caller of a library wrote before stays written; then out,
  // from any thread, without running atexit handlers that could wait for
  // the other threads.
  std::fflush(nullptr);
  std::_Exit(1);
}
