//===- Profile.cpp - Where a compiled model's time goes -------------------===//

#include "Profile.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace {

/// The times of one kernel: in the run under way, and in each run before.
/// The hooks are called from the thread that runs the model, between its
/// parallel regions, so nothing is shared.
struct Kernel {
  std::chrono::steady_clock::time_point start;
  double milliseconds = 0;
  std::vector<double> runs;
};

double getMedian(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::vector<Kernel> &getKernels() {
  static std::vector<Kernel> kernels;
  return kernels;
}

Kernel &getKernel(int32_t id) {
  std::vector<Kernel> &kernels = getKernels();
  if (id < 0)
    id = 0;
  if (static_cast<size_t>(id) >= kernels.size())
    kernels.resize(id + 1);
  return kernels[id];
}

} // namespace

extern "C" void tfm_profile_begin(int32_t id) {
  getKernel(id).start = std::chrono::steady_clock::now();
}

extern "C" void tfm_profile_end(int32_t id) {
  Kernel &kernel = getKernel(id);
  kernel.milliseconds += std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - kernel.start)
                             .count();
}

void tfm::runtime::resetProfile() {
  for (Kernel &kernel : getKernels())
    kernel = Kernel();
}

void tfm::runtime::endProfileRun() {
  for (Kernel &kernel : getKernels()) {
    kernel.runs.push_back(kernel.milliseconds);
    kernel.milliseconds = 0;
  }
}

void tfm::runtime::printProfile(std::FILE *out, const char *table) {
  // One line of the table per kernel id.
  std::vector<std::string> names;
  std::string line;
  for (const char *c = table; *c; ++c) {
    if (*c == '\n') {
      names.push_back(line);
      line.clear();
    } else {
      line += *c == '\t' ? ' ' : *c;
    }
  }
  std::vector<Kernel> &kernels = getKernels();
  size_t runs = kernels.empty() ? 0 : kernels.front().runs.size();
  kernels.resize(std::max(kernels.size(), names.size()));
  // Medians, not means: a run that the system interrupts would otherwise
  // move every figure.
  std::vector<double> medians;
  double total = 0;
  std::vector<size_t> order;
  for (size_t id = 0; id < kernels.size(); ++id) {
    medians.push_back(getMedian(kernels[id].runs));
    total += medians.back();
    order.push_back(id);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (medians[a] != medians[b])
      return medians[a] > medians[b];
    return a < b;
  });
  std::fprintf(out,
               "profile: medians over %zu run(s), %.4f ms in %zu kernels\n"
               "%8s %7s %7s  %-5s %s\n",
               runs, total, names.size(), "ms", "%", "cum%", "id",
               "kernel (op, location)");
  double cumulative = 0;
  for (size_t id : order) {
    cumulative += medians[id];
    std::fprintf(out, "%8.4f %6.1f%% %6.1f%%  #%-4zu %s\n", medians[id],
                 total > 0 ? 100 * medians[id] / total : 0,
                 total > 0 ? 100 * cumulative / total : 0, id,
                 id < names.size() ? names[id].c_str() : "?");
  }
}
