//===- tfm-compile.cpp - The tfm compiler driver --------------------------===//
//
//   tfm-compile GRAPH.mlir -o OUT [--emit=exe|lib|obj|mlir|llvm|ptx]
//               [--target=cpu|nvptx] [--entry NAME] [--weights FILE]
//               [-O0..3] [--stage=STAGE] [--cpu=CPU] [--gpu-arch=sm_XX]
//
// Parses and verifies a graph file, binds its weights, prepares the entry,
// runs the CPU or GPU pipeline (the ones `tfm-opt --tfm-cpu-pipeline` /
// `--tfm-gpu-pipeline` run), adds the C entry points, and emits MLIR at any
// stage, LLVM IR, the kernels' PTX, an object file, a shared library with a
// C header, or an executable linked with tfm's runtime.
//
//===----------------------------------------------------------------------===//

#include "Input.h"

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Dialect/Tfm/IR/TfmDialect.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"
#include "tfm/Pipelines/Pipelines.h"
#include "tfm/Target/Native/Backend.h"
#include "tfm/Target/Native/EntryPoint.h"
#include "tfm/Target/Native/Passes.h"
#include "tfm/Target/Native/WeightsObject.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace {

enum class EmitKind { Exe, Lib, Obj, Mlir, LLVM, Ptx };

cl::OptionCategory category("tfm-compile options");
cl::OptionCategory debugCategory(
    "Options for looking inside the compile (MLIR's; LLVM's and MLIR's "
    "others are accepted but not listed)");

