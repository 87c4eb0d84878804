//===- WarpMma.cpp - A block tile's product on tensor cores ---------------===//
//
// The tensor-core path of `tfm-map-to-gpu` (see WarpMma.h). Two halves that
// must not share their reading of the PTX ISA:
//
//   - the code generator places each element of a lane's fragments
//     (getFragmentElement: register r, element e -> row and column of the
//     instruction's tile) and loads and stores them, or, for operands in
//     shared memory, points each lane at the row of an 8 x 8 matrix that
//     `ldmatrix` reads for the warp (getMatrixRowStart);
//   - the CPU emulation of the instructions finds each element of the A,
//     B and C tiles in the lanes' registers from the ISA's own statement
//     of the layouts (emulateMmaSync: which lane, which a_i / b_i / c_i,
//     the inverse map written independently), and gives each lane the
//     elements of the rows the lanes point at as the ISA says ldmatrix
//     does (emulateLdmatrix).
//
// So a fragment element put in the wrong register, lane or position, or a
// lane pointing at the wrong row, makes the emulated product wrong, and
// the numerics tests fail on the CPU.
//
// The file stays whole (about 900 lines) because both emitters, the GPU's
// and the emulation's, run the same fragment loads and stores
// (FragmentAccess); the emulation's reading of the ISA is its own section.
//
//===----------------------------------------------------------------------===//

#include "WarpMma.h"

#include "SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

constexpr int64_t kWarpLanes = 32;

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Index arithmetic with constant operands, for the lane and layout
/// formulas below.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value c(int64_t value) const { return constantIndex(b, loc, value); }
  Value mod(Value x, int64_t y) const {
    return arith::RemUIOp::create(b, loc, x, c(y));
  }
  Value div(Value x, int64_t y) const {
    return arith::DivUIOp::create(b, loc, x, c(y));
  }
  Value mul(Value x, int64_t y) const {
    return arith::MulIOp::create(b, loc, x, c(y));
  }
  Value add(Value x, Value y) const {
    return arith::AddIOp::create(b, loc, x, y);
  }
};

/// A loop from 0 to `extent` at `b`'s insertion point, `body` building
/// inside it (the insertion point is restored after).
void forRange(OpBuilder &b, Location loc, int64_t extent,
              function_ref<void(Value)> body) {
  auto loop = scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                                 constantIndex(b, loc, extent),
                                 constantIndex(b, loc, 1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  body(loop.getInductionVar());
}

Value addConstant(OpBuilder &b, Location loc, Value value, int64_t constant) {
  if (constant == 0)
    return value;
  return arith::AddIOp::create(b, loc, value, constantIndex(b, loc, constant));
}

//===----------------------------------------------------------------------===//
// The code generator's side: fragments as nvgpu.mma.sync holds them
//===----------------------------------------------------------------------===//

/// The three operands of the instruction.
enum class Operand { A, B, C };

/// A lane and its coordinates in the ISA's layouts: groupID = lane / 4 and
/// threadID_in_group = lane % 4.
struct LaneIds {
  Value lane, group, threadInGroup;
};

LaneIds getLaneIds(OpBuilder &b, Location loc, Value lane) {
  Value four = constantIndex(b, loc, 4);
  return {lane, arith::DivUIOp::create(b, loc, lane, four),
          arith::RemUIOp::create(b, loc, lane, four)};
}

/// The shape of a lane's fragment of `operand`: registers x elements, as
/// nvgpu.mma.sync types them: with float16, A vector<4x2xf16>, B
/// vector<2x2xf16> (bfloat16 alike); with TF32, A vector<4x1xf32>, B
/// vector<2x1xf32>; C vector<2x2xf32>.
VectorType getFragmentType(MmaKind kind, Operand operand, MLIRContext *ctx) {
  Builder b(ctx);
  if (operand == Operand::C)
    return VectorType::get({2, 2}, b.getF32Type());
  int64_t elements = kind == MmaKind::TF32 ? 1 : 2;
  Type type = kind == MmaKind::F16    ? Type(b.getF16Type())
              : kind == MmaKind::BF16 ? Type(b.getBF16Type())
                                      : Type(b.getF32Type());
  return VectorType::get({operand == Operand::A ? 4 : 2, elements}, type);
}

/// Where element `e` of register `r` of a lane's fragment of `operand`
/// lies in the instruction's tile (A: 16 x k, B: k x 8, C: 16 x 8), as
/// (row, column). With float16 or bfloat16 (k = 16):
///   A  (g + 8 (r mod 2), 2t + e + 8 (r div 2))
///   B  (2t + e + 8r, g)
/// with TF32 (k = 8, one element a register):
///   A  (g + 8 (r mod 2), t + 4 (r div 2))
///   B  (t + 4r, g)
/// and for both
///   C  (g + 8r, 2t + e)
std::pair<Value, Value> getFragmentElement(OpBuilder &b, Location loc,
                                           MmaKind kind, Operand operand,
                                           LaneIds ids, int64_t r, int64_t e) {
  Value t = ids.threadInGroup;
  Value twiceT = arith::MulIOp::create(b, loc, t, constantIndex(b, loc, 2));
  bool f16 = kind != MmaKind::TF32;
  switch (operand) {
  case Operand::A:
    return {addConstant(b, loc, ids.group, 8 * (r % 2)),
            f16 ? addConstant(b, loc, twiceT, e + 8 * (r / 2))
                : addConstant(b, loc, t, 4 * (r / 2))};
  case Operand::B:
    return {f16 ? addConstant(b, loc, twiceT, e + 8 * r)
                : addConstant(b, loc, t, 4 * r),
            ids.group};
  case Operand::C:
    return {addConstant(b, loc, ids.group, 8 * r),
            addConstant(b, loc, twiceT, e)};
  }
  llvm_unreachable("unknown operand");
}

/// `value` (float32) rounded to TF32, to nearest with ties away from zero:
/// by the GPU's cvt.rna.tf32.f32, or in the CPU emulation by adding half a
/// unit of TF32's last place to the bits and clearing the 13 below it.
Value roundToTf32(OpBuilder &b, Location loc, Value value, bool emulated) {
  Type i32 = b.getI32Type();
  Value bits;
  if (emulated) {
    Value raw = arith::BitcastOp::create(b, loc, i32, value);
    Value half = arith::ConstantIntOp::create(b, loc, i32, 0x1000);
    Value mask = arith::ConstantIntOp::create(b, loc, i32, 0xffffe000);
    bits = arith::AndIOp::create(
        b, loc, arith::AddIOp::create(b, loc, raw, half), mask);
  } else {
    bits = NVVM::ConvertFloatToTF32Op::create(b, loc, i32, value,
                                              NVVM::FPRoundingMode::RNA);
  }
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

/// How `ldmatrix` loads a lane's fragment of A or B: `tiles` 8 x 8
/// matrices of `shared` (the operand's block buffer in shared memory), each
/// of whose rows a lane points at, transposed on the way or not.
struct MatrixLoad {
  Value shared;
  bool transpose;
  int64_t tiles;
};

/// The element of the instruction's tile (A: m x k, B: k x n) at which the
/// row starts that `lane` points ldmatrix at. Lanes 8q to 8q + 7 give the
/// rows of matrix q, which is register q of the fragment:
///   A, four matrices (rows m, k contiguous): a0a1 rows 0-7 x k 0-7, a2a3
///     rows 8-15 x k 0-7, a4a5 rows 0-7 x k 8-15, a6a7 rows 8-15 x k 8-15;
///   B transposed (rows k, n contiguous): b0b1 k 0-7, b2b3 k 8-15;
///   B (rows n, k contiguous): b0b1 k 0-7, b2b3 k 8-15 of n 0-7.
/// Lanes 16-31 of a two-matrix load point where lanes 0-15 do (unused).
std::pair<Value, Value> getMatrixRowStart(OpBuilder &b, Location loc,
                                          Operand operand, bool transpose,
                                          Value lane) {
  IndexMath m{b, loc};
  if (operand == Operand::A)
    return {m.add(m.mod(lane, 8), m.mul(m.mod(m.div(lane, 8), 2), 8)),
            m.mul(m.div(lane, 16), 8)};
  if (transpose)
    return {m.mod(lane, 16), m.c(0)};
  return {m.mul(m.div(m.mod(lane, 16), 8), 8), m.mod(lane, 8)};
}

/// `op`'s body (an elementwise op of parallel loops, its output through
/// the identity map) computed at one point of its iteration space,
/// `loops`: each buffer it reads loaded there through its indexing map,
/// except `accumulator` (one of its operands), for which the value that
/// `makeElement` makes after those loads stands, and each `linalg.index`
/// the point's index along its loop. Returns the value the body yields.
Value applyBodyAt(OpBuilder &b, Location loc, linalg::GenericOp op,
                  ArrayRef<Value> loops, OpOperand *accumulator,
                  llvm::function_ref<Value()> makeElement) {
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get();
    if (input != accumulator && isa<MemRefType>(value.getType())) {
      SmallVector<Value> indices;
      for (AffineExpr result : op.getMatchingIndexingMap(input).getResults())
        indices.push_back(loops[cast<AffineDimExpr>(result).getPosition()]);
      value = memref::LoadOp::create(b, loc, value, indices);
    }
    mapping.map(op.getMatchingBlockArgument(input), value);
  }
  mapping.map(op.getMatchingBlockArgument(accumulator), makeElement());
  Block &body = op.getRegion().front();
  for (Operation &nested : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
      mapping.map(index.getResult(), loops[index.getDim()]);
      continue;
    }
    b.clone(nested, mapping);
  }
  return mapping.lookupOrDefault(body.getTerminator()->getOperand(0));
}

