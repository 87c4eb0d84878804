//===- tfm-npy-fuzzer.cpp - libFuzzer target for the .npy reader ----------===//
//
// Feeds arbitrary bytes to the runtime's readNpy, the door through which a
// compiled executable takes its inputs. Every input must be read or refused
// with a message; a read array must hold exactly the bytes its shape and type
// announce, and write back to a file that reads as the same array.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "Npy.h"

using tfm::runtime::Array;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path = tfm::fuzz::writeInputFile(data, size, ".npy");
  Array array;
  std::string error;
  if (!tfm::runtime::readNpy(path, array, error)) {
    if (error.empty())
      std::abort(); // refused without saying why
    return 0;
  }
  if (array.numElements() < 0 ||
      array.data.size() != static_cast<size_t>(array.numElements()) *
                               tfm::runtime::dtypeSize(array.dtype))
    std::abort();
  // Round trip: what the binaries write, they read back unchanged.
  std::string copy = path + ".out.npy";
  if (!tfm::runtime::writeNpy(copy, array, error))
    std::abort();
  Array again;
  if (!tfm::runtime::readNpy(copy, again, error) ||
      again.dtype != array.dtype || again.shape != array.shape ||
      again.data != array.data)
    std::abort();
  return 0;
}