/// The MLIR options that help a user see what the compile does; --help
/// shows them next to tfm-compile's own, and hides the hundreds of LLVM
/// options that libLLVM registers for every target.
void showDebugOptions() {
  static const char *const names[] = {
      "mlir-timing",
      "mlir-print-ir-after-all",
      "mlir-print-ir-before-all",
      "mlir-print-ir-after",
      "mlir-print-ir-before",
      "mlir-print-ir-after-failure",
      "mlir-print-debuginfo",
      "mlir-elide-elementsattrs-if-larger",
      "mlir-pass-statistics",
      "mlir-disable-threading",
  };
  auto &options = cl::getRegisteredOptions();
  for (const char *name : names)
    if (cl::Option *option = options.lookup(name))
      option->addCategory(debugCategory);
}

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<graph file>"),
                               cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFile("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::cat(category));
cl::opt<EmitKind> emitKind(
    "emit", cl::desc("What to produce"), cl::init(EmitKind::Exe),
    cl::values(clEnumValN(EmitKind::Exe, "exe", "an executable (default)"),
               clEnumValN(EmitKind::Lib, "lib",
                          "a shared library and its C header"),
               clEnumValN(EmitKind::Obj, "obj", "an object file"),
               clEnumValN(EmitKind::Mlir, "mlir",
                          "MLIR after --stage (default: llvm)"),
               clEnumValN(EmitKind::LLVM, "llvm", "optimized LLVM IR"),
               clEnumValN(EmitKind::Ptx, "ptx",
                          "the kernels' PTX (--target=nvptx)")),
    cl::cat(category));
enum class Target { Cpu, Nvptx };
cl::opt<Target> target(
    "target", cl::desc("What to compile for"), cl::init(Target::Cpu),
    cl::values(clEnumValN(Target::Cpu, "cpu", "this machine's CPU (default)"),
               clEnumValN(Target::Nvptx, "nvptx", "NVIDIA GPUs")),
    cl::cat(category));
cl::opt<std::string> gpuArch(
    "gpu-arch", cl::desc("With --target=nvptx, the GPU architecture"),
    cl::init("sm_90"), cl::cat(category));
cl::opt<std::string> gpuFeatures(
    "gpu-features",
    cl::desc("With --target=nvptx, PTX features (default: the PTX version "
             "the architecture needs, e.g. +ptx80 for sm_90)"),
    cl::cat(category));
enum class GpuFormatFlag { Auto, Cubin, Ptx, Fatbin };
cl::opt<GpuFormatFlag> gpuFormat(
    "gpu-format",
    cl::desc("With --target=nvptx, how kernels are embedded"),
    cl::init(GpuFormatFlag::Auto),
    cl::values(clEnumValN(GpuFormatFlag::Auto, "auto",
                          "cubin where ptxas is found, else ptx (default)"),
               clEnumValN(GpuFormatFlag::Cubin, "cubin", "needs ptxas"),
               clEnumValN(GpuFormatFlag::Ptx, "ptx",
                          "compiled by the driver at load time"),
               clEnumValN(GpuFormatFlag::Fatbin, "fatbin", "a fat binary")),
    cl::cat(category));
cl::opt<bool> gpuEmulate(
    "gpu-emulate",
    cl::desc("With --target=nvptx, run the kernels on the CPU, one thread "
             "per block (tests the GPU mapping without a GPU)"),
    cl::init(false), cl::Hidden, cl::cat(category));
cl::opt<bool> gpuTensorCores(
    "gpu-tensor-cores",
    cl::desc("With --target=nvptx, compute float16 matrix products on "
             "tensor cores (mma.sync, sm_80 and up); experimental: checked "
             "by the CPU emulation, not yet on a GPU"),
    cl::init(false), cl::cat(category));
cl::opt<bool> gpuTf32(
    "gpu-tf32",
    cl::desc("With --gpu-tensor-cores, compute float32 matrix products on "
             "tensor cores too, as TF32 (operands rounded to 10 bits of "
             "mantissa: faster, about 1e-3 relative error)"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> gpuBlockSize(
    "gpu-block-size", cl::desc("With --target=nvptx, threads per block"),
    cl::init(128), cl::cat(category));
cl::opt<std::string> entryName(
    "entry",
    cl::desc("Function to compile (default: the only public one, or @main)"),
    cl::cat(category));
cl::list<std::string> maxSizes(
    "max-size",
    cl::desc("An upper bound of a dynamic size, NAME=N (e.g. seq=4096; "
             "repeatable): the binary refuses larger inputs, and the "
             "signature and C header record it"),
    cl::value_desc("name=N"), cl::cat(category));
cl::opt<int64_t>
    maxSeq("max-seq",
           cl::desc("Same as --max-size=seq=N (with --kv-cache and no N of its "
                    "own, also the caches' length)"),
           cl::value_desc("N"), cl::cat(category));
cl::opt<std::string> kvCache(
    "kv-cache",
    cl::desc("Compile a decoder exported with past_key_values (each present "
             "output the past input with this call's keys or values "
             "appended) as a step over key/value caches of N positions "
             "(the prompt and the generated tokens together), updated in "
             "place; the executable's --generate runs it. Without =N, the "
             "length is --max-seq's"),
    cl::value_desc("N"), cl::ValueOptional, cl::cat(category));
cl::opt<bool> verbose(
    "verbose",
    cl::desc("Print each stage of the compile and its time (on a terminal "
             "the stages that take a second or more are printed anyway)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> attentionWeights(
    "attention-weights",
    cl::desc("Also compute every attention's weights, which the "
             "executable writes with --dump-attention DIR (heatmaps); the "
             "attentions themselves are compiled as without it"),
    cl::init(false), cl::cat(category));
cl::opt<std::string> weightsFile(
    "weights", cl::desc("safetensors file holding the weight arguments"),
    cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> symbolPrefix(
    "symbol-prefix",
    cl::desc("With --emit=lib or --emit=obj, the prefix of the C names "
             "(<prefix>_<entry>, <prefix>_run, <prefix>_signature; default "
             "tfm), so that several models link into one program"),
    cl::init("tfm"), cl::cat(category));
cl::opt<unsigned> jobs(
    "j",
    cl::desc("Threads for LLVM's optimization and code generation of an "
             "executable or a library (0, the default: this machine's "
             "cores); the binary is the same for any number"),
    cl::Prefix, cl::init(0), cl::cat(category));
cl::opt<unsigned> optLevel("O", cl::desc("Optimization level (0-3)"),
                           cl::Prefix, cl::init(3), cl::cat(category));
cl::opt<std::string> stopAfter(
    "stage",
    cl::desc("With --emit=mlir, the stage after which to stop and print: "
             "graph, linalg, vector, bufferized or llvm for the CPU; graph, "
             "linalg, bufferized, gpu, nvvm or llvm for the GPU"),
    cl::init("llvm"), cl::cat(category));
cl::opt<bool> noFusion(
    "no-fusion",
    cl::desc("Skip the graph optimizer's fusions (to compare with them)"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> attentionQTile(
    "attention-q-tile",
    cl::desc("Query rows per flash-attention tile (default: automatic)"),
    cl::init(0), cl::cat(category));
cl::opt<int64_t> attentionKvTile(
    "attention-kv-tile",
    cl::desc("Keys per flash-attention block (default: automatic)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> noDedup(
    "no-dedup",
    cl::desc("Compile every kernel on its own, even those that are the same "
             "code on other weights (a Transformer's layers; CPU only)"),
    cl::init(false), cl::cat(category));
cl::opt<int64_t> tensorParallel(
    "tensor-parallel",
    cl::desc("Split the model's attention and feed-forward blocks over N "
             "processes (Megatron-LM tensor parallelism on MPI); the "
             "executable runs with `mpirun -np N` (CPU executables only)"),
    cl::value_desc("N"), cl::init(1), cl::cat(category));
cl::opt<bool> profile(
    "profile",
    cl::desc("Time every kernel, so that the executable's --profile prints "
             "where the time goes (CPU only)"),
    cl::init(false), cl::cat(category));
cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU to compile for: native (this machine's, the default), "
                 "avx2, avx512, or an LLVM CPU name (haswell, "
                 "sapphirerapids, ...); the module records it as tfm.target"),
        cl::init("native"), cl::cat(category));
cl::alias mcpu("mcpu", cl::desc("Same as --cpu"), cl::aliasopt(cpu));
cl::opt<std::string> runtimeDir(
    "runtime-dir",
    cl::desc("Directory of libtfm_runtime.a (default: ../lib next to "
             "tfm-compile)"),
    cl::cat(category));

/// The default output name for `input`: its stem, with the kind's suffix.
std::string defaultOutput(StringRef input) {
  StringRef stem = input == "-" ? "a" : llvm::sys::path::stem(input);
  switch (emitKind) {
  case EmitKind::Exe:
    return stem.str();
  case EmitKind::Lib:
    return ("lib" + stem + ".so").str();
  case EmitKind::Obj:
    return (stem + ".o").str();
  case EmitKind::Mlir:
  case EmitKind::LLVM:
  case EmitKind::Ptx:
    return "-";
  }
  return "-";
}

/// Finds one of tfm's runtime archives (libtfm_runtime.a,
/// libtfm_gpu_runtime.a).
std::string findRuntimeArchive(const char *argv0, StringRef name) {
  SmallString<256> dir(runtimeDir);
  if (dir.empty()) {
    std::string exe = llvm::sys::fs::getMainExecutable(
        argv0, reinterpret_cast<void *>(&defaultOutput));
    dir = llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe));
    llvm::sys::path::append(dir, "lib");
  }
  llvm::sys::path::append(dir, name);
  return std::string(dir);
}

/// Writes a text output (tfm-compile writes every output with
/// tfm::writeOutputFile: into a new file renamed over `path`).
LogicalResult writeText(StringRef path, llvm::function_ref<void(raw_ostream &)>
                                            write) {
  std::string error;
  if (failed(tfm::writeOutputFile(
          path, /*executable=*/false,
          [&](llvm::raw_pwrite_stream &os, std::string &) {
            write(os);
            return success();
          },
          error))) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  return success();
}

/// Reports the stages of a compile and their times on stderr, a stage when
/// the next one starts (or `start("")` ends it): every stage with
/// --verbose, and on a terminal those that took a second or more, so that
/// a compile of a minute (ViT-B/16) shows where it is.
class Progress {
public:
  void start(std::string next) {
    auto now = std::chrono::steady_clock::now();
    if (!stage.empty()) {
      double seconds = std::chrono::duration<double>(now - begin).count();
      if (verbose || (seconds >= 1.0 &&
                      llvm::sys::Process::StandardErrIsDisplayed()))
        llvm::errs() << llvm::formatv("tfm-compile: {0}: {1:f1} s\n", stage,
                                      seconds);
    }
    stage = std::move(next);
    begin = now;
  }

private:
  std::string stage;
  std::chrono::steady_clock::time_point begin;
};

int fail(const std::string &message) {
  llvm::errs() << "error: " << message << "\n";
  return 1;
}

LogicalResult reportError(const std::string &message) {
  fail(message);
  return failure();
}

/// Sets the enumerated pipeline option `option` to the value named --stage;
/// fails naming the stages it accepts.
template <typename T>
LogicalResult setStage(mlir::detail::PassOptions::Option<T> &option) {
  auto &parser = option.getParser();
  std::string names;
  for (unsigned i = 0, e = parser.getNumOptions(); i < e; ++i) {
    if (parser.getOption(i) == stopAfter) {
      option = static_cast<const cl::OptionValue<T> &>(
                   parser.getOptionValue(i))
                   .getValue();
      return success();
    }
    names += (i ? "|" : "") + parser.getOption(i).str();
  }
  return reportError("unknown stage '" + stopAfter + "' for --stage (" +
                     names + ")");
}

/// Adds the pipeline for --target and --stage to `pm`, and the C entry
/// points after its last stage, or fails with a diagnostic. The pipelines'
/// options are the ones `tfm-opt --tfm-cpu-pipeline` and
/// `--tfm-gpu-pipeline` parse; this sets them from the flags.
tfm::TfmEmitCInterfaceOptions cInterfaceOptions() {
  tfm::TfmEmitCInterfaceOptions options;
  options.prefix = symbolPrefix;
  return options;
}

LogicalResult buildPipeline(PassManager &pm,
                            const llvm::TargetMachine &machine) {
  bool gpu = target == Target::Nvptx;
  if (emitKind == EmitKind::Ptx && !gpu)
    return reportError("--emit=ptx needs --target=nvptx");
  if (gpuTensorCores && !gpu)
    return reportError("--gpu-tensor-cores needs --target=nvptx");
  if (gpuTf32 && !gpuTensorCores)
    return reportError("--gpu-tf32 needs --gpu-tensor-cores");

  if (!gpu) {
    tfm::CpuPipelineOptions options;
    if (failed(setStage(options.stopAfter)))
      return failure();
    if (options.stopAfter != tfm::CpuStage::LLVM &&
        emitKind != EmitKind::Mlir)
      return reportError("--stage needs --emit=mlir");
    options.fusion = !noFusion;
    tfm::TfmSetCpuTargetOptions targetOptions;
    targetOptions.cpu = cpu;
    pm.addPass(tfm::createTfmSetCpuTarget(targetOptions));
    options.attentionQTile = attentionQTile;
    options.attentionKvTile = attentionKvTile;
    options.profile = profile;
    options.dedupKernels = !noDedup;
    options.tensorParallel = tensorParallel;
    tfm::buildCpuPipeline(pm, options);
    if (options.stopAfter == tfm::CpuStage::LLVM)
      pm.addPass(tfm::createTfmEmitCInterface(cInterfaceOptions()));
    return success();
  }

  if (profile)
    return reportError("--profile is for --target=cpu");
  if (gpuTensorCores && tfm::getComputeCapability(gpuArch) < 80)
    return reportError("--gpu-tensor-cores needs --gpu-arch=sm_80 or newer "
                       "(mma.sync m16n8k16), not " +
                       gpuArch.getValue());
  tfm::GpuPipelineOptions options;
  if (failed(setStage(options.stopAfter)))
    return failure();
  if (options.stopAfter != tfm::GpuStage::LLVM && emitKind != EmitKind::Mlir)
    return reportError("--stage needs --emit=mlir");
  if (emitKind == EmitKind::Ptx)
    options.stopAfter = tfm::GpuStage::Nvvm;
  options.fusion = !noFusion;
  options.chip = gpuArch;
  std::optional<std::string> features =
      gpuFeatures.empty() ? tfm::getDefaultPtxFeatures(gpuArch)
                          : std::optional<std::string>(gpuFeatures);
  if (!features)
    return reportError("unknown GPU architecture '" + gpuArch +
                       "' for --gpu-arch (expected sm_XX, e.g. sm_90 or "
                       "sm_90a)");
  options.features = *features;
  tfm::CudaTools tools = tfm::findCudaTools();
  options.toolkit = tools.prefix;
  options.libdevice = !tools.prefix.empty();
  // Without libdevice, MLIR's NVVM target must not look for one in its
  // default place: an empty CUDA_ROOT tells it there is no toolkit.
  if (!options.libdevice)
    ::setenv("CUDA_ROOT", "", /*overwrite=*/1);
  switch (gpuFormat) {
  case GpuFormatFlag::Auto:
    options.format = tools.hasPtxas ? tfm::GpuFormat::Bin : tfm::GpuFormat::Isa;
    break;
  case GpuFormatFlag::Cubin:
    options.format = tfm::GpuFormat::Bin;
    break;
  case GpuFormatFlag::Ptx:
    options.format = tfm::GpuFormat::Isa;
    break;
  case GpuFormatFlag::Fatbin:
    options.format = tfm::GpuFormat::Fatbin;
    break;
  }
  if (options.format != tfm::GpuFormat::Isa && !tools.hasPtxas)
    return reportError("--gpu-format=" +
                       gpuFormat.getParser()
                           .getOption(static_cast<unsigned>(gpuFormat.getValue()))
                           .str() +
                       " needs ptxas (not found on PATH or under "
                       "/usr/local/cuda)");
  options.optLevel = optLevel;
  options.blockSize = gpuBlockSize;
  options.attentionQTile = attentionQTile;
  options.attentionKvTile = attentionKvTile;
  options.emulate = gpuEmulate;
  options.tensorCores = gpuTensorCores;
  options.tf32 = gpuTf32;
  tfm::buildGpuPipeline(pm, options);
  if (options.stopAfter == tfm::GpuStage::LLVM)
    pm.addPass(tfm::createTfmEmitCInterface(cInterfaceOptions()));
  if (emitKind == EmitKind::Ptx) {
    GpuModuleToBinaryPassOptions ptx;
    ptx.compilationTarget = "isa";
    ptx.toolkitPath = tools.prefix;
    pm.addPass(createGpuModuleToBinaryPass(ptx));
  }
  return success();
}

/// Prints the PTX of every kernel module of `module`.
void printPtx(ModuleOp module, raw_ostream &os) {
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute attr : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(attr);
      os << "// Kernel module @" << binary.getSymName() << " for "
         << object.getTarget() << "\n"
         << object.getObject().getValue() << "\n";
    }
  });
}

/// The caches' length that --kv-cache gives: its N, else --max-seq's; 0
/// where neither gives one (tfm-kv-cache then says that it needs one).
int64_t getCacheLength() {
  int64_t length = 0;
  if (!kvCache.empty())
    (void)StringRef(kvCache).getAsInteger(10, length);
  else if (maxSeq.getNumOccurrences())
    length = maxSeq;
  return length;
}

/// Checks --kv-cache's N; returns the message if it is not a length.
std::string checkCacheLength() {
  int64_t length;
  if (kvCache.empty())
    return "";
  if (StringRef(kvCache).getAsInteger(10, length) || length < 1)
    return "--kv-cache=" + kvCache +
           ": expected the caches' length, a number of positions of at "
           "least 1";
  return "";
}

/// Checks the options that the command line parser accepts but no compile
/// can use; returns the message for the first bad one, or "".
std::string checkOptions() {
  if (symbolPrefix.empty() || symbolPrefix != tfm::sanitizeName(symbolPrefix))
    return "--symbol-prefix=" + symbolPrefix + ": expected a C identifier";
  if (symbolPrefix != "tfm" && emitKind == EmitKind::Exe)
    return "--symbol-prefix is for --emit=lib and --emit=obj: an "
           "executable's runtime calls the tfm_ names";
  // The profiler's table is a fixed-name symbol that only an executable's
  // --profile reads: in a library it would serve no caller and clash with
  // another profiled library's.
  if (profile && (emitKind == EmitKind::Lib || emitKind == EmitKind::Obj))
    return "--profile is for executables (--emit=exe): only their "
           "--profile prints the kernels' times";
  if (std::string bad = checkCacheLength(); !bad.empty())
    return bad;
  if (kvCache.getNumOccurrences() && attentionWeights)
    return "--attention-weights is not for --kv-cache models: a step's "
           "weights span the positions in the caches, a size no input has";
  if (kvCache.getNumOccurrences() && target == Target::Nvptx)
    return "--kv-cache is for --target=cpu for now: the GPU mapping cannot "
           "yet keep the caches' position, which the host reads, off the "
           "device";
  if (tensorParallel < 1)
    return "--tensor-parallel=" + std::to_string(tensorParallel) +
           ": the number of processes is at least 1";
  if (tensorParallel > 1) {
    if (target == Target::Nvptx)
      return "--tensor-parallel is for --target=cpu for now (one process "
             "per GPU with NCCL is docs/distributed.md's plan)";
    if (emitKind == EmitKind::Lib || emitKind == EmitKind::Obj)
      return "--tensor-parallel makes executables (--emit=exe) and IR for "
             "now: a library's callers would have to start MPI themselves";
#ifndef TFM_MPI_LIBRARIES
    if (emitKind == EmitKind::Exe)
      return "--tensor-parallel needs tfm built with Open MPI "
             "(libopenmpi-dev; scripts/setup.sh installs it)";
#endif
  }
  if (optLevel > 3)
    return "-O" + std::to_string(optLevel) +
           ": the optimization level is 0, 1, 2 or 3";
  if (attentionQTile < 0 || attentionKvTile < 0)
    return "--attention-q-tile and --attention-kv-tile take a positive "
           "size, or 0 for the default";
  if (gpuBlockSize < 1 || gpuBlockSize > 1024)
    return "--gpu-block-size=" + std::to_string(gpuBlockSize) +
           ": a block has 1 to 1024 threads";
  if (outputFile != "-") {
    llvm::SmallString<256> dir(outputFile.getValue());
    llvm::sys::path::remove_filename(dir);
    if (!dir.empty() && !llvm::sys::fs::is_directory(dir))
      return "cannot write '" + outputFile + "': '" + std::string(dir) +
             "' is not a directory";
  }
  return "";
}

int compile(const char *argv0, MLIRContext &context, llvm::SourceMgr &sources) {
  // Options first, so that a bad flag is reported before the graph's errors.
  if (std::string bad = checkOptions(); !bad.empty())
    return fail(bad);
  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      tfm::createTargetMachine(cpu, optLevel, error);
  if (!machine)
    return fail(error);
  // The IR work around the pipeline is passes too: `tfm-opt
  // --tfm-bind-weights --tfm-prepare-entry --tfm-cpu-pipeline=...
  // --tfm-emit-c-interface` runs what this runs.
  PassManager pm(&context);
  tfm::TfmBindWeightsOptions weights;
  weights.file = weightsFile;
  weights.entry = entryName;
  pm.addPass(tfm::createTfmBindWeights(weights));
  if (attentionWeights) {
    // After fusion, so that the attentions whose weights are exposed are
    // the fused ones; the pipeline's graph optimizer then has nothing left
    // to fuse.
    tfm::buildGraphOptimizerPipeline(pm, !noFusion);
    pm.addPass(tfm::createTfmExposeAttentionWeights());
  }
  tfm::TfmPrepareEntryOptions entryOptions;
  entryOptions.entry = entryName;
  entryOptions.maxSizes.assign(maxSizes.begin(), maxSizes.end());
  if (kvCache.getNumOccurrences()) {
    // The caches hold --kv-cache=N positions (or --max-seq's), and a call
    // appends at most that many: tfm.kv_cache_append checks it.
    tfm::TfmKvCacheOptions cacheOptions;
    cacheOptions.entry = entryName;
    cacheOptions.maxLen = getCacheLength();
    pm.addPass(tfm::createTfmKvCache(cacheOptions));
  }
  // --max-seq=N is --max-size=seq=N, the one definition: N >= 1, checked
  // by tfm-prepare-entry with the other bounds.
  if (maxSeq.getNumOccurrences())
    entryOptions.maxSizes.push_back("seq=" + std::to_string(maxSeq));
  pm.addPass(tfm::createTfmPrepareEntry(entryOptions));
  if (failed(buildPipeline(pm, *machine)))
    return 1;
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  // --mlir-timing: the passes' times (object emission is not a pass).
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();
  pm.enableTiming(timing);

  Progress progress;
  int exitCode;
  progress.start("reading " + llvm::sys::path::filename(inputFile).str());
  OwningOpRef<ModuleOp> module = tfm::loadInput(sources, &context, exitCode);
  if (!module)
    return exitCode;
  progress.start("the passes (graph optimizer, tiling, vectorization, "
                 "lowering)");
  if (failed(pm.run(*module)))
    return 1;
  progress.start("");

  std::string output =
      outputFile.empty() ? defaultOutput(inputFile) : outputFile.getValue();
  if (emitKind == EmitKind::Mlir)
    return failed(writeText(output, [&](raw_ostream &os) {
             module->print(os);
           }));
  if (emitKind == EmitKind::Ptx)
    return failed(writeText(
        output, [&](raw_ostream &os) { printPtx(*module, os); }));

  llvm::LLVMContext llvmContext;
  bool linked = emitKind == EmitKind::Exe || emitKind == EmitKind::Lib;
  progress.start(linked ? "LLVM IR" : "LLVM IR and its optimization");
  // A binary's weights skip LLVM: they go from their attributes into an
  // object of their own (WeightsObject.h).
  SmallVector<tfm::ExternalWeight> externalWeights;
  if (linked)
    externalWeights =
        tfm::externalizeWeights(*module, machine->getTargetTriple());
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, inputFile);
  if (!llvmModule)
    return fail("cannot translate the lowered module to LLVM IR");
  // An executable's or a library's partitions are optimized with their code
  // generation, on --j threads.
  if (!linked &&
      failed(tfm::optimizeModule(*llvmModule, *machine, optLevel, error)))
    return fail(error);
  progress.start(emitKind == EmitKind::LLVM ? ""
                 : linked ? "optimization and code generation"
                          : "code generation");

  switch (emitKind) {
  case EmitKind::LLVM:
    return failed(writeText(output, [&](raw_ostream &os) {
      llvmModule->print(os, nullptr);
    }));
  case EmitKind::Obj:
    if (failed(tfm::emitObjectFile(*llvmModule, *machine, output, error)))
      return fail(error);
    progress.start("");
    return 0;
  case EmitKind::Exe:
  case EmitKind::Lib: {
    SmallVector<std::string, 2> archives{
        findRuntimeArchive(argv0, "libtfm_runtime.a")};
    if (target == Target::Nvptx && !gpuEmulate)
      archives.push_back(findRuntimeArchive(argv0, "libtfm_gpu_runtime.a"));
    if (tensorParallel > 1)
      archives.push_back(findRuntimeArchive(argv0, "libtfm_mpi_runtime.a"));
    for (const std::string &archive : archives)
      if (!llvm::sys::fs::exists(archive))
        return fail("cannot find the runtime library '" + archive +
                    "' (see --runtime-dir)");
#ifdef TFM_MPI_LIBRARIES
    if (tensorParallel > 1) {
      // Its MPI side whole (nothing in the model calls it; Main.cpp finds
      // it through weak symbols), and Open MPI.
      archives.back() = "-Wl,--whole-archive," + archives.back() +
                        ",--no-whole-archive";
      for (StringRef library : llvm::split(TFM_MPI_LIBRARIES, ';'))
        archives.push_back(library.str());
    }
#endif
    // Object files of the module's partitions, optimized and compiled on
    // --j threads (the optimization above is theirs here).
    SmallVector<std::string> objects;
    llvm::scope_exit removeObjects([&] {
      for (const std::string &object : objects)
        llvm::sys::fs::remove(object);
    });
    if (failed(tfm::compileToObjects(*llvmModule, cpu, optLevel, jobs,
                                     objects, error)))
      return fail(error);
    if (!externalWeights.empty()) {
      SmallString<128> path;
      if (std::error_code ec =
              llvm::sys::fs::createTemporaryFile("tfm-weights", "o", path))
        return fail("cannot create a temporary file: " + ec.message());
      objects.push_back(path.str().str());
      if (failed(tfm::writeWeightsObject(externalWeights, path, error)))
        return fail(error);
    }
    progress.start("linking with the runtime");
    auto kind = emitKind == EmitKind::Exe ? tfm::LinkKind::Executable
                                          : tfm::LinkKind::SharedLibrary;
    // Linked into a temporary file, then renamed or copied: a failed write
    // (a full disk, a device) is tfm-compile's error to report, not the
    // linker's crash, and leaves no half-written binary at `output`.
    SmallString<128> linked;
    if (std::error_code ec = tfm::createOutputTemporary(output, linked))
      return fail("cannot create a temporary file: " + ec.message());
    llvm::FileRemover removeLinked(linked);
    // A library exports its prefix's symbols only; one of a model with
    // key/value caches exports the runtime's generation functions under its
    // prefix too, for its header's prefill and step. tfm-emit-c-interface
    // leaves the signature on the module; a library's header declares it.
    std::optional<tfm::EntrySignature> signature;
    tfm::LibraryExports exports;
    if (emitKind == EmitKind::Lib) {
      FailureOr<tfm::EntrySignature> read = tfm::readEntrySignature(*module);
      if (failed(read))
        return 1;
      signature = std::move(*read);
      exports.pattern = symbolPrefix + "_*";
      if (llvm::any_of(signature->inputs, [](const tfm::TensorSpec &in) {
            return in.role == tfm::TensorSpec::Role::KvCache;
          }))
        for (const std::string &function : tfm::getGenerationFunctions())
          exports.aliases.emplace_back(
              symbolPrefix + function.substr(strlen("tfm")), function);
    }
    if (failed(tfm::linkBinary(kind, objects, archives, linked, error,
                               emitKind == EmitKind::Lib ? &exports
                                                         : nullptr)))
      return fail(error);
    progress.start("");
    // A new file replaces `output`, never written into it: a process that
    // has loaded the library keeps its mapping.
    if (failed(tfm::replaceOutputFile(output, linked, error)))
      return fail(error);
    if (signature) {
      SmallString<128> header(output);
      llvm::sys::path::replace_extension(header, "h");
      if (failed(writeText(header, [&](raw_ostream &os) {
            os << tfm::renderHeader(*signature, inputFile, symbolPrefix);
          })))
        return 1;
    }
    return 0;
  }
  case EmitKind::Mlir:
  case EmitKind::Ptx:
    break;
  }
  return 0;
}

} // namespace