/// Loads and stores the fragments of one instruction tile of a matched
/// contraction, whose corner is at (m0, n0) of the output and k0 of the
/// reduction.
class FragmentAccess {
public:
  /// The accesses of `op`'s operands; the op itself is not kept (the
  /// accumulators of a reduction in chunks outlive the first chunk's op).
  FragmentAccess(linalg::LinalgOp op, const MmaContraction &contraction,
                 bool emulated, linalg::GenericOp epilogue = {})
      : operands{op.getDpsInputOperand(0)->get(),
                 op.getDpsInputOperand(1)->get(),
                 op.getDpsInitOperand(0)->get()},
        maps{op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
             op.getMatchingIndexingMap(op.getDpsInputOperand(1)),
             op.getMatchingIndexingMap(op.getDpsInitOperand(0))},
        init(op->getAttrOfType<FloatAttr>(kAccumulatorInitAttrName)),
        epilogue(epilogue), contraction(contraction), emulated(emulated) {}

  /// The same accesses, the result stored through `epilogue`.
  FragmentAccess withEpilogue(linalg::GenericOp epilogue) const {
    FragmentAccess access = *this;
    access.epilogue = epilogue;
    return access;
  }

  /// The buffer `operand` is read from (A, B) or accumulated in (C).
  Value getOperand(Operand operand) const {
    return operands[static_cast<int>(operand)];
  }
  AffineMap getIndexingMap(Operand operand) const {
    return maps[static_cast<int>(operand)];
  }

  /// The fragments hold float16 multiplicands (a float32 left operand,
  /// flash attention's probabilities, is rounded as it is loaded) or
  /// TF32 ones, and float32 accumulators.
  VectorType getType(Operand operand) const {
    return getFragmentType(contraction.kind, operand,
                           getIndexingMap(operand).getContext());
  }

  /// The ldmatrix that loads `operand`'s fragments, if one can: a 16-bit
  /// operand in a shared-memory buffer of rows of whole 16-byte pieces,
  /// those rows running along the reduction of A, or along either
  /// dimension of B.
  std::optional<MatrixLoad> getMatrixLoad(Operand operand) const {
    if (operand == Operand::C || contraction.kind == MmaKind::TF32 ||
        contraction.steps % getMmaSteps(contraction.kind) != 0 ||
        (operand == Operand::A ? contraction.rows % kMmaRows
                               : contraction.columns % kMmaColumns) != 0)
      return std::nullopt;
    Value shared = getSharedBuffer(getOperand(operand));
    if (!shared)
      return std::nullopt;
    auto type = cast<MemRefType>(shared.getType());
    if (type.getElementType() != getType(operand).getElementType() ||
        !type.getLayout().isIdentity() || !type.hasStaticShape() ||
        type.getRank() == 0 || type.getShape().back() % 8 != 0)
      return std::nullopt;
    AffineMap map = getIndexingMap(operand);
    unsigned inner = cast<AffineDimExpr>(map.getResults().back()).getPosition();
    if (operand == Operand::A)
      return inner == contraction.k
                 ? std::optional<MatrixLoad>({shared, false, 4})
                 : std::nullopt;
    if (inner == contraction.n)
      return MatrixLoad{shared, true, 2};
    return MatrixLoad{shared, false, 2};
  }

  /// The indices of the row start `ids.lane` points ldmatrix at.
  SmallVector<Value> getMatrixRowIndices(OpBuilder &b, Location loc,
                                         Operand operand,
                                         const MatrixLoad &load, LaneIds ids,
                                         Value m0, Value n0, Value k0) const {
    auto [row, column] =
        getMatrixRowStart(b, loc, operand, load.transpose, ids.lane);
    return getIndicesAt(b, loc, operand, row, column, m0, n0, k0);
  }

  Value load(OpBuilder &b, Location loc, Operand operand, LaneIds ids, Value m0,
             Value n0, Value k0) const {
    VectorType type = getType(operand);
    // An accumulator a fill has just set: its value, not a load.
    if (operand == Operand::C && init)
      return arith::ConstantOp::create(
          b, loc, type, DenseElementsAttr::get(type, init.getValue()));
    if (std::optional<MatrixLoad> matrixLoad = getMatrixLoad(operand))
      return nvgpu::LdMatrixOp::create(
          b, loc, type, matrixLoad->shared,
          getMatrixRowIndices(b, loc, operand, *matrixLoad, ids, m0, n0, k0),
          b.getBoolAttr(matrixLoad->transpose),
          b.getI32IntegerAttr(matrixLoad->tiles));
    VectorType registerType =
        VectorType::get({type.getDimSize(1)}, type.getElementType());
    Value fragment =
        arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
    for (int64_t r = 0; r < type.getDimSize(0); ++r) {
      SmallVector<Value, 2> elements;
      for (int64_t e = 0; e < type.getDimSize(1); ++e) {
        Position position = getPosition(b, loc, operand, ids, r, e, m0, n0, k0);
        Value element = memref::LoadOp::create(
            b, loc, getOperand(operand), position.indices);
        if (position.inBounds)
          element = arith::SelectOp::create(
              b, loc, position.inBounds, element,
              arith::ConstantOp::create(b, loc,
                                        b.getZeroAttr(element.getType())));
        if (operand != Operand::C && contraction.kind == MmaKind::TF32)
          element = roundToTf32(b, loc, element, emulated);
        else if (element.getType() != type.getElementType())
          element =
              arith::TruncFOp::create(b, loc, type.getElementType(), element);
        elements.push_back(element);
      }
      Value reg =
          vector::FromElementsOp::create(b, loc, registerType, elements);
      fragment =
          vector::InsertOp::create(b, loc, reg, fragment, ArrayRef<int64_t>{r});
    }
    return fragment;
  }

