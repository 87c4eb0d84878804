//===- Generate.cpp - Generation over a model's key/value caches ----------===//

#include "Generate.h"

#include "Distributed.h"
#include "Signature.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace tfm::runtime;

namespace {
/// A cache's memory: anonymous pages, which read as zeros until written.
struct Unmap {
  size_t bytes = 0;
  void operator()(float *data) const { munmap(data, bytes); }
};
using CacheMemory = std::unique_ptr<float, Unmap>;

/// Maps `bytes` of zeros for a cache, or returns null when the memory is
/// not there. A single process's caches are committed now, in huge pages
/// where the kernel has them: a step then writes its positions without a
/// page fault (one every 16 positions of each head's 4 KiB pages: at batch
/// 8 a GPT-2-small step took 144 faults, 1-3 ms of a 13-17 ms step on a
/// VM), the attention reads them through fewer TLB entries, and a batch
/// the machine cannot hold fails here, not in the middle of generating. A
/// rank of a tensor-parallel model writes only its heads' part of each
/// cache (TensorParallel.cpp), so its pages stay lazy: it holds only that
/// part in memory.
float *mapCache(size_t bytes) {
  void *memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    return nullptr;
  if (isDistributed())
    return static_cast<float *>(memory);
#ifdef MADV_HUGEPAGE
  (void)madvise(memory, bytes, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
  if (madvise(memory, bytes, MADV_POPULATE_WRITE) == 0)
    return static_cast<float *>(memory);
  if (errno == ENOMEM) {
    munmap(memory, bytes);
    return nullptr;
  }
#endif
  // Kernels before 5.14: a write to every page.
  long page = sysconf(_SC_PAGESIZE);
  auto *bytesOf = static_cast<volatile char *>(memory);
  for (size_t offset = 0; offset < bytes; offset += page > 0 ? page : 4096)
    bytesOf[offset] = 0;
  return static_cast<float *>(memory);
}
} // namespace

struct tfm_kv_state {
  Signature signature;
  tfm_run_dims_fn run = nullptr;
  int64_t batch = 0;
  /// The positions held, and the most the caches hold.
  int64_t length = 0, capacity = 0;
  int64_t vocab = 0;
  /// The input of the token ids, and its element type.
  size_t idsInput = 0;
  DType idsType = DType::I64;
  /// The dynamic sizes batch and seq are (-1 where fixed).
  int64_t batchSymbol = -1, seqSymbol = -1;
  /// Per input, the caches' buffers (empty for the others).
  std::vector<CacheMemory> caches;
  std::vector<int32_t> ids32;
  std::string error;
};

namespace {

/// The size of `spec`'s dimension `d` for `batch` sequences: its fixed
/// size, or `batch` where it is the batch's dynamic size; -1 for another
/// dynamic size.
int64_t resolveDim(const tfm_kv_state &state, const TensorSpec &spec,
                   size_t d) {
  int64_t symbol = TensorSpec::getSymbol(spec.shape[d]);
  if (symbol < 0)
    return spec.shape[d];
  return symbol == state.batchSymbol ? state.batch : -1;
}

/// Checks that `state.signature` is a decoder this runtime can drive and
/// fills in where its pieces are; returns the reason it is not, or "".
std::string describeModel(tfm_kv_state &state) {
  const Signature &sig = state.signature;
  std::vector<size_t> data;
  size_t positions = 0, caches = 0;
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    switch (sig.inputs[i].role) {
    case TensorSpec::Role::Data:
      data.push_back(i);
      break;
    case TensorSpec::Role::KvPosition:
      ++positions;
      break;
    case TensorSpec::Role::KvCache:
      ++caches;
      break;
    }
  }
  if (caches == 0 || positions != 1)
    return "the model has no key/value caches: compile it with tfm-compile "
           "--kv-cache";
  if (data.size() != 1)
    return "the model takes " + std::to_string(data.size()) +
           " inputs besides its caches; generation feeds it token ids only";
  const TensorSpec &ids = sig.inputs[data.front()];
  if (ids.shape.size() != 2 ||
      (ids.dtype != DType::I64 && ids.dtype != DType::I32))
    return "the model's input '" + ids.name + "' is " +
           dtypeName(ids.dtype) + " " + sig.shapeText(ids) +
           "; generation feeds token ids [batch, seq] of int64 or int32";
  state.idsInput = data.front();
  state.idsType = ids.dtype;
  state.batchSymbol = TensorSpec::getSymbol(ids.shape[0]);
  state.seqSymbol = TensorSpec::getSymbol(ids.shape[1]);
  if (state.batchSymbol < 0 && ids.shape[0] != state.batch)
    return "the model was compiled for a batch of " +
           std::to_string(ids.shape[0]) + ", not " +
           std::to_string(state.batch);
  if (state.seqSymbol < 0 && ids.shape[1] != 1)
    return "the model takes " + std::to_string(ids.shape[1]) +
           " tokens a call; generation needs their number dynamic (export "
           "it with a dynamic sequence axis)";
  for (size_t s = 0; s < sig.dimNames.size(); ++s)
    if (static_cast<int64_t>(s) != state.batchSymbol &&
        static_cast<int64_t>(s) != state.seqSymbol)
      return "the model has a dynamic size '" + sig.dimNames[s] +
             "' that its token ids do not give";
  if (sig.numResults() != 1)
    return "the model returns " + std::to_string(sig.numResults()) +
           " outputs besides its caches; generation reads the logits only";
  const TensorSpec &logits = sig.outputs.front();
  if (logits.dtype != DType::F32 || logits.shape.size() != 3 ||
      TensorSpec::getSymbol(logits.shape[0]) != state.batchSymbol ||
      TensorSpec::getSymbol(logits.shape[1]) != state.seqSymbol ||
      TensorSpec::getSymbol(logits.shape[2]) >= 0)
    return "the model's output '" + logits.name + "' is " +
           dtypeName(logits.dtype) + " " + sig.shapeText(logits) +
           "; generation reads float32 logits [batch, seq, vocab]";
  state.vocab = logits.shape[2];

