//===- Collectives.cpp - MPI collectives after convert-shard-to-mpi -------===//
//
// What tfm adds to upstream's lowering of `shard` collectives to the MPI
// dialect (convert-shard-to-mpi) for tensor-parallel models:
//
// - the memory effects of `mpi.allreduce` (it reads its send buffer and
//   writes its receive buffer), which the MPI dialect does not declare and
//   without which buffer deallocation refuses the op;
// - `tfm-fix-openmpi-op-symbols`: MLIR 22's lowering of the MPI dialect
//   names Open MPI's predefined reduction ops `ompi_mpi_sum` and so on,
//   symbols that libmpi does not define: MPI_SUM is `&ompi_mpi_op_sum`.
// - `tfm-simplify-mpi-comms`: convert-shard-to-mpi gives every collective a
//   communicator of its own (`mpi.comm_split`, itself a collective, and one
//   more communicator per call that is never freed); on a 1-D grid of all
//   ranks that split is MPI_COMM_WORLD again, and the pass uses it instead;
//   it also drops the grids that no collective names any more;
// - `tfm-lower-dynamic-all-reduces`: convert-shard-to-mpi sizes the buffer
//   of an all-reduce of dynamic shape with `memref.dim` of a bogus index
//   (the dynamic-size marker), which allocates garbage; tfm lowers those
//   all-reduces itself, before it.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <numeric>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFIXOPENMPIOPSYMBOLS
#define GEN_PASS_DEF_TFMLOWERDYNAMICALLREDUCES
#define GEN_PASS_DEF_TFMSIMPLIFYMPICOMMS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The communication itself, ordered with every other collective.
struct CommunicationResource
    : public SideEffects::Resource::Base<CommunicationResource> {
  StringRef getName() final { return "MPICommunication"; }
};

struct AllReduceEffects
    : public MemoryEffectOpInterface::ExternalModel<AllReduceEffects,
                                                    mpi::AllReduceOp> {
  void getEffects(Operation *op,
                  SmallVectorImpl<SideEffects::EffectInstance<
                      MemoryEffects::Effect>> &effects) const {
    auto allReduce = cast<mpi::AllReduceOp>(op);
    effects.emplace_back(MemoryEffects::Read::get(),
                         &allReduce.getSendbufMutable(),
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(),
                         &allReduce.getRecvbufMutable(),
                         SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(),
                         CommunicationResource::get());
  }
};

/// `value` without index casts and without a remainder by `ranks` (the
/// rank in a grid of `ranks` is below it already).
Value stripRankArithmetic(Value value, int64_t ranks) {
  while (Operation *def = value.getDefiningOp()) {
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    if (auto rem = dyn_cast<arith::RemSIOp>(def)) {
      APInt divisor;
      if (!matchPattern(rem.getRhs(), m_ConstantInt(&divisor)) ||
          divisor != ranks)
        break;
      value = rem.getLhs();
      continue;
    }
    break;
  }
  return value;
}

struct TfmSimplifyMpiComms
    : public tfm::impl::TfmSimplifyMpiCommsBase<TfmSimplifyMpiComms> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<mpi::CommSplitOp> splits;
    getOperation()->walk([&](mpi::CommSplitOp split) {
      // One color for every rank, keys in rank order: the same group in
      // the same order as the communicator split.
      if (!matchPattern(split.getColor(), m_Constant()))
        return;
      auto rank = stripRankArithmetic(split.getKey(), ranks)
                      .getDefiningOp<mpi::CommRankOp>();
      // Both of MPI_COMM_WORLD (convert-shard-to-mpi creates it anew for
      // each use).
      if (!rank || !rank.getComm().getDefiningOp<mpi::CommWorldOp>() ||
          !split.getComm().getDefiningOp<mpi::CommWorldOp>() ||
          (split.getRetval() && !split.getRetval().use_empty()))
        return;
      splits.push_back(split);
    });
    for (mpi::CommSplitOp split : splits) {
      split.getNewcomm().replaceAllUsesWith(split.getComm());
      Operation *key = split.getKey().getDefiningOp();
      split.erase();
      // The rank arithmetic that computed the key, and the MPI_Comm_rank
      // call (which declares no effects, so nothing else removes it).
      while (key && key->use_empty()) {
        // The value the arithmetic started from (stripRankArithmetic's).
        Operation *next = key->getNumOperands() > 0
                              ? key->getOperand(0).getDefiningOp()
                              : nullptr;
        if (!isOpTriviallyDead(key) && !isa<mpi::CommRankOp>(key))
          break;
        key->erase();
        key = next;
      }
    }
    // The grids that no collective names any more: LLVM has no use for
    // them (and no translation).
    Operation *root = getOperation();
    SmallVector<shard::GridOp> grids;
    root->walk([&](shard::GridOp grid) { grids.push_back(grid); });
    for (shard::GridOp grid : grids)
      if (SymbolTable::symbolKnownUseEmpty(grid, root))
        grid.erase();
  }
};