  void store(OpBuilder &b, Location loc, Value fragment, LaneIds ids, Value m0,
             Value n0) const {
    VectorType type = getType(Operand::C);
    for (int64_t r = 0; r < type.getDimSize(0); ++r)
      for (int64_t e = 0; e < type.getDimSize(1); ++e) {
        Value element = vector::ExtractOp::create(b, loc, fragment,
                                                  ArrayRef<int64_t>{r, e});
        Position position =
            getPosition(b, loc, Operand::C, ids, r, e, m0, n0, nullptr);
        OpBuilder::InsertionGuard guard(b);
        if (position.inBounds) {
          auto inside = scf::IfOp::create(b, loc, position.inBounds,
                                          /*withElseRegion=*/false);
          b.setInsertionPointToStart(&inside.getThenRegion().front());
        }
        storeElement(b, loc, element, position.indices);
      }
  }

  /// Stores `element` of the accumulator at `indices` of its buffer, or,
  /// with an epilogue, the epilogue's value of it at the same indices of
  /// the epilogue's output (it reads the accumulator through the identity
  /// map, so its loops are the accumulator's indices).
  void storeElement(OpBuilder &b, Location loc, Value element,
                    ArrayRef<Value> indices) const {
    Value output = getOperand(Operand::C);
    linalg::GenericOp epilogue = this->epilogue;
    if (!epilogue) {
      memref::StoreOp::create(b, loc, element, output, indices);
      return;
    }
    // The epilogue's loops are the accumulator's indices: it reads the
    // accumulator through the identity map.
    OpOperand *accumulator = nullptr;
    for (OpOperand *input : epilogue.getDpsInputOperands())
      if (input->get() == output)
        accumulator = input;
    memref::StoreOp::create(b, loc,
                            applyBodyAt(b, loc, epilogue, indices, accumulator,
                                        [&] { return element; }),
                            epilogue.getDpsInitOperand(0)->get(), indices);
  }

  /// The indices into the accumulator's buffer of element (r, e) of a
  /// lane's fragment of the instruction tile at (m0, n0), which must lie
  /// inside the contraction's extents.
  SmallVector<Value> getOutputIndices(OpBuilder &b, Location loc, LaneIds ids,
                                      int64_t r, int64_t e, Value m0,
                                      Value n0) const {
    Position position =
        getPosition(b, loc, Operand::C, ids, r, e, m0, n0, nullptr);
    assert(!position.inBounds && "whole instruction tiles");
    return position.indices;
  }

private:
  /// The position of element (r, e) of a lane's fragment in `operand`'s
  /// buffer: its indices, and whether it lies inside the contraction's
  /// extents (null where the instruction tiles cover them exactly). An
  /// index past an extent is clamped to the last element, which the
  /// caller then replaces with zero (a load) or skips (a store).
  struct Position {
    SmallVector<Value> indices;
    Value inBounds;
  };

  Position getPosition(OpBuilder &b, Location loc, Operand operand, LaneIds ids,
                       int64_t r, int64_t e, Value m0, Value n0,
                       Value k0) const {
    auto [row, column] =
        getFragmentElement(b, loc, contraction.kind, operand, ids, r, e);
    SmallVector<Value> loops =
        getLoops(b, loc, operand, row, column, m0, n0, k0);
    Position position;
    for (auto [dim, extent] : {std::pair(contraction.m, contraction.rows),
                               std::pair(contraction.n, contraction.columns),
                               std::pair(contraction.k, contraction.steps)}) {
      int64_t unit = dim == contraction.m   ? kMmaRows
                     : dim == contraction.n ? kMmaColumns
                                            : getMmaSteps(contraction.kind);
      if (!loops[dim] || extent % unit == 0)
        continue;
      Value bound = constantIndex(b, loc, extent);
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           loops[dim], bound);
      position.inBounds =
          position.inBounds
              ? arith::AndIOp::create(b, loc, position.inBounds, inside)
              : inside;
      loops[dim] = arith::MinUIOp::create(b, loc, loops[dim],
                                          constantIndex(b, loc, extent - 1));
    }
    position.indices = mapToIndices(b, loc, operand, loops);
    return position;
  }

  /// The indices into `operand`'s buffer of (row, column) of the
  /// instruction's tile.
  SmallVector<Value> getIndicesAt(OpBuilder &b, Location loc, Operand operand,
                                  Value row, Value column, Value m0, Value n0,
                                  Value k0) const {
    return mapToIndices(b, loc, operand,
                        getLoops(b, loc, operand, row, column, m0, n0, k0));
  }

  /// The op's loops at (row, column) of `operand`'s instruction tile: its
  /// two loops set, the others null.
  SmallVector<Value> getLoops(OpBuilder &b, Location loc, Operand operand,
                              Value row, Value column, Value m0, Value n0,
                              Value k0) const {
    SmallVector<Value> loops(getIndexingMap(Operand::C).getNumDims(), nullptr);
    auto at = [&](Value corner, Value offset) {
      return arith::AddIOp::create(b, loc, corner, offset).getResult();
    };
    switch (operand) {
    case Operand::A:
      loops[contraction.m] = at(m0, row);
      loops[contraction.k] = at(k0, column);
      break;
    case Operand::B:
      loops[contraction.k] = at(k0, row);
      loops[contraction.n] = at(n0, column);
      break;
    case Operand::C:
      loops[contraction.m] = at(m0, row);
      loops[contraction.n] = at(n0, column);
      break;
    }
    return loops;
  }

  /// `loops` (the batch loops, of extent 1, at 0) through `operand`'s
  /// indexing map.
  SmallVector<Value> mapToIndices(OpBuilder &b, Location loc, Operand operand,
                                  SmallVector<Value> loops) const {
    Value zero = constantIndex(b, loc, 0);
    for (Value &loop : loops)
      if (!loop)
        loop = zero;
    AffineMap map = getIndexingMap(operand);
    SmallVector<Value> indices;
    for (AffineExpr result : map.getResults())
      indices.push_back(loops[cast<AffineDimExpr>(result).getPosition()]);
    return indices;
  }

  Value operands[3];
  AffineMap maps[3];
  /// The accumulator's value where a fill has just set it
  /// (kAccumulatorInitAttrName), else null.
  FloatAttr init;
  /// What the result is stored through (canFuseEpilogue), else null.
  linalg::GenericOp epilogue;
  MmaContraction contraction;
  bool emulated;
};

/// mma.sync.m16n8k16 with bfloat16 operands, which nvgpu.mma.sync does not
/// lower (it finds no PTX type for them): the NVVM instruction itself, its
/// operands as the ISA packs them (two bfloat16 to a 32-bit register).
Value createBf16MmaSync(OpBuilder &b, Location loc, Value a, Value bFragment,
                        Value c) {
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto registers = [&](Value fragment) {
    auto type = cast<VectorType>(fragment.getType());
    SmallVector<Value> packed;
    for (int64_t r = 0; r < type.getDimSize(0); ++r) {
      Value pair =
          vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{r});
      Value bits =
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
      packed.push_back(
          vector::ExtractOp::create(b, loc, bits, ArrayRef<int64_t>{0}));
    }
    return packed;
  };
  SmallVector<Value> accumulators;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      accumulators.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{r, e}));
  auto result =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, result, registers(a), registers(bFragment), accumulators,
      ArrayRef<int64_t>{kMmaRows, kMmaColumns, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> elements;
  for (int64_t i = 0; i < 4; ++i)
    elements.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, c.getType(), elements);
}

