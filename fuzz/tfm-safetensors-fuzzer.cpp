//===- tfm-safetensors-fuzzer.cpp - libFuzzer target for --weights --------===//
//
// Feeds arbitrary bytes, as a safetensors file, to bindWeights on an entry
// with weights of every element type the reader knows. Every input must bind
// or give a diagnostic; a bound entry must verify and have no weight
// arguments left.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "tfm/Target/Native/Weights.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;

static const char *const kEntry = R"mlir(
func.func @main(%x: tensor<2xf32>,
                %w: tensor<2x3xf32> {tfm.weight = "w"},
                %h: tensor<4xf16> {tfm.weight = "h"},
                %g: tensor<4xbf16> {tfm.weight = "g"},
                %i: tensor<1x2x1xi32> {tfm.weight = "i"},
                %l: tensor<3xi64> {tfm.weight = "l"},
                %s: tensor<f32> {tfm.weight = "s"}) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
)mlir";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string &path =
      ::tfm::fuzz::writeInputFile(data, size, ".safetensors");
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  bool diagnosed = false;
  ScopedDiagnosticHandler quiet(&context, [&](Diagnostic &) {
    diagnosed = true;
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kEntry, &context, "entry.mlir");
  if (!module)
    std::abort();
  auto entry = cast<func::FuncOp>(module->getBody()->front());
  if (failed(mlir::tfm::bindWeights(entry, path))) {
    if (!diagnosed)
      std::abort(); // failed without a message
    return 0;
  }
  if (entry.getNumArguments() != 1 || failed(verify(*module)))
    std::abort();
  return 0;
}
