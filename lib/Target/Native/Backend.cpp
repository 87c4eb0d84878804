//===- Backend.cpp - Object code and linking ------------------------------===//

#include "tfm/Target/Native/Backend.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;

namespace mlir {
namespace tfm {

std::unique_ptr<llvm::TargetMachine>
createTargetMachine(StringRef cpu, unsigned optLevel, std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;

  std::string cpuName = cpu.str();
  llvm::SubtargetFeatures features;
  if (cpu == "native") {
    cpuName = llvm::sys::getHostCPUName().str();
    for (const auto &[feature, enabled] : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature, enabled);
  }
  auto level = static_cast<llvm::CodeGenOptLevel>(std::min(optLevel, 3u));
  llvm::TargetOptions options;
  // Contract a multiply and an add into one FMA, as clang's -ffp-contract
  // does for C: the vectorized products are written as mulf + addf.
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, features.getString(), options,
      llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine) {
    error = "cannot create a target machine for " + triple.str() + " / " +
            cpuName;
    return nullptr;
  }
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpuName)) {
    error = "unknown CPU '" + cpuName + "' for " + triple.str();
    return nullptr;
  }
  return machine;
}

unsigned getVectorWidthBits(const llvm::TargetMachine &machine) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  if (info->checkFeatures("+avx512f"))
    return 512;
  if (info->checkFeatures("+avx"))
    return 256;
  return 128;
}

LogicalResult optimizeModule(llvm::Module &module,
                             llvm::TargetMachine &machine, unsigned optLevel,
                             std::string &error) {
  module.setDataLayout(machine.createDataLayout());
  module.setTargetTriple(machine.getTargetTriple());
  auto transformer =
      makeOptimizingTransformer(std::min(optLevel, 3u), 0, &machine);
  if (llvm::Error err = transformer(&module)) {
    error = llvm::toString(std::move(err));
    return failure();
  }
  return success();
}

LogicalResult emitObjectFile(llvm::Module &module,
                             llvm::TargetMachine &machine, StringRef path,
                             std::string &error) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, out.os(), nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(module);
  out.os().flush();
  if (std::error_code ec = out.os().error()) {
    out.os().clear_error();
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  out.keep();
  return success();
}

/// Finds clang++ for LLVM 22: on PATH, then in LLVM's own bin directory.
static std::string findClang() {
  for (StringRef name : {"clang++-22", "clang++"}) {
    if (auto path = llvm::sys::findProgramByName(name))
      if (name != "clang++" || llvm::sys::fs::exists(*path))
        return *path;
  }
  if (auto path = llvm::sys::findProgramByName(
          "clang++", {"/usr/lib/llvm-22/bin"}))
    return *path;
  return "";
}

LogicalResult linkBinary(LinkKind kind, StringRef object,
                         ArrayRef<std::string> runtimeArchives,
                         StringRef output, std::string &error,
                         ArrayRef<std::string> keepSymbols) {
  std::string clang = findClang();
  if (clang.empty()) {
    error = "cannot find clang++ to link with (install clang-22)";
    return failure();
  }
  // -fopenmp links libomp, which runs the parallel loops.
  SmallVector<StringRef> args{clang, "-fuse-ld=lld", "-fopenmp=libomp"};
  if (kind == LinkKind::SharedLibrary)
    args.push_back("-shared");
#ifdef TFM_LINK_SANITIZERS
  args.push_back(TFM_LINK_SANITIZERS);
#endif
  args.push_back(object);
  SmallVector<std::string> keep;
  for (const std::string &symbol : keepSymbols)
    keep.push_back("-Wl,--undefined=" + symbol);
  for (const std::string &flag : keep)
    args.push_back(flag);
  for (const std::string &archive : runtimeArchives)
    args.push_back(archive);
  // -ldl: the GPU runtime loads the CUDA driver with dlopen.
  args.append({"-lm", "-ldl", "-o", output});
  int status = llvm::sys::ExecuteAndWait(clang, args, std::nullopt, {}, 0, 0,
                                         &error);
  if (status != 0) {
    if (error.empty())
      error = "linking failed (" + clang + " exited with " +
              std::to_string(status) + ")";
    return failure();
  }
  return success();
}

CudaTools findCudaTools() {
  CudaTools tools;
  // The toolkit: the first of these that holds libdevice.
  SmallVector<std::string, 4> prefixes;
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(variable); value && *value)
      prefixes.push_back(value);
  prefixes.push_back("/usr/local/cuda");
  // ptxas on PATH may be the toolkit's (or a wrapper script elsewhere).
  llvm::ErrorOr<std::string> ptxasOnPath =
      llvm::sys::findProgramByName("ptxas");
  if (ptxasOnPath) {
    SmallString<256> real;
    if (!llvm::sys::fs::real_path(*ptxasOnPath, real))
      prefixes.push_back(
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
              .str());
  }
  for (const std::string &prefix : prefixes) {
    SmallString<256> libdevice(prefix);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice",
                            "libdevice.10.bc");
    if (llvm::sys::fs::is_regular_file(libdevice)) {
      tools.prefix = prefix;
      break;
    }
  }
  tools.hasPtxas = static_cast<bool>(ptxasOnPath);
  if (!tools.hasPtxas && !tools.prefix.empty()) {
    SmallString<256> ptxas(tools.prefix);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    tools.hasPtxas = llvm::sys::fs::can_execute(ptxas);
  }
  return tools;
}

std::optional<std::string> getDefaultPtxFeatures(StringRef arch) {
  // sm_<major><minor>[a|f]
  StringRef digits = arch;
  if (!digits.consume_front("sm_"))
    return std::nullopt;
  if (digits.ends_with("a") || digits.ends_with("f"))
    digits = digits.drop_back();
  unsigned version = 0;
  if (digits.size() < 2 || digits.getAsInteger(10, version))
    return std::nullopt;
  // The first PTX ISA version that knows each architecture.
  if (version >= 120)
    return std::string("+ptx87");
  if (version >= 100)
    return std::string("+ptx86");
  if (version >= 90)
    return std::string("+ptx80");
  if (version >= 89)
    return std::string("+ptx78");
  if (version >= 86)
    return std::string("+ptx71");
  if (version >= 75)
    return std::string("+ptx70");
  return std::nullopt;
}

} // namespace tfm
} // namespace mlir