/// The reduction steps the instructions cover: the contraction's, rounded
/// up to whole instructions (the operands read as zeros past the end).
int64_t getStepsCovered(const MmaContraction &contraction) {
  return llvm::alignTo(contraction.steps, getMmaSteps(contraction.kind));
}

/// A warp's tile: `tileRows` x `tileColumns` instruction tiles, which share
/// at every step of the reduction the A fragment of each of their rows and
/// the B fragment of each of their columns (register blocking: 2 + 4
/// fragment loads feed 8 instructions in a 2 x 4 warp tile, 32 x 32 of the
/// output; 4 + 8 feed 32 in a 4 x 8 one, 64 x 64, whose accumulators take
/// 128 of a thread's registers). As large as 4 x 8 (then 2 x 4, 1 x 4,
/// 2 x 2, 1 x 2, 2 x 1), while the block's contraction still has at least
/// four warp tiles (one for each warp of the default 128-thread block):
/// 4 x 8 in tfm-gpu-select-strategy's 128 x 128 tiles. The same in the
/// emulation, so that it checks the code the GPU runs.
struct WarpTiling {
  int64_t rows, columns;                 // instruction tiles of the contraction
  int64_t tileRows = 1, tileColumns = 1; // instruction tiles per warp tile

  explicit WarpTiling(const MmaContraction &contraction)
      : rows(llvm::divideCeil(contraction.rows, kMmaRows)),
        columns(llvm::divideCeil(contraction.columns, kMmaColumns)) {
    for (auto [candidateRows, candidateColumns] :
         {std::pair<int64_t, int64_t>(4, 8),
          {2, 4},
          {1, 4},
          {2, 2},
          {1, 2},
          {2, 1}})
      if (rows % candidateRows == 0 && columns % candidateColumns == 0 &&
          (rows / candidateRows) * (columns / candidateColumns) >= 4) {
        tileRows = candidateRows;
        tileColumns = candidateColumns;
        break;
      }
  }

  int64_t getWarpTileCount() const {
    return (rows / tileRows) * (columns / tileColumns);
  }
  int64_t getTileSize() const { return tileRows * tileColumns; }

  /// The instruction tiles of warp tile `warpTile` (the warp tiles numbered
  /// row-major): the first output row of each row of them (16 apart) and
  /// the first output column of each column (8 apart). Their fragments
  /// are kept row-major: instruction tile (i, j) is fragment
  /// i * tileColumns + j.
  struct Tile {
    SmallVector<Value> rows, columns;
  };
  Tile getTile(OpBuilder &b, Location loc, Value warpTile) const {
    IndexMath m{b, loc};
    int64_t perRow = columns / tileColumns;
    Value m0 = m.mul(m.div(warpTile, perRow), tileRows * kMmaRows);
    Value n0 = m.mul(m.mod(warpTile, perRow), tileColumns * kMmaColumns);
    Tile tile;
    for (int64_t i = 0; i < tileRows; ++i)
      tile.rows.push_back(addConstant(b, loc, m0, i * kMmaRows));
    for (int64_t j = 0; j < tileColumns; ++j)
      tile.columns.push_back(addConstant(b, loc, n0, j * kMmaColumns));
    return tile;
  }

  /// The loop over warp tiles `first`, `first + step`, ... at `b`'s
  /// insertion point, which it leaves at the start of the loop's body (the
  /// caller restores it), and the tile of its iteration.
  std::pair<scf::ForOp, Tile> createLoop(OpBuilder &b, Location loc,
                                         Value first, int64_t step) const {
    auto loop = scf::ForOp::create(b, loc, first,
                                   constantIndex(b, loc, getWarpTileCount()),
                                   constantIndex(b, loc, step));
    b.setInsertionPointToStart(loop.getBody());
    return {loop, getTile(b, loc, loop.getInductionVar())};
  }
};

/// Calls `body(m0, n0, fragment)` for each instruction tile of `tile`, in
/// the order of its fragments.
void forEachInstructionTile(const WarpTiling::Tile &tile,
                            function_ref<void(Value, Value, int64_t)> body) {
  int64_t fragment = 0;
  for (Value m0 : tile.rows)
    for (Value n0 : tile.columns)
      body(m0, n0, fragment++);
}

/// The accumulator fragments of `tile`'s instruction tiles, loaded.
SmallVector<Value> loadAccumulators(OpBuilder &b, Location loc,
                                    const FragmentAccess &access, LaneIds ids,
                                    const WarpTiling::Tile &tile) {
  SmallVector<Value> fragments;
  forEachInstructionTile(tile, [&](Value m0, Value n0, int64_t) {
    fragments.push_back(access.load(b, loc, Operand::C, ids, m0, n0, nullptr));
  });
  return fragments;
}

void storeAccumulators(OpBuilder &b, Location loc, const FragmentAccess &access,
                       LaneIds ids, const WarpTiling::Tile &tile,
                       ValueRange fragments) {
  forEachInstructionTile(tile, [&](Value m0, Value n0, int64_t fragment) {
    access.store(b, loc, fragments[fragment], ids, m0, n0);
  });
}

/// `tile`'s product over the contraction's reduction, from `accumulators`:
/// at every 16 (8 with TF32) steps, the A fragment of each row of
/// instruction tiles and the B fragment of each column, then one mma.sync
/// per instruction tile. Returns the updated accumulators. A loop of at
/// most `unrollSteps` instruction steps is unrolled.
SmallVector<Value> emitSteps(OpBuilder &b, Location loc,
                             const FragmentAccess &access,
                             const MmaContraction &contraction, LaneIds ids,
                             const WarpTiling::Tile &tile,
                             ValueRange accumulators, int64_t unrollSteps) {
  auto steps = scf::ForOp::create(
      b, loc, constantIndex(b, loc, 0),
      constantIndex(b, loc, getStepsCovered(contraction)),
      constantIndex(b, loc, getMmaSteps(contraction.kind)), accumulators,
      [&](OpBuilder &nb, Location nloc, Value k0, ValueRange current) {
        SmallVector<Value> aFragments, bFragments, next;
        for (Value m0 : tile.rows)
          aFragments.push_back(access.load(nb, nloc, Operand::A, ids, m0,
                                           tile.columns[0], k0));
        for (Value n0 : tile.columns)
          bFragments.push_back(
              access.load(nb, nloc, Operand::B, ids, tile.rows[0], n0, k0));
        for (auto [i, a] : llvm::enumerate(aFragments))
          for (auto [j, bFragment] : llvm::enumerate(bFragments)) {
            Value acc = current[i * tile.columns.size() + j];
            next.push_back(
                contraction.kind == MmaKind::BF16
                    ? createBf16MmaSync(nb, nloc, a, bFragment, acc)
                    : nvgpu::MmaSyncOp::create(
                          nb, nloc, a, bFragment, acc,
                          ArrayRef<int64_t>{kMmaRows, kMmaColumns,
                                            getMmaSteps(contraction.kind)},
                          /*tf32Enabled=*/contraction.kind == MmaKind::TF32));
          }
        scf::YieldOp::create(nb, nloc, next);
      });
  // A few steps (a chunk of 64, a key block of 64) are unrolled here, so
  // that each step's fragment loads can be issued ahead of the previous
  // step's instructions whatever LLVM's unroller makes of a body that
  // loads a float32 A element by element (flash attention's P).
  if (getStepsCovered(contraction) / getMmaSteps(contraction.kind) >
      unrollSteps)
    return steps.getResults();
  // The loop's results, held by an op that unrolling updates.
  auto holder = UnrealizedConversionCastOp::create(b, loc, TypeRange{},
                                                   steps.getResults());
  (void)loopUnrollFull(steps);
  SmallVector<Value> results(holder.getInputs());
  holder.erase();
  return results;
}