  state.caches.resize(sig.inputs.size());
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    const TensorSpec &spec = sig.inputs[i];
    if (spec.role != TensorSpec::Role::KvCache)
      continue;
    if (spec.dtype != DType::F32 || spec.shape.size() < 2)
      return "the cache '" + spec.name + "' is " + dtypeName(spec.dtype) +
             " " + sig.shapeText(spec) + "; caches are float32 [..., length, "
             "head_dim]";
    uint64_t elements = 1;
    for (size_t d = 0; d < spec.shape.size(); ++d) {
      int64_t size = resolveDim(state, spec, d);
      if (size < 0)
        return "the cache '" + spec.name + "' has a dynamic size other "
               "than the batch";
      if (__builtin_mul_overflow(elements, static_cast<uint64_t>(size),
                                 &elements) ||
          elements > (uint64_t{1} << 40))
        return "the cache '" + spec.name + "' is too large";
    }
    int64_t length = spec.shape[spec.shape.size() - 2];
    if (state.capacity != 0 && length != state.capacity)
      return "the caches have different lengths";
    state.capacity = length;
    if (float *memory = mapCache(elements * sizeof(float))) {
      state.caches[i] = CacheMemory(memory, Unmap{elements * sizeof(float)});
    } else {
      return "out of memory: cannot allocate the cache '" + spec.name +
             "' (" + std::to_string(elements * 4) + " bytes)";
    }
  }
  return "";
}

} // namespace