struct TfmLowerDynamicAllReduces
    : public tfm::impl::TfmLowerDynamicAllReducesBase<
          TfmLowerDynamicAllReduces> {
  void runOnOperation() override {
    SmallVector<shard::AllReduceOp> allReduces;
    getOperation()->walk([&](shard::AllReduceOp op) {
      auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
      if (type && !type.hasStaticShape())
        allReduces.push_back(op);
    });
    SymbolTableCollection symbols;
    for (shard::AllReduceOp op : allReduces) {
      // A sum over every rank of a 1-D grid: the world's.
      auto grid = symbols.lookupNearestSymbolFrom<shard::GridOp>(
          op, op.getGridAttr());
      if (!grid || grid.getRank() != 1 || op.getGridAxes().size() != 1 ||
          op.getReduction() != shard::ReductionKind::Sum ||
          op.getType() != op.getInput().getType()) {
        op.emitError("tfm lowers all-reduces of dynamic shape only as sums "
                     "of one type over every rank of a 1-D grid");
        return signalPassFailure();
      }
      // The sum lands in a buffer of its own, which MPI sums in place.
      OpBuilder b(op);
      Location loc = op.getLoc();
      auto type = cast<RankedTensorType>(op.getInput().getType());
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      SmallVector<Value> sizes;
      for (int64_t d = 0, e = type.getRank(); d < e; ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(tensor::DimOp::create(b, loc, op.getInput(), d));
      Value input = bufferization::ToBufferOp::create(
          b, loc, memrefType, op.getInput(), /*readOnly=*/true);
      Value buffer = memref::AllocOp::create(b, loc, memrefType, sizes);
      memref::CopyOp::create(b, loc, input, buffer);
      ReassociationIndices all(type.getRank());
      std::iota(all.begin(), all.end(), 0);
      Value flat = memref::CollapseShapeOp::create(
          b, loc, buffer, ArrayRef<ReassociationIndices>{all});
      Value world =
          mpi::CommWorldOp::create(b, loc, mpi::CommType::get(b.getContext()));
      mpi::AllReduceOp::create(
          b, loc, TypeRange(), flat, flat,
          mpi::MPI_ReductionOpEnumAttr::get(b.getContext(),
                                            mpi::MPI_ReductionOpEnum::MPI_SUM),
          world);
      op.getResult().replaceAllUsesWith(bufferization::ToTensorOp::create(
          b, loc, type, buffer, /*restrict=*/true));
      op.erase();
    }
  }
};

struct TfmFixOpenMpiOpSymbols
    : public tfm::impl::TfmFixOpenMpiOpSymbolsBase<TfmFixOpenMpiOpSymbols> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Open MPI's predefined MPI_Op objects (mpi.h: MPI_SUM is
    // OMPI_PREDEFINED_GLOBAL(MPI_Op, ompi_mpi_op_sum)).
    static constexpr StringLiteral kOps[] = {
        "band", "bor",    "bxor", "land", "lor",  "lxor",    "max",
        "maxloc", "min", "minloc", "no_op", "prod", "replace", "sum"};
    for (StringRef op : kOps) {
      std::string wrong = ("ompi_mpi_" + op).str();
      auto global = module.lookupSymbol<LLVM::GlobalOp>(wrong);
      if (!global)
        continue;
      std::string right = ("ompi_mpi_op_" + op).str();
      if (module.lookupSymbol(right)) {
        global.emitError() << "both @" << wrong << " and @" << right
                           << " are defined";
        return signalPassFailure();
      }
      if (failed(SymbolTable::replaceAllSymbolUses(
              global, StringAttr::get(&getContext(), right), module)))
        return signalPassFailure();
      global.setSymName(right);
    }
  }
};

} // namespace

void mlir::tfm::registerCollectiveInterfaces(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, mpi::MPIDialect *) {
    mpi::AllReduceOp::attachInterface<AllReduceEffects>(*ctx);
  });
}