//===----------------------------------------------------------------------===//
// The emulation's side: the instruction from the ISA's statement of layouts
//===----------------------------------------------------------------------===//

/// Where the emulated warp keeps element `i` of a lane's fragment (the ISA's
/// a_i, b_i, c_i): register i / 2, element i mod 2 of the lane's row in a
/// registers x elements buffer.
struct Slot {
  Value lane, index;
};

/// The buffer indices of `slot` in fragments of `elements` a register.
SmallVector<Value> getSlotIndices(OpBuilder &b, Location loc, Slot slot,
                                  int64_t elements) {
  Value size = constantIndex(b, loc, elements);
  return {slot.lane, arith::DivUIOp::create(b, loc, slot.index, size),
          arith::RemUIOp::create(b, loc, slot.index, size)};
}

/// The PTX ISA's fragment layouts for mma.m16n8k16 with .f16/.bf16
/// multiplicands and .f32 accumulators, read backwards: for an element of
/// a tile, the lane (4 groupID + threadID_in_group) and the fragment
/// index i that hold it.
///   A (row, col): groupID = row mod 8, threadID_in_group = (col mod 8) / 2;
///                 a0..a3 are the columns below 8, a4..a7 those from 8; in
///                 each, the even ones row groupID and the odd pairs
///                 (a2, a3, a6, a7) row groupID + 8; i mod 2 = col mod 2.
///   B (row, col): groupID = col, threadID_in_group = (row mod 8) / 2;
///                 b0, b1 the rows below 8, b2, b3 from 8; i mod 2 =
///                 row mod 2.
///   C (row, col): groupID = row mod 8, threadID_in_group = col / 2;
///                 c0, c1 row groupID, c2, c3 row groupID + 8; i mod 2 =
///                 col mod 2.
/// And for mma.m16n8k8 with .tf32 multiplicands (C as above):
///   A (row, col): groupID = row mod 8, threadID_in_group = col mod 4;
///                 a0 (row groupID, col threadID_in_group), a1 row + 8,
///                 a2 col + 4, a3 both.
///   B (row, col): groupID = col, threadID_in_group = row mod 4; b0 the
///                 rows below 4, b1 from 4.
Slot getSlot(OpBuilder &b, Location loc, MmaKind kind, Operand operand,
             Value row, Value col) {
  IndexMath m{b, loc};
  if (kind == MmaKind::TF32 && operand == Operand::A)
    return {m.add(m.mul(m.mod(row, 8), 4), m.mod(col, 4)),
            m.add(m.div(row, 8), m.mul(m.div(col, 4), 2))};
  if (kind == MmaKind::TF32 && operand == Operand::B)
    return {m.add(m.mul(col, 4), m.mod(row, 4)), m.div(row, 4)};
  switch (operand) {
  case Operand::A: {
    Value lane = m.add(m.mul(m.mod(row, 8), 4), m.div(m.mod(col, 8), 2));
    Value index = m.add(m.add(m.mod(col, 2), m.mul(m.div(row, 8), 2)),
                        m.mul(m.div(col, 8), 4));
    return {lane, index};
  }
  case Operand::B: {
    Value lane = m.add(m.mul(col, 4), m.div(m.mod(row, 8), 2));
    Value index = m.add(m.mod(row, 2), m.mul(m.div(row, 8), 2));
    return {lane, index};
  }
  case Operand::C: {
    Value lane = m.add(m.mul(m.mod(row, 8), 4), m.div(col, 2));
    Value index = m.add(m.mod(col, 2), m.mul(m.div(row, 8), 2));
    return {lane, index};
  }
  }
  llvm_unreachable("unknown operand");
}

/// D = A B + C on the emulated warp's fragment buffers (lanes x registers x
/// elements) of a `kind` instruction: `a` of A, `bFragments` of B, `c` of
/// C, which receives D. Each product is accumulated in float32, as the
/// tensor cores do.
void emulateMmaSync(OpBuilder &b, Location loc, MmaKind kind, Value a,
                    Value bFragments, Value c) {
  auto loop = [&](int64_t extent, function_ref<void(Value)> body) {
    forRange(b, loc, extent, body);
  };
  auto elementsOf = [](Value buffer) {
    return cast<MemRefType>(buffer.getType()).getDimSize(2);
  };
  Type f32 = b.getF32Type();
  auto toF32 = [&](OpBuilder &nb, Location nloc, Value x) {
    return x.getType() == f32 ? x : arith::ExtFOp::create(nb, nloc, f32, x);
  };
  loop(kMmaRows, [&](Value i) {
    loop(kMmaColumns, [&](Value j) {
      SmallVector<Value> cIndices = getSlotIndices(
          b, loc, getSlot(b, loc, kind, Operand::C, i, j), elementsOf(c));
      Value init = memref::LoadOp::create(b, loc, c, cIndices);
      auto steps = scf::ForOp::create(
          b, loc, constantIndex(b, loc, 0),
          constantIndex(b, loc, getMmaSteps(kind)), constantIndex(b, loc, 1),
          ValueRange{init},
          [&](OpBuilder &nb, Location nloc, Value k, ValueRange acc) {
            Value x = memref::LoadOp::create(
                nb, nloc, a,
                getSlotIndices(nb, nloc,
                               getSlot(nb, nloc, kind, Operand::A, i, k),
                               elementsOf(a)));
            Value y = memref::LoadOp::create(
                nb, nloc, bFragments,
                getSlotIndices(nb, nloc,
                               getSlot(nb, nloc, kind, Operand::B, k, j),
                               elementsOf(bFragments)));
            Value product = arith::MulFOp::create(nb, nloc, toF32(nb, nloc, x),
                                                  toF32(nb, nloc, y));
            scf::YieldOp::create(
                nb, nloc,
                ValueRange{arith::AddFOp::create(nb, nloc, acc[0], product)});
          });
      memref::StoreOp::create(b, loc, steps.getResult(0), c, cIndices);
    });
  });
}

/// ldmatrix on the emulated warp, from the PTX ISA's statement of it: row r
/// of matrix q is the 8 elements from the address lane 8q + r gives
/// (`rowStarts`, lanes x indices into `memory`); lane l receives elements
/// 2 (l mod 4) and 2 (l mod 4) + 1 of row l / 4 of each matrix q as its
/// register q, or with `transpose` the elements of column l / 4 in rows
/// 2 (l mod 4) and 2 (l mod 4) + 1. They go to `fragments` (lanes x
/// registers x elements).
void emulateLdmatrix(OpBuilder &b, Location loc, Value memory, Value rowStarts,
                     Value fragments, bool transpose, int64_t tiles) {
  IndexMath m{b, loc};
  int64_t rank = cast<MemRefType>(memory.getType()).getRank();
  forRange(b, loc, kWarpLanes, [&](Value lane) {
    forRange(b, loc, tiles, [&](Value q) {
      forRange(b, loc, 2, [&](Value e) {
        Value pair = m.add(m.mul(m.mod(lane, 4), 2), e);
        Value fourth = m.div(lane, 4);
        Value source = m.add(m.mul(q, 8), transpose ? pair : fourth);
        Value column = transpose ? fourth : pair;
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d)
          indices.push_back(memref::LoadOp::create(b, loc, rowStarts,
                                                   ValueRange{source, m.c(d)}));
        indices.back() = m.add(indices.back(), column);
        Value element = memref::LoadOp::create(b, loc, memory, indices);
        memref::StoreOp::create(b, loc, element, fragments,
                                ValueRange{lane, q, e});
      });
    });
  });
}

