//===- Profile.h - Where a compiled model's time goes -----------*- C++ -*-===//
//
// The runtime of tfm-compile --profile: the instrumented model calls
// tfm_profile_begin(id) and tfm_profile_end(id) around each kernel and
// carries the kernels' table (`<op name>\t<location>` per line) as
// tfm_profile_kernels; the executable's --profile prints the totals.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_RUNTIME_PROFILE_H
#define TFM_RUNTIME_PROFILE_H

#include <cstdint>
#include <cstdio>

extern "C" {
void tfm_profile_begin(int32_t id);
void tfm_profile_end(int32_t id);
}

namespace tfm {
namespace runtime {

/// Forgets the times measured so far (the warm-up's).
void resetProfile();

/// Closes a run: the kernels' times since the last call become one sample
/// each.
void endProfileRun();

/// Prints the kernels of `table`, slowest first: the median of each
/// kernel's time over the runs, and its share of the kernels' total.
void printProfile(std::FILE *out, const char *table);

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_PROFILE_H