extern "C" {

tfm_kv_state *tfm_kv_state_create_for(const char *signature,
                                      tfm_run_dims_fn run, int64_t batch,
                                      char *error, size_t error_size) {
  auto report = [&](const std::string &message) -> tfm_kv_state * {
    if (error && error_size)
      std::snprintf(error, error_size, "%s", message.c_str());
    return nullptr;
  };
  if (batch < 1)
    return report("the batch must be at least 1, found " +
                  std::to_string(batch));
  auto *state = new (std::nothrow) tfm_kv_state;
  if (!state)
    return report("out of memory");
  state->run = run;
  state->batch = batch;
  std::string parseError;
  if (!parseSignature(signature, state->signature, parseError)) {
    delete state;
    return report(parseError);
  }
  if (std::string why = describeModel(*state); !why.empty()) {
    delete state;
    return report(why);
  }
  return state;
}

void tfm_kv_state_destroy(tfm_kv_state *state) { delete state; }

void tfm_kv_state_reset(tfm_kv_state *state) {
  // The rows past the length are never read: nothing to clear.
  state->length = 0;
}

int64_t tfm_kv_state_length(const tfm_kv_state *state) {
  return state->length;
}

int64_t tfm_kv_state_capacity(const tfm_kv_state *state) {
  return state->capacity;
}

int64_t tfm_kv_state_vocab(const tfm_kv_state *state) { return state->vocab; }

const char *tfm_kv_state_error(const tfm_kv_state *state) {
  return state->error.c_str();
}

int tfm_kv_state_run(tfm_kv_state *state, const int64_t *ids, int64_t seq,
                     float *logits) {
  if (seq < 1) {
    state->error = "a run takes at least one token per sequence, found " +
                   std::to_string(seq);
    return 1;
  }
  if (seq > state->capacity - state->length) {
    state->error = "the caches hold " + std::to_string(state->length) +
                   " of " + std::to_string(state->capacity) +
                   " positions: no room for " + std::to_string(seq) +
                   " more (compile with a larger --kv-cache=N)";
    return 1;
  }
  // The model's embedding check would end the process; a library call
  // returns the reason instead.
  for (int64_t i = 0, n = state->batch * seq; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= state->vocab) {
      state->error = "token id " + std::to_string(ids[i]) + " (at [" +
                     std::to_string(i / seq) + ", " +
                     std::to_string(i % seq) +
                     "]) is outside the vocabulary of " +
                     std::to_string(state->vocab);
      return 1;
    }
  const Signature &sig = state->signature;
  if (state->seqSymbol >= 0)
    if (int64_t bound = sig.dimBounds[state->seqSymbol]; bound && seq > bound) {
      state->error = std::to_string(seq) + " tokens are more than the " +
                     std::to_string(bound) + " a call takes";
      return 1;
    }
  std::vector<int64_t> dims(sig.dimNames.size(), 0);
  if (state->batchSymbol >= 0)
    dims[state->batchSymbol] = state->batch;
  if (state->seqSymbol >= 0)
    dims[state->seqSymbol] = seq;

  const void *idsBuffer = ids;
  if (state->idsType == DType::I32) {
    state->ids32.resize(state->batch * seq);
    for (size_t i = 0; i < state->ids32.size(); ++i)
      state->ids32[i] = static_cast<int32_t>(ids[i]);
    idsBuffer = state->ids32.data();
  }
  int64_t position = state->length;
  std::vector<void *> buffers;
  for (size_t i = 0; i < sig.inputs.size(); ++i) {
    switch (sig.inputs[i].role) {
    case TensorSpec::Role::Data:
      buffers.push_back(const_cast<void *>(idsBuffer));
      break;
    case TensorSpec::Role::KvPosition:
      buffers.push_back(&position);
      break;
    case TensorSpec::Role::KvCache:
      buffers.push_back(state->caches[i].get());
      break;
    }
  }
  buffers.push_back(logits);
  if (state->run(dims.data(), buffers.data()) != 0) {
    state->error = "the model failed";
    return 1;
  }
  state->length += seq;
  return 0;
}

} // extern "C"