/// Writes a lane's fragment into row `lane` of `buffer` (lanes x registers x
/// elements), or reads it back.
void spillFragment(OpBuilder &b, Location loc, Value fragment, Value buffer,
                   Value lane) {
  auto type = cast<VectorType>(fragment.getType());
  for (int64_t r = 0; r < type.getDimSize(0); ++r)
    for (int64_t e = 0; e < type.getDimSize(1); ++e)
      memref::StoreOp::create(
          b, loc,
          vector::ExtractOp::create(b, loc, fragment, ArrayRef<int64_t>{r, e}),
          buffer,
          ValueRange{lane, constantIndex(b, loc, r), constantIndex(b, loc, e)});
}

Value reloadFragment(OpBuilder &b, Location loc, VectorType type, Value buffer,
                     Value lane) {
  SmallVector<Value> elements;
  for (int64_t r = 0; r < type.getDimSize(0); ++r)
    for (int64_t e = 0; e < type.getDimSize(1); ++e)
      elements.push_back(
          memref::LoadOp::create(b, loc, buffer,
                                 ValueRange{lane, constantIndex(b, loc, r),
                                            constantIndex(b, loc, e)}));
  return vector::FromElementsOp::create(b, loc, type, elements);
}

/// Runs `body` for each lane of the emulated warp.
void forEachLane(
    OpBuilder &b, Location loc,
    function_ref<void(OpBuilder &, Location, LaneIds, Value)> body) {
  scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                     constantIndex(b, loc, kWarpLanes),
                     constantIndex(b, loc, 1), ValueRange{},
                     [&](OpBuilder &nb, Location nloc, Value lane, ValueRange) {
                       body(nb, nloc, getLaneIds(nb, nloc, lane), lane);
                       scf::YieldOp::create(nb, nloc);
                     });
}

/// The emulated warp's buffer of its lanes' fragments of `operand`: lanes x
/// registers x elements. The emulation allocates it once for all blocks
/// (tfm-emulate-gpu-on-cpu hoists a launch's static buffers), as a GPU
/// thread has its registers.
Value allocateFragments(OpBuilder &b, Location loc,
                        const FragmentAccess &access, Operand operand) {
  VectorType type = access.getType(operand);
  return memref::AllocaOp::create(
             b, loc,
             MemRefType::get(
                 {kWarpLanes, type.getDimSize(0), type.getDimSize(1)},
                 type.getElementType()))
      .getResult();
}

/// The emulated warp's buffers for one warp tile's multiplicands: the A
/// fragments of each row of instruction tiles, the B fragments of each
/// column, and the row starts the lanes give ldmatrix, by the rank of the
/// buffer it reads.
struct EmulatedOperands {
  SmallVector<Value> a, b;
  llvm::SmallDenseMap<int64_t, Value> rowStarts;
};

EmulatedOperands allocateOperands(OpBuilder &b, Location loc,
                                  const FragmentAccess &access,
                                  const WarpTiling &tiling) {
  EmulatedOperands operands;
  for (int64_t i = 0; i < tiling.tileRows; ++i)
    operands.a.push_back(allocateFragments(b, loc, access, Operand::A));
  for (int64_t j = 0; j < tiling.tileColumns; ++j)
    operands.b.push_back(allocateFragments(b, loc, access, Operand::B));
  for (Operand operand : {Operand::A, Operand::B})
    if (std::optional<MatrixLoad> matrixLoad = access.getMatrixLoad(operand)) {
      int64_t rank = cast<MemRefType>(matrixLoad->shared.getType()).getRank();
      if (!operands.rowStarts.count(rank))
        operands.rowStarts[rank] =
            memref::AllocaOp::create(
                b, loc, MemRefType::get({kWarpLanes, rank}, b.getIndexType()))
                .getResult();
    }
  return operands;
}

/// Accumulator buffers for the fragments of a warp tile.
SmallVector<Value> allocateAccumulators(OpBuilder &b, Location loc,
                                        const FragmentAccess &access,
                                        const WarpTiling &tiling) {
  SmallVector<Value> buffers;
  for (int64_t i = 0; i < tiling.getTileSize(); ++i)
    buffers.push_back(allocateFragments(b, loc, access, Operand::C));
  return buffers;
}

/// Each lane's accumulator fragments of `tile` loaded into `cBuffers` (one
/// per instruction tile), or stored from them.
void emulateLoadAccumulators(OpBuilder &b, Location loc,
                             const FragmentAccess &access,
                             const WarpTiling::Tile &tile,
                             ArrayRef<Value> cBuffers) {
  forEachLane(b, loc,
              [&](OpBuilder &nb, Location nloc, LaneIds ids, Value lane) {
                forEachInstructionTile(
                    tile, [&](Value m0, Value n0, int64_t fragment) {
                      spillFragment(nb, nloc,
                                    access.load(nb, nloc, Operand::C, ids, m0,
                                                n0, nullptr),
                                    cBuffers[fragment], lane);
                    });
              });
}

void emulateStoreAccumulators(OpBuilder &b, Location loc,
                              const FragmentAccess &access,
                              const WarpTiling::Tile &tile,
                              ArrayRef<Value> cBuffers) {
  forEachLane(b, loc,
              [&](OpBuilder &nb, Location nloc, LaneIds ids, Value lane) {
                forEachInstructionTile(
                    tile, [&](Value m0, Value n0, int64_t fragment) {
                      access.store(
                          nb, nloc,
                          reloadFragment(nb, nloc, access.getType(Operand::C),
                                         cBuffers[fragment], lane),
                          ids, m0, n0);
                    });
              });
}

/// emitSteps on the emulated warp: at every step, the A fragments of each
/// row and the B fragments of each column loaded for every lane (through
/// the emulated ldmatrix where the GPU uses it), then the instructions on
/// the buffers.
void emulateSteps(OpBuilder &b, Location loc, const FragmentAccess &access,
                  const MmaContraction &contraction,
                  const EmulatedOperands &operands,
                  const WarpTiling::Tile &tile, ArrayRef<Value> cBuffers) {
  auto steps =
      scf::ForOp::create(b, loc, constantIndex(b, loc, 0),
                         constantIndex(b, loc, getStepsCovered(contraction)),
                         constantIndex(b, loc, getMmaSteps(contraction.kind)));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(steps.getBody());
  Value k0 = steps.getInductionVar();
  // (operand, its fragments' buffer, the instruction tile's corner).
  SmallVector<std::tuple<Operand, Value, Value, Value>> inputs;
  for (auto [m0, buffer] : llvm::zip_equal(tile.rows, operands.a))
    inputs.push_back({Operand::A, buffer, m0, tile.columns[0]});
  for (auto [n0, buffer] : llvm::zip_equal(tile.columns, operands.b))
    inputs.push_back({Operand::B, buffer, tile.rows[0], n0});
  for (auto [operand, fragments, m0, n0] : inputs) {
    std::optional<MatrixLoad> matrixLoad = access.getMatrixLoad(operand);
    if (!matrixLoad) {
      forEachLane(b, loc,
                  [&, operand = operand, fragments = fragments, m0 = m0,
                   n0 = n0](OpBuilder &nb, Location nloc, LaneIds ids,
                            Value lane) {
                    spillFragment(
                        nb, nloc,
                        access.load(nb, nloc, operand, ids, m0, n0, k0),
                        fragments, lane);
                  });
      continue;
    }
    // Each lane's row start, then the warp's ldmatrix.
    auto memory = cast<MemRefType>(matrixLoad->shared.getType());
    Value rowStarts = operands.rowStarts.lookup(memory.getRank());
    forEachLane(b, loc,
                [&, operand = operand, m0 = m0,
                 n0 = n0](OpBuilder &nb, Location nloc, LaneIds ids,
                          Value lane) {
                  for (auto [d, index] :
                       llvm::enumerate(access.getMatrixRowIndices(
                           nb, nloc, operand, *matrixLoad, ids, m0, n0, k0)))
                    memref::StoreOp::create(
                        nb, nloc, index, rowStarts,
                        ValueRange{lane, constantIndex(nb, nloc, d)});
                });
    emulateLdmatrix(b, loc, matrixLoad->shared, rowStarts, fragments,
                    matrixLoad->transpose, matrixLoad->tiles);
  }
  for (auto [i, aFragments] : llvm::enumerate(operands.a))
    for (auto [j, bFragments] : llvm::enumerate(operands.b))
      emulateMmaSync(b, loc, contraction.kind, aFragments, bFragments,
                     cBuffers[i * operands.b.size() + j]);
}

