//===- Backend.cpp - Object code and linking ------------------------------===//

#include "tfm/Target/Native/Backend.h"
#include "tfm/Target/Native/WeightsObject.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Transforms/Utils/SplitModule.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SwapByteOrder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <unistd.h>

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

  std::string cpuName = cpu == "avx2"     ? "x86-64-v3"
                        : cpu == "avx512" ? "x86-64-v4"
                                          : cpu.str();
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

CpuTargetAttr describeCpu(MLIRContext *context,
                          const llvm::TargetMachine &machine, bool host) {
  const llvm::MCSubtargetInfo *info = machine.getMCSubtargetInfo();
  StringRef isa = info->checkFeatures("+avx512f") ? "avx512"
                  : info->checkFeatures("+avx2") ? "avx2"
                  : info->checkFeatures("+avx")  ? "avx"
                                                 : "sse";
  SmallVector<StringRef> features;
  for (StringRef feature : {"fma", "avx2", "avx512f", "avx512vnni",
                            "avx512bf16", "avxvnni", "amx-tile"})
    if (info->checkFeatures(("+" + feature).str()))
      features.push_back(feature);
  CpuTargetAttr typical = CpuTargetAttr::getTypical(
      context, machine.getTargetCPU(), isa, features);
  if (!host)
    return typical;
  // The host's caches, as the OS reports them.
  auto read = [](int name, int64_t fallback) {
    long value = sysconf(name);
    return value > 0 ? static_cast<int64_t>(value) : fallback;
  };
  return CpuTargetAttr::get(
      context, typical.getName(), isa, typical.getVectorBits(),
      typical.getVectorRegisters(), typical.getFeatures(),
      read(_SC_LEVEL1_DCACHE_SIZE, typical.getL1Bytes()),
      read(_SC_LEVEL2_CACHE_SIZE, typical.getL2Bytes()),
      read(_SC_LEVEL3_CACHE_SIZE, typical.getL3Bytes()));
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

/// Flushes `os` and turns an error it met (a full disk) into `error`.
static LogicalResult checkStream(llvm::raw_fd_ostream &os, StringRef path,
                                 std::string &error) {
  os.flush();
  if (std::error_code ec = os.error()) {
    // Cleared: LLVM ends the process if a stream dies with an error unseen.
    os.clear_error();
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  return success();
}

/// The file that writing the output `path` replaces: a symbolic link stays
/// one, and the file it names is replaced.
static SmallString<256> resolveOutput(StringRef path) {
  SmallString<256> target(path);
  if (llvm::sys::fs::is_symlink_file(path)) {
    SmallString<256> real;
    if (!llvm::sys::fs::real_path(path, real))
      target = real;
  }
  return target;
}

LogicalResult writeOutputFile(
    StringRef path, bool executable,
    function_ref<LogicalResult(llvm::raw_pwrite_stream &, std::string &)>
        write,
    std::string &error) {
  namespace fs = llvm::sys::fs;
  if (path == "-") {
    if (failed(write(llvm::outs(), error)))
      return failure();
    return checkStream(llvm::outs(), path, error);
  }
  SmallString<256> target = resolveOutput(path);
  fs::file_status status;
  if (!fs::status(target, status) && !fs::is_regular_file(status)) {
    // A device or a pipe: there is nothing to rename over.
    std::error_code ec;
    llvm::raw_fd_ostream os(target, ec, fs::OF_None);
    if (ec) {
      error = "cannot write '" + path.str() + "': " + ec.message();
      return failure();
    }
    if (failed(write(os, error)))
      return failure();
    return checkStream(os, path, error);
  }
  // Writing into the existing file would change the pages of every
  // process that maps it (a Python process that loaded the library): the
  // new file replaces it instead, in one rename.
  llvm::Expected<fs::TempFile> temp =
      fs::TempFile::create(target + ".tmp-%%%%%%");
  if (!temp) {
    error = "cannot write '" + path.str() +
            "': " + llvm::toString(temp.takeError());
    return failure();
  }
  auto discard = [&]() {
    llvm::consumeError(temp->discard());
    return failure();
  };
  {
    llvm::raw_fd_ostream os(temp->FD, /*shouldClose=*/false);
    if (failed(write(os, error)))
      return discard();
    if (failed(checkStream(os, path, error)))
      return discard();
  }
  if (executable)
    if (std::error_code ec = fs::setPermissions(
            temp->FD, fs::all_read | fs::all_exe | fs::owner_write)) {
      error = "cannot make '" + path.str() + "' executable: " + ec.message();
      return discard();
    }
  // keep() removes the temporary file if the rename fails.
  if (llvm::Error err = temp->keep(target)) {
    error = "cannot write '" + path.str() +
            "': " + llvm::toString(std::move(err));
    return failure();
  }
  return success();
}

std::error_code createOutputTemporary(StringRef path,
                                      SmallVectorImpl<char> &temporary) {
  namespace fs = llvm::sys::fs;
  temporary.clear();
  fs::file_status status;
  std::error_code ec;
  if (path != "-" &&
      (fs::status(path, status) || fs::is_regular_file(status)))
    ec = fs::createUniqueFile(path + ".link-%%%%%%", temporary);
  if (temporary.empty() || ec)
    ec = fs::createTemporaryFile("tfm", "bin", temporary);
  return ec;
}

LogicalResult replaceOutputFile(StringRef path, StringRef from,
                                std::string &error) {
  namespace fs = llvm::sys::fs;
  if (path != "-") {
    SmallString<256> target = resolveOutput(path);
    fs::file_status status;
    bool regular = fs::status(target, status) || fs::is_regular_file(status);
    if (regular &&
        !fs::setPermissions(from, fs::all_read | fs::all_exe |
                                      fs::owner_write) &&
        !fs::rename(from, target))
      return success();
  }
  auto contents = llvm::MemoryBuffer::getFile(from, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  if (!contents) {
    error = "cannot read '" + from.str() +
            "': " + contents.getError().message();
    return failure();
  }
  return writeOutputFile(
      path, /*executable=*/true,
      [&](llvm::raw_pwrite_stream &os, std::string &) {
        os << (*contents)->getBuffer();
        return success();
      },
      error);
}

/// Appends the bytes of `constant` as the target lays them out in memory to
/// `bytes`: arrays (nested or not) of integers or floats whose elements
/// have no padding. False for anything else.
static bool appendBytes(const llvm::Constant *constant,
                        const llvm::DataLayout &layout, std::string &bytes) {
  llvm::Type *type = constant->getType();
  if (auto *data = dyn_cast<llvm::ConstantDataSequential>(constant)) {
    llvm::Type *element = data->getElementType();
    if (layout.getTypeAllocSize(element) != layout.getTypeStoreSize(element))
      return false;
    bytes += data->getRawDataValues();
    return true;
  }
  if (auto *array = dyn_cast<llvm::ConstantArray>(constant)) {
    for (const llvm::Use &element : array->operands())
      if (!appendBytes(cast<llvm::Constant>(element.get()), layout, bytes))
        return false;
    return true;
  }
  if (isa<llvm::ConstantAggregateZero>(constant) && type->isArrayTy()) {
    bytes.append(layout.getTypeAllocSize(type), '\0');
    return true;
  }
  return false;
}

/// Gives the weights of `module` (its large constant globals) arrays of
/// bytes as initializers, defined in `into`: `module` itself, or a module
/// of the same context that then holds them alone, `module` keeping
/// declarations. LLVM's printer emits an array of floats one element at a
/// time (ViT-B/16's 86 million: about half of its compile), an array of
/// bytes as one block; and weights apart need no optimization and none of
/// the bitcode that carries the partitions to their threads. Returns
/// whether `module` had any.
static bool storeWeightsAsBytes(llvm::Module &module, llvm::Module &into) {
  const llvm::DataLayout &layout = module.getDataLayout();
  // The bytes are the host's; the data layout, the target's.
  if (layout.isLittleEndian() != llvm::sys::IsLittleEndianHost)
    return false;
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *byte = llvm::Type::getInt8Ty(context);
  // The globals first: the definitions made below may join them.
  SmallVector<llvm::GlobalVariable *> weights;
  for (llvm::GlobalVariable &global : module.globals())
    if (global.isConstant() && global.hasInitializer() &&
        !global.isThreadLocal() &&
        layout.getTypeAllocSize(global.getValueType()) >= kWeightBytes)
      weights.push_back(&global);
  bool any = false;
  for (llvm::GlobalVariable *weight : weights) {
    llvm::GlobalVariable &global = *weight;
    std::string bytes;
    if (!appendBytes(global.getInitializer(), layout, bytes))
      continue;
    any = true;
    llvm::Align align = layout.getPreferredAlign(&global);
    auto *type = llvm::ArrayType::get(byte, bytes.size());
    std::string name = global.getName().str();
    global.setName(name + ".bytes");
    bool apart = &into != &module;
    auto *definition = new llvm::GlobalVariable(
        into, type, /*isConstant=*/true,
        apart ? llvm::GlobalValue::ExternalLinkage : global.getLinkage(),
        llvm::ConstantDataArray::getRaw(bytes, bytes.size(), byte), name);
    llvm::GlobalVariable *replacement = definition;
    if (apart) {
      replacement = new llvm::GlobalVariable(
          module, type, /*isConstant=*/true,
          llvm::GlobalValue::ExternalLinkage, /*Initializer=*/nullptr, name);
      // Seen by the binary's other objects only, not exported.
      for (llvm::GlobalVariable *g : {definition, replacement}) {
        g->setVisibility(llvm::GlobalValue::HiddenVisibility);
        g->setDSOLocal(true);
      }
    } else {
      definition->copyAttributesFrom(&global);
    }
    definition->setAlignment(align);
    replacement->setAlignment(align);
    global.replaceAllUsesWith(replacement);
    global.eraseFromParent();
  }
  return any;
}

/// Compiles `module` with `machine` into object code on `os`.
static LogicalResult emitObjectCode(llvm::Module &module,
                                    llvm::TargetMachine &machine,
                                    llvm::raw_pwrite_stream &os,
                                    std::string &error) {
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(module);
  return success();
}

LogicalResult emitObjectFile(llvm::Module &module,
                             llvm::TargetMachine &machine, StringRef path,
                             std::string &error) {
  storeWeightsAsBytes(module, module);
  return writeOutputFile(
      path, /*executable=*/false,
      [&](llvm::raw_pwrite_stream &os, std::string &error) {
        return emitObjectCode(module, machine, os, error);
      },
      error);
}

/// Optimizes `module` with a target machine of its own for `cpu` and
/// appends its object code to `code`.
static LogicalResult compilePartition(llvm::Module &module, StringRef cpu,
                                      unsigned optLevel,
                                      SmallVectorImpl<char> &code,
                                      std::string &error) {
  std::unique_ptr<llvm::TargetMachine> machine =
      createTargetMachine(cpu, optLevel, error);
  if (!machine || failed(optimizeModule(module, *machine, optLevel, error)))
    return failure();
  llvm::raw_svector_ostream os(code);
  return emitObjectCode(module, *machine, os, error);
}

/// The partitions of a module that compileToObjects compiles: a constant,
/// so that the objects, and the binary, are the same for any number of
/// threads; more than the threads of a usual machine, so that the threads
/// end together.
static constexpr unsigned kPartitions = 16;

LogicalResult compileToObjects(llvm::Module &module, StringRef cpu,
                               unsigned optLevel, unsigned jobs,
                               SmallVectorImpl<std::string> &objects,
                               std::string &error) {
  auto weights = std::make_unique<llvm::Module>("weights", module.getContext());
  weights->setDataLayout(module.getDataLayout());
  weights->setTargetTriple(module.getTargetTriple());
  if (!storeWeightsAsBytes(module, *weights))
    weights.reset();
  // The partitions, as bitcode: each thread reads its own into a context
  // of its own (an LLVMContext is not shared between threads).
  SmallVector<SmallString<0>> bitcode;
  llvm::SplitModule(module, kPartitions,
                    [&](std::unique_ptr<llvm::Module> part) {
                      llvm::raw_svector_ostream os(bitcode.emplace_back());
                      llvm::WriteBitcodeToFile(*part, os);
                    });
  // The weights' object last, compiled in `module`'s context, which no
  // other thread uses.
  SmallVector<SmallString<0>> code(bitcode.size() + (weights ? 1 : 0));
  SmallVector<std::string> errors(code.size());
  {
    // 0: the cores this process may run on.
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(jobs));
    if (weights)
      pool.async([&] {
        std::unique_ptr<llvm::TargetMachine> machine =
            createTargetMachine(cpu, optLevel, errors.back());
        if (!machine)
          return;
        llvm::raw_svector_ostream os(code.back());
        (void)emitObjectCode(*weights, *machine, os, errors.back());
      });
    for (size_t i = 0; i < bitcode.size(); ++i)
      pool.async([&, i] {
        llvm::LLVMContext context;
        llvm::Expected<std::unique_ptr<llvm::Module>> part =
            llvm::parseBitcodeFile(
                llvm::MemoryBufferRef(bitcode[i], "partition"), context);
        if (!part) {
          errors[i] = llvm::toString(part.takeError());
          return;
        }
        // Read: its weights live in the partition's context now.
        bitcode[i] = SmallString<0>();
        (void)compilePartition(**part, cpu, optLevel, code[i], errors[i]);
      });
    pool.wait();
  }
  for (const std::string &partError : errors)
    if (!partError.empty()) {
      error = partError;
      return failure();
    }
  for (const SmallString<0> &object : code) {
    SmallString<128> path;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("tfm", "o", path)) {
      error = "cannot create a temporary file: " + ec.message();
      return failure();
    }
    objects.push_back(path.str().str());
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    os << object.str();
    os.close();
    if (ec || os.has_error()) {
      error = "cannot write '" + path.str().str() + "'";
      return failure();
    }
  }
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

LogicalResult linkBinary(LinkKind kind, ArrayRef<std::string> objects,
                         ArrayRef<std::string> runtimeArchives,
                         StringRef output, std::string &error,
                         const LibraryExports *exports) {
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
  for (const std::string &object : objects)
    args.push_back(object);
  SmallVector<std::string> flags;
  SmallString<128> versionScript;
  std::optional<llvm::FileRemover> removeScript;
  if (kind == LinkKind::SharedLibrary && exports) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "tfm-exports", "map", versionScript)) {
      error = "cannot create a temporary file: " + ec.message();
      return failure();
    }
    removeScript.emplace(versionScript);
    std::string text = "{\n  global: " + exports->pattern + ";\n";
    for (const auto &[name, target] : exports->aliases) {
      flags.push_back("-Wl,--undefined=" + target);
      if (name != target) {
        flags.push_back("-Wl,--defsym=" + name + "=" + target);
        text += "    " + name + ";\n";
      }
    }
    text += "  local: *;\n};\n";
    std::error_code ec;
    llvm::raw_fd_ostream os(versionScript, ec);
    os << text;
    os.close();
    if (ec || os.has_error()) {
      error = "cannot write the version script '" + versionScript.str().str() +
              "'";
      return failure();
    }
    flags.push_back(("-Wl,--version-script=" + versionScript).str());
  }
  for (const std::string &flag : flags)
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
