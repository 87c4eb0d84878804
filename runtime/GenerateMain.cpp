//===- GenerateMain.cpp - The executables' --generate ---------------------===//
//
//   ./model --generate N --prompt ids.npy -o tokens.npy [--logits L.npy]
//           [--temperature T [--top-k K] [--seed S]] [--threads T]
//
// For a model compiled with --kv-cache: runs the prompt ([batch, S] int64
// token ids) in one call (the prefill), then N - 1 calls of one token per
// sequence against the caches, each feeding back the token chosen from the
// last logits: the most likely one (greedy, the default), or with
// --temperature a sample from softmax(logits / T), over the K most likely
// tokens with --top-k, from a generator seeded with --seed (0 by default).
// Writes the N tokens of each sequence ([batch, N] int64) and, with
// --logits, the logits each token was chosen from ([N, batch, vocab]
// float32), and prints the prefill's time and the decoding's: each step's
// median time and the tokens per second it gives (batch / median). Bad
// arguments and inputs exit with code 2.
//
//===----------------------------------------------------------------------===//

#include "Generate.h"
#include "Cli.h"
#include "Distributed.h"
#include "Npy.h"
#include "Signature.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

using namespace tfm::runtime;

namespace {

const char *requireValue(int argc, char **argv, int &i) {
  if (i + 1 >= argc)
    fail(kBadInput, std::string(argv[i]) + " expects a value");
  return argv[++i];
}

double parseNonNegative(const char *option, const char *text) {
  char *end = nullptr;
  double value = std::strtod(text, &end);
  if (*text == '\0' || *end != '\0' || !(value >= 0.0) || !std::isfinite(value))
    fail(kBadInput, std::string(option) + " expects a number >= 0, found '" +
                        text + "'");
  return value;
}

/// Chooses the next token from one sequence's logits.
class Sampler {
public:
  Sampler(double temperature, int64_t topK, uint64_t seed)
      : temperature(temperature), topK(topK), random(seed) {}

  int64_t choose(const float *logits, int64_t vocab) {
    if (temperature == 0.0)
      return std::max_element(logits, logits + vocab) - logits;
    std::vector<int64_t> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    int64_t keep = topK > 0 ? std::min(topK, vocab) : vocab;
    std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                      [&](int64_t a, int64_t b) {
                        return logits[a] > logits[b] ||
                               (logits[a] == logits[b] && a < b);
                      });
    std::vector<double> weights(keep);
    double top = logits[order.front()];
    for (int64_t i = 0; i < keep; ++i)
      weights[i] = std::exp((logits[order[i]] - top) / temperature);
    std::discrete_distribution<int64_t> pick(weights.begin(), weights.end());
    return order[pick(random)];
  }

private:
  double temperature;
  int64_t topK;
  std::mt19937_64 random;
};

} // namespace