/// `fragment` (a lane's accumulator fragment of the instruction tile at
/// (m0, n0)) with `update`'s body applied to each of its elements: the
/// element is the body's accumulator argument, and each input is loaded at
/// the element's position in the accumulator (the update's loops, its
/// accumulator's map being the identity) through its own indexing map.
Value updateFragment(OpBuilder &b, Location loc, const FragmentAccess &access,
                     linalg::GenericOp update, LaneIds ids, Value m0, Value n0,
                     Value fragment) {
  VectorType type = cast<VectorType>(fragment.getType());
  for (int64_t r = 0; r < type.getDimSize(0); ++r)
    for (int64_t e = 0; e < type.getDimSize(1); ++e) {
      SmallVector<Value> loops =
          access.getOutputIndices(b, loc, ids, r, e, m0, n0);
      Value element =
          applyBodyAt(b, loc, update, loops, update.getDpsInitOperand(0), [&] {
            return vector::ExtractOp::create(b, loc, fragment,
                                             ArrayRef<int64_t>{r, e})
                .getResult();
          });
      fragment = vector::InsertOp::create(b, loc, element, fragment,
                                          ArrayRef<int64_t>{r, e});
    }
  return fragment;
}

} // namespace

//===----------------------------------------------------------------------===//
// Matching
//===----------------------------------------------------------------------===//

int64_t tfm::getMmaSteps(MmaKind kind) {
  return kind == MmaKind::TF32 ? 8 : 16;
}

std::optional<MmaKind> tfm::getMmaKind(linalg::LinalgOp op, bool tf32) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  Type a = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  Type b = getElementTypeOrSelf(op.getDpsInputOperand(1)->get());
  Type c = getElementTypeOrSelf(op.getDpsInitOperand(0)->get());
  // A float32 left operand with a float16 right one is flash attention's
  // P in a float16 model: it is rounded to float16 for the tensor cores, as
  // FlashAttention does. Float32 products are TF32 ones, when asked for.
  if ((a.isF16() || a.isF32()) && b.isF16() && c.isF32())
    return MmaKind::F16;
  if ((a.isBF16() || a.isF32()) && b.isBF16() && c.isF32())
    return MmaKind::BF16;
  if (tf32 && a.isF32() && b.isF32() && c.isF32())
    return MmaKind::TF32;
  return std::nullopt;
}

std::optional<MmaContraction> tfm::matchMmaContraction(linalg::LinalgOp op,
                                                       bool tf32) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  std::optional<MmaKind> kind = getMmaKind(op, tf32);
  if (!kind)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (unsigned batch : dims->batch)
    if (ranges[batch] != 1)
      return std::nullopt;
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
  MmaContraction contraction{*kind,
                             dims->m.front(),
                             dims->n.front(),
                             dims->k.front(),
                             ranges[dims->m.front()],
                             ranges[dims->n.front()],
                             ranges[dims->k.front()]};
  for (int64_t extent :
       {contraction.rows, contraction.columns, contraction.steps})
    if (ShapedType::isDynamic(extent) || extent <= 0)
      return std::nullopt;
  return contraction;
}

//===----------------------------------------------------------------------===//
// Emission
//===----------------------------------------------------------------------===//

// Warp w of the block computes warp tiles w, w + warps, ...: for each, the
// accumulator fragments of its instruction tiles are loaded, updated at
// every step of the reduction (emitSteps), and stored.
bool tfm::canFuseEpilogue(linalg::GenericOp epilogue, Value output) {
  if (!epilogue.hasPureBufferSemantics() || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops())
    return false;
  OpOperand *init = epilogue.getDpsInitOperand(0);
  if (init->get() == output ||
      !epilogue.getMatchingIndexingMap(init).isIdentity() ||
      !epilogue.getMatchingBlockArgument(init).use_empty())
    return false;
  int64_t reads = 0;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    Value value = input->get();
    if (value == init->get())
      return false;
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (value == output) {
      if (!map.isIdentity())
        return false;
      ++reads;
    } else if (isa<MemRefType>(value.getType()) &&
               !map.isProjectedPermutation(/*allowZeroInResults=*/false)) {
      return false;
    }
  }
  Block &body = epilogue.getRegion().front();
  return reads == 1 && body.getTerminator()->getNumOperands() == 1 &&
         llvm::all_of(body.without_terminator(), [](Operation &nested) {
           return nested.getNumRegions() == 0 && isMemoryEffectFree(&nested);
         });
}

Operation *tfm::emitWarpMma(OpBuilder &b, linalg::LinalgOp op,
                            const MmaContraction &contraction, Value thread,
                            int64_t blockSize, int64_t unrollSteps,
                            linalg::GenericOp epilogue) {
  assert(blockSize % kWarpLanes == 0 && "a block of whole warps");
  assert((!epilogue ||
          canFuseEpilogue(epilogue, op.getDpsInitOperand(0)->get())) &&
         "an epilogue applied as the result is stored");
  Location loc = op.getLoc();
  FragmentAccess access(op, contraction, /*emulated=*/false, epilogue);
  WarpTiling tiling(contraction);
  Value warpSize = constantIndex(b, loc, kWarpLanes);
  Value warp = arith::DivUIOp::create(b, loc, thread, warpSize);
  LaneIds ids =
      getLaneIds(b, loc, arith::RemUIOp::create(b, loc, thread, warpSize));
  OpBuilder::InsertionGuard guard(b);
  auto [loop, tile] = tiling.createLoop(b, loc, warp, blockSize / kWarpLanes);
  SmallVector<Value> results =
      emitSteps(b, loc, access, contraction, ids, tile,
                loadAccumulators(b, loc, access, ids, tile), unrollSteps);
  storeAccumulators(b, loc, access, ids, tile, results);
  return loop;
}

// The same loops with the warp's lanes spelled out: each lane's fragments go
// through buffers of 32 lanes x registers x elements, and the instruction
// reads and writes those buffers (emulateMmaSync).
Operation *tfm::emitEmulatedWarpMma(OpBuilder &b, linalg::LinalgOp op,
                                    const MmaContraction &contraction,
                                    linalg::GenericOp epilogue) {
  Location loc = op.getLoc();
  FragmentAccess access(op, contraction, /*emulated=*/true, epilogue);
  WarpTiling tiling(contraction);
  EmulatedOperands operands = allocateOperands(b, loc, access, tiling);
  SmallVector<Value> cBuffers = allocateAccumulators(b, loc, access, tiling);
  OpBuilder::InsertionGuard guard(b);
  auto [loop, tile] = tiling.createLoop(b, loc, constantIndex(b, loc, 0), 1);
  emulateLoadAccumulators(b, loc, access, tile, cBuffers);
  emulateSteps(b, loc, access, contraction, operands, tile, cBuffers);
  emulateStoreAccumulators(b, loc, access, tile, cBuffers);
  return loop;
}