/// A model's weights are copied a few times on their way to the binary
/// (read from the ONNX file, transposed, packed), each time into fresh
/// memory whose 4 KiB pages fault in one by one: a third of a BERT-base
/// compile on a 2-core VM. Transparent huge pages fault in 2 MiB at once;
/// where the kernel grants them on request only, glibc's malloc asks for
/// them when its tunable glibc.malloc.hugetlb=1 is set at start. So for a
/// model whose files hold kHugePagesFrom bytes or more, tfm-compile starts
/// itself again with it set, once, unless the tunable is set already
/// (GLIBC_TUNABLES=glibc.malloc.hugetlb=0 turns this off). A new start
/// costs about 0.1 s (loading LLVM and MLIR again): nothing for such a
/// model, too much for a small graph. If it fails, the compile goes on.
static constexpr uint64_t kHugePagesFrom = 16 << 20;

static void restartWithHugePages(char **argv) {
#if defined(__linux__) && defined(__GLIBC__)
  const char *tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc.hugetlb"))
    return;
  std::string value = "glibc.malloc.hugetlb=1";
  if (tunables && *tunables)
    value = std::string(tunables) + ":" + value;
  if (setenv("GLIBC_TUNABLES", value.c_str(), /*overwrite=*/1) != 0)
    return;
  execv("/proc/self/exe", argv);
#else
  (void)argv;
#endif
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  showDebugOptions();
  cl::HideUnrelatedOptions({&category, &debugCategory});
  cl::ParseCommandLineOptions(argc, argv,
                              "tfm-compile: compile a tfm graph to native code\n");
  uint64_t modelBytes = 0;
  for (const std::string &path :
       {inputFile.getValue(), weightsFile.getValue()}) {
    uint64_t size = 0;
    if (!path.empty() && path != "-" && !llvm::sys::fs::file_size(path, size))
      modelBytes += size;
  }
  if (modelBytes >= kHugePagesFrom)
    restartWithHugePages(argv);

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<tfm::TfmDialect>();
  tfm::registerCollectiveInterfaces(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A diagnostic names its op's location; printing the op too would dump a
  // whole function, weights included, for an error at a function
  // (--mlir-print-op-on-diagnostic brings it back).
  auto &options = llvm::cl::getRegisteredOptions();
  if (auto it = options.find("mlir-print-op-on-diagnostic");
      it == options.end() || it->second->getNumOccurrences() == 0)
    context.printOpOnDiagnostic(false);

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sources, &context);
  return compile(argv[0], context, sources);
}