int tfmGenerateMain(int argc, char **argv, int rank) {
  int64_t steps = 0, topK = 0;
  uint64_t seed = 0;
  double temperature = 0.0;
  bool seenTopK = false, seenSeed = false;
  std::string promptPath, tokensPath, logitsPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--generate") {
      steps = parseInteger("--generate", requireValue(argc, argv, i), 1,
                           1 << 24);
    } else if (arg == "--prompt") {
      promptPath = requireValue(argc, argv, i);
    } else if (arg == "-o") {
      if (!tokensPath.empty())
        fail(kBadInput, "--generate writes one file, the tokens: one -o");
      tokensPath = requireValue(argc, argv, i);
    } else if (arg == "--logits") {
      logitsPath = requireValue(argc, argv, i);
    } else if (arg == "--temperature") {
      temperature =
          parseNonNegative("--temperature", requireValue(argc, argv, i));
    } else if (arg == "--top-k") {
      topK = parseInteger("--top-k", requireValue(argc, argv, i), 1,
                          int64_t{1} << 40);
      seenTopK = true;
    } else if (arg == "--seed") {
      seed = parseUnsigned64("--seed", requireValue(argc, argv, i));
      seenSeed = true;
    } else if (arg == "--threads") {
      setThreads(requireValue(argc, argv, i));
    } else {
      fail(kBadInput, "unknown argument '" + arg + "' with --generate (usage: " +
                          argv[0] + " --generate N --prompt IDS.npy -o "
                          "TOKENS.npy [--logits LOGITS.npy] [--temperature T "
                          "[--top-k K] [--seed S]] [--threads T])");
    }
  }
  if (promptPath.empty())
    fail(kBadInput, "--generate needs --prompt IDS.npy, the prompts' token "
                    "ids ([batch, length], int64)");
  if (tokensPath.empty())
    fail(kBadInput, "--generate needs -o TOKENS.npy, where the generated "
                    "tokens go");
  if (temperature == 0.0 && (seenTopK || seenSeed))
    fail(kBadInput, "--top-k and --seed are for sampling: give a "
                    "--temperature above 0 (without one, the most likely "
                    "token is chosen)");

  // Under mpirun, rank 0 reads the prompt and sends it to the others
  // (Distributed.h), which check it as rank 0 does.
  Array prompt;
  std::string error;
  bool outOfMemory = false;
  if (rank == 0 && !readNpy(promptPath, prompt, error, &outOfMemory))
    fail(outOfMemory ? 1 : kBadInput,
         std::string(outOfMemory ? "out of memory: " : "") + "--prompt: " +
             error);
  broadcastArray(prompt);
  if (prompt.dtype != DType::I64 || prompt.shape.size() != 2 ||
      prompt.shape[0] < 1 || prompt.shape[1] < 1)
    fail(kBadInput, "--prompt: expected token ids of int64 [batch, length] "
                    "with batch and length at least 1, found " +
                        std::string(dtypeName(prompt.dtype)) + " " +
                        shapeToString(prompt.shape) + " in '" + promptPath +
                        "'");
  int64_t batch = prompt.shape[0], length = prompt.shape[1];

  char message[512];
  tfm_kv_state *state = tfm_kv_state_create_for(
      tfm_signature, tfm_run_dims, batch, message, sizeof(message));
  // Out of memory for the caches: the model could not run (exit 1);
  // anything else is a model that --generate cannot drive (2).
  if (!state)
    fail(std::strncmp(message, "out of memory", 13) == 0 ? 1 : kBadInput,
         std::string("--generate: ") + message);
  int64_t capacity = tfm_kv_state_capacity(state);
  int64_t vocab = tfm_kv_state_vocab(state);
  // The last token is chosen, never fed back.
  if (length + steps - 1 > capacity)
    fail(kBadInput, "--generate: the prompt's " + std::to_string(length) +
                        " tokens and " + std::to_string(steps) +
                        " generated ones need " +
                        std::to_string(length + steps - 1) +
                        " positions; the model's caches hold " +
                        std::to_string(capacity) + " (its --kv-cache=" +
                        std::to_string(capacity) + ")");
  const auto *ids = reinterpret_cast<const int64_t *>(prompt.data.data());
  for (int64_t i = 0; i < batch * length; ++i)
    if (ids[i] < 0 || ids[i] >= vocab)
      fail(kBadInput, "--prompt: token id " + std::to_string(ids[i]) +
                          " (at [" + std::to_string(i / length) + ", " +
                          std::to_string(i % length) +
                          "]) is outside the vocabulary of " +
                          std::to_string(vocab));

  Sampler sampler(temperature, topK, seed);
  // The logits each token is chosen from are kept only for --logits.
  std::vector<float> logits, chosenFrom;
  std::vector<int64_t> tokens;
  try {
    logits.resize(batch * length * vocab);
    tokens.resize(batch * steps);
    if (!logitsPath.empty())
      chosenFrom.resize(steps * batch * vocab);
  } catch (const std::exception &) {
    fail(1, "out of memory: cannot hold the logits of " +
                std::to_string(batch) + " x " +
                std::to_string(std::max(length, steps)) + " positions of " +
                std::to_string(vocab) + " tokens");
  }
  auto choose = [&](int64_t step, int64_t seq, std::vector<int64_t> &next) {
    for (int64_t b = 0; b < batch; ++b) {
      const float *last = logits.data() + (b * seq + seq - 1) * vocab;
      if (!chosenFrom.empty())
        std::copy(last, last + vocab,
                  chosenFrom.begin() + (step * batch + b) * vocab);
      next[b] = sampler.choose(last, vocab);
    }
    // Every rank feeds rank 0's choice: the ranks' logits are the same
    // sums, but MPI does not promise the same bits everywhere.
    if (isDistributed())
      tfmDistributedBroadcast(next.data(), next.size() * sizeof(int64_t));
    for (int64_t b = 0; b < batch; ++b)
      tokens[b * steps + step] = next[b];
  };

  std::vector<int64_t> next(batch);
  auto start = std::chrono::steady_clock::now();
  if (tfm_kv_state_run(state, ids, length, logits.data()) != 0)
    fail(1, tfm_kv_state_error(state));
  double prefillMs = millisecondsSince(start);
  choose(0, length, next);
  logits.resize(batch * vocab);
  // Each step's time (the model's call; choosing the token is not in it).
  std::vector<double> stepMs;
  for (int64_t step = 1; step < steps; ++step) {
    start = std::chrono::steady_clock::now();
    if (tfm_kv_state_run(state, next.data(), 1, logits.data()) != 0)
      fail(1, tfm_kv_state_error(state));
    stepMs.push_back(millisecondsSince(start));
    choose(step, 1, next);
  }
  tfm_kv_state_destroy(state);
  // Rank 0 prints and writes the files.
  if (rank != 0) {
    finishDistributed();
    return 0;
  }

  std::printf("prefill: %lld x %lld tokens in %.3f ms\n",
              static_cast<long long>(batch), static_cast<long long>(length),
              prefillMs);
  if (!stepMs.empty()) {
    double total = std::accumulate(stepMs.begin(), stepMs.end(), 0.0);
    std::vector<double> sorted = stepMs;
    std::sort(sorted.begin(), sorted.end());
    size_t n = sorted.size();
    double median =
        n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    std::printf("decode: %lld steps of %lld tokens in %.3f ms: median %.3f ms "
                "a step, %.1f tokens/s\n",
                static_cast<long long>(n), static_cast<long long>(batch),
                total, median, batch * 1000.0 / median);
  }

  Array out;
  out.dtype = DType::I64;
  out.shape = {batch, steps};
  out.data.resize(tokens.size() * sizeof(int64_t));
  std::memcpy(out.data.data(), tokens.data(), out.data.size());
  if (!writeNpy(tokensPath, out, error))
    fail(1, error);
  if (!logitsPath.empty()) {
    Array all;
    all.dtype = DType::F32;
    all.shape = {steps, batch, vocab};
    all.data.resize(chosenFrom.size() * sizeof(float));
    std::memcpy(all.data.data(), chosenFrom.data(), all.data.size());
    if (!writeNpy(logitsPath, all, error))
      fail(1, error);
  }
  finishDistributed();
  return 0;
}