//===----------------------------------------------------------------------===//
// Accumulators kept across contractions
//===----------------------------------------------------------------------===//

struct WarpAccumulators::Impl {
  Impl(linalg::LinalgOp op, const MmaContraction &contraction, bool emulated,
       int64_t unrollSteps)
      : access(op, contraction, emulated), contraction(contraction),
        tiling(contraction), emulated(emulated), unrollSteps(unrollSteps) {}

  FragmentAccess access;
  MmaContraction contraction;
  WarpTiling tiling;
  bool emulated;
  int64_t unrollSteps;
  /// The warp tiles the thread's warp owns.
  SmallVector<WarpTiling::Tile> tiles;
  /// On the GPU: the lane's ids.
  LaneIds ids;
  /// In the emulation: the multiplicands' buffers, and each owned warp
  /// tile's accumulator buffers.
  EmulatedOperands operands;
  SmallVector<SmallVector<Value>> cBuffers;
};

bool WarpAccumulators::canKeep(const MmaContraction &contraction,
                               int64_t blockSize) {
  int64_t warps = std::max<int64_t>(blockSize / kWarpLanes, 1);
  return WarpTiling(contraction).getWarpTileCount() % warps == 0;
}

WarpAccumulators::WarpAccumulators(OpBuilder &b, linalg::LinalgOp op,
                                   const MmaContraction &contraction,
                                   Value thread, int64_t blockSize,
                                   bool emulated, int64_t unrollSteps)
    : impl(std::make_unique<Impl>(op, contraction, emulated, unrollSteps)) {
  assert(canKeep(contraction, blockSize) && "warps owning whole warp tiles");
  Location loc = op.getLoc();
  int64_t warps = emulated ? 1 : blockSize / kWarpLanes;
  Value warp = constantIndex(b, loc, 0);
  if (!emulated) {
    Value warpSize = constantIndex(b, loc, kWarpLanes);
    warp = arith::DivUIOp::create(b, loc, thread, warpSize);
    impl->ids =
        getLaneIds(b, loc, arith::RemUIOp::create(b, loc, thread, warpSize));
  }
  int64_t owned = impl->tiling.getWarpTileCount() / warps;
  for (int64_t i = 0; i < owned; ++i)
    impl->tiles.push_back(
        impl->tiling.getTile(b, loc, addConstant(b, loc, warp, i * warps)));
  if (!emulated) {
    for (const WarpTiling::Tile &tile : impl->tiles)
      llvm::append_range(
          fragments, loadAccumulators(b, loc, impl->access, impl->ids, tile));
    return;
  }
  impl->operands = allocateOperands(b, loc, impl->access, impl->tiling);
  for (const WarpTiling::Tile &tile : impl->tiles) {
    impl->cBuffers.push_back(
        allocateAccumulators(b, loc, impl->access, impl->tiling));
    emulateLoadAccumulators(b, loc, impl->access, tile, impl->cBuffers.back());
  }
}

WarpAccumulators::~WarpAccumulators() = default;

Value WarpAccumulators::getOutput() const {
  return impl->access.getOperand(Operand::C);
}

SmallVector<Value> WarpAccumulators::accumulate(
    OpBuilder &b, linalg::LinalgOp op, const MmaContraction &contraction,
    ValueRange current) const {
  assert(op.getDpsInitOperand(0)->get() == getOutput() &&
         contraction.kind == impl->contraction.kind &&
         contraction.rows == impl->contraction.rows &&
         contraction.columns == impl->contraction.columns &&
         "a contraction into the kept accumulators");
  Location loc = op.getLoc();
  FragmentAccess access(op, contraction, impl->emulated);
  int64_t tiles = impl->tiling.getTileSize();
  SmallVector<Value> next;
  for (auto [i, tile] : llvm::enumerate(impl->tiles)) {
    if (impl->emulated) {
      emulateSteps(b, loc, access, contraction, impl->operands, tile,
                   impl->cBuffers[i]);
      continue;
    }
    llvm::append_range(next, emitSteps(b, loc, access, contraction, impl->ids,
                                       tile, current.slice(i * tiles, tiles),
                                       impl->unrollSteps));
  }
  return next;
}

bool WarpAccumulators::canUpdate(linalg::GenericOp op, Value output,
                                 const MmaContraction &contraction) {
  if (contraction.rows % kMmaRows != 0 ||
      contraction.columns % kMmaColumns != 0 || !op.hasPureBufferSemantics() ||
      op.getNumDpsInits() != 1 || op.getDpsInitOperand(0)->get() != output ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !getElementTypeOrSelf(output.getType()).isF32())
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() == output ||
        (isa<MemRefType>(input->get().getType()) &&
         !op.getMatchingIndexingMap(input).isProjectedPermutation(
             /*allowZeroInResults=*/false)))
      return false;
  Block &body = op.getRegion().front();
  return body.getTerminator()->getNumOperands() == 1 &&
         llvm::all_of(body.without_terminator(), [](Operation &nested) {
           return nested.getNumRegions() == 0 && isMemoryEffectFree(&nested) &&
                  !isa<linalg::IndexOp>(nested);
         });
}

SmallVector<Value> WarpAccumulators::update(OpBuilder &b, linalg::GenericOp op,
                                            ValueRange current) const {
  assert(canUpdate(op, getOutput(), impl->contraction) &&
         "an elementwise update of the kept accumulators");
  Location loc = op.getLoc();
  const FragmentAccess &access = impl->access;
  int64_t tiles = impl->tiling.getTileSize();
  SmallVector<Value> next;
  for (auto [i, tile] : llvm::enumerate(impl->tiles)) {
    if (!impl->emulated) {
      size_t first = i * tiles;
      forEachInstructionTile(tile, [&](Value m0, Value n0, int64_t fragment) {
        next.push_back(updateFragment(b, loc, access, op, impl->ids, m0, n0,
                                      current[first + fragment]));
      });
      continue;
    }
    // Each lane's fragments, from the emulated warp's buffers and back.
    forEachLane(b, loc,
                [&, i = i, &tile = tile](OpBuilder &nb, Location nloc,
                                         LaneIds ids, Value lane) {
                  forEachInstructionTile(
                      tile, [&](Value m0, Value n0, int64_t fragment) {
                        Value buffer = impl->cBuffers[i][fragment];
                        Value values = reloadFragment(
                            nb, nloc, access.getType(Operand::C), buffer, lane);
                        spillFragment(nb, nloc,
                                      updateFragment(nb, nloc, access, op, ids,
                                                     m0, n0, values),
                                      buffer, lane);
                      });
                });
  }
  return next;
}

void WarpAccumulators::store(OpBuilder &b, Location loc, ValueRange final,
                             linalg::GenericOp epilogue) const {
  assert((!epilogue || canFuseEpilogue(epilogue, getOutput())) &&
         "an epilogue applied as the result is stored");
  FragmentAccess access = impl->access.withEpilogue(epilogue);
  int64_t tiles = impl->tiling.getTileSize();
  for (auto [i, tile] : llvm::enumerate(impl->tiles)) {
    if (impl->emulated)
      emulateStoreAccumulators(b, loc, access, tile, impl->cBuffers[i]);
    else
      storeAccumulators(b, loc, access, impl->ids, tile,
                        final.slice(i * tiles, tiles));
  }
}
