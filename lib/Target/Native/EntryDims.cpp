//===- EntryDims.cpp - The dynamic sizes of a compiled entry --------------===//
//
// A binary compiled from an entry with dynamic dimensions takes each of its
// distinct sizes once, as an integer next to the buffers: `tfm_main(batch,
// seq, x, mask, y)`. Which dimensions are the same size is what the graph
// requires: an attention's queries and keys share their batch, a
// residual's operands their every dimension. bindEntryDims finds these ties
// on a copy of the entry lowered to linalg, where every requirement is
// explicit (a loop reads all the dimensions that it indexes; an elementwise
// op's operands have one shape; tensor.dim, tensor.empty and the reshapes
// carry sizes from one tensor to another), with a union-find over
// (tensor, dimension) pairs and index values.
//
//===----------------------------------------------------------------------===//

#include "tfm/Target/Native/EntryPoint.h"

#include "tfm/Conversion/Passes.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// A dimension of a tensor value, or (with dim -1) an index value.
using Size = std::pair<Value, int64_t>;

/// Union-find over sizes, each class with the static size that some member
/// has (or none).
class SizeClasses {
public:
  unsigned get(Size size) {
    auto [it, inserted] = ids.try_emplace(size, parent.size());
    if (inserted) {
      parent.push_back(it->second);
      staticSize.push_back(ShapedType::kDynamic);
      if (size.second >= 0) {
        if (auto type = dyn_cast<ShapedType>(size.first.getType());
            type && !type.isDynamicDim(size.second))
          setStatic(it->second, type.getDimSize(size.second));
      } else if (std::optional<int64_t> constant =
                     getConstantIntValue(size.first)) {
        setStatic(it->second, *constant);
      }
    }
    return find(it->second);
  }

  unsigned find(unsigned id) {
    while (parent[id] != id)
      id = parent[id] = parent[parent[id]];
    return id;
  }

  void tie(Size a, Size b) { unite(get(a), get(b)); }

  /// Ties dimension `dim` of `value` to the size `size`, a value or an
  /// attribute (an attribute ties nothing: the type says it already).
  void tie(Value value, int64_t dim, OpFoldResult size) {
    if (auto sizeValue = dyn_cast<Value>(size))
      tie({value, dim}, {sizeValue, -1});
  }

  /// Ties every dimension of `a` to the same one of `b`.
  void tieShapes(Value a, Value b) {
    auto ta = dyn_cast<RankedTensorType>(a.getType());
    auto tb = dyn_cast<RankedTensorType>(b.getType());
    if (!ta || !tb || ta.getRank() != tb.getRank())
      return;
    for (int64_t d = 0; d < ta.getRank(); ++d)
      tie({a, d}, {b, d});
  }

  int64_t getStatic(unsigned root) { return staticSize[find(root)]; }

  /// Records that `whole` is `factor` times `part` (a reshape that folds a
  /// dynamic size and static ones into one dimension).
  void product(Size whole, int64_t factor, Size part) {
    products.push_back({get(whole), factor, get(part)});
  }

  /// Ties the parts of equal wholes of one factor, and the wholes of equal
  /// parts, until nothing changes: the [B, 4] lengths of a multi-head
  /// attention and its [B, S, 4, D] queries, both collapsed to B * 4, tie
  /// the two B.
  void tieProducts() {
    for (bool changed = true; changed;) {
      changed = false;
      DenseMap<std::pair<unsigned, int64_t>, unsigned> partOf, wholeOf;
      for (auto [whole, factor, part] : products) {
        unsigned w = find(whole), p = find(part);
        auto [pi, newWhole] = partOf.try_emplace({w, factor}, p);
        auto [wi, newPart] = wholeOf.try_emplace({p, factor}, w);
        for (auto [a, b] : {std::pair(pi->second, p), std::pair(wi->second, w)})
          if (find(a) != find(b)) {
            unite(a, b);
            changed = true;
          }
      }
    }
  }

  /// Records that `whole` is the sum of `parts` (a concatenation along a
  /// dynamic axis).
  void sum(Size whole, ArrayRef<Size> parts) {
    Sum entry{get(whole), {}};
    for (Size part : parts)
      entry.parts.push_back(get(part));
    sums.push_back(std::move(entry));
  }

  /// The classes whose sum class `root` is, by some concatenation; empty if
  /// none.
  SmallVector<SmallVector<unsigned>> getSums(unsigned root) {
    SmallVector<SmallVector<unsigned>> result;
    for (const Sum &entry : sums)
      if (find(entry.whole) == find(root))
        result.push_back(entry.parts);
    return result;
  }

private:
  void setStatic(unsigned id, int64_t size) { staticSize[id] = size; }

  struct Sum {
    unsigned whole;
    SmallVector<unsigned> parts;
  };
  SmallVector<Sum> sums;

  void unite(unsigned a, unsigned b) {
    unsigned ra = find(a), rb = find(b);
    if (ra == rb)
      return;
    parent[rb] = ra;
    if (ShapedType::isDynamic(staticSize[ra]))
      staticSize[ra] = staticSize[rb];
  }

  struct Product {
    unsigned whole;
    int64_t factor;
    unsigned part;
  };
  SmallVector<Product> products;

  DenseMap<Size, unsigned> ids;
  SmallVector<unsigned> parent;
  SmallVector<int64_t> staticSize;
};

/// Ties the loops of a structured op: all the operand dimensions that one
/// loop indexes are the same size, and each result has its init's shape.
void tieLinalgOp(linalg::LinalgOp op, SizeClasses &classes) {
  SmallVector<std::optional<Size>> loops(op.getNumLoops());
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        continue;
      Size size{operand.get(), static_cast<int64_t>(i)};
      std::optional<Size> &loop = loops[dim.getPosition()];
      if (loop)
        classes.tie(*loop, size);
      else
        loop = size;
    }
  }
}

/// tfm.online_attention: query [B..., M, D], key_t [B..., D, K], value
/// [B..., K, N], acc [B..., M, N], max and sum [B..., M]; valid_lens
/// [B...] or [B..., M]; mask [B'..., M, K] with each batch size 1 or B.
void tieOnlineAttention(OnlineAttentionOp op, SizeClasses &classes) {
  int64_t b = op.getBatchRank();
  Value q = op.getQuery(), kt = op.getKeyT(), v = op.getValue();
  Value acc = op.getAcc();
  for (Value other : {kt, v, acc, Value(op.getMax()), Value(op.getSum())})
    for (int64_t d = 0; d < b; ++d)
      classes.tie({q, d}, {other, d});
  classes.tie({q, b}, {acc, b});
  classes.tie({q, b}, {op.getMax(), b});
  classes.tie({q, b}, {op.getSum(), b});
  classes.tie({q, b + 1}, {kt, b});
  classes.tie({kt, b + 1}, {v, b});
  classes.tie({v, b + 1}, {acc, b + 1});
  if (Value lens = op.getValidLens()) {
    auto type = cast<RankedTensorType>(lens.getType());
    for (int64_t d = 0; d < type.getRank(); ++d)
      classes.tie({lens, d}, {q, d});
  }
  // A mask's dimension of static size 1 is broadcast; a dynamic one is the
  // full size.
  if (Value mask = op.getMask()) {
    auto type = cast<RankedTensorType>(mask.getType());
    int64_t rank = type.getRank();
    int64_t full[] = {b, b + 1};
    Value fullOf[] = {q, kt};
    for (int64_t d = 0; d < rank; ++d) {
      if (!type.isDynamicDim(d))
        continue;
      int64_t fromEnd = rank - d;
      if (fromEnd <= 2)
        classes.tie({mask, d}, {fullOf[2 - fromEnd], full[2 - fromEnd]});
      else if (b - (fromEnd - 2) >= 0)
        classes.tie({mask, d}, {q, b - (fromEnd - 2)});
    }
  }
}

/// A reshape's dimension `whole` is the product of the dimensions `group`
/// of `parts`: with one dynamic size among them, it is that size times the
/// static ones.
void tieReshapeGroup(Size whole, Value parts, ArrayRef<int64_t> group,
                     SizeClasses &classes) {
  auto type = cast<RankedTensorType>(parts.getType());
  std::optional<int64_t> dynamic;
  int64_t factor = 1;
  for (int64_t d : group) {
    if (!type.isDynamicDim(d)) {
      factor *= type.getDimSize(d);
      continue;
    }
    if (dynamic)
      return;
    dynamic = d;
  }
  if (!dynamic)
    return;
  if (factor == 1)
    classes.tie(whole, {parts, *dynamic});
  else
    classes.product(whole, factor, {parts, *dynamic});
}

void tieOp(Operation *op, SizeClasses &classes) {
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    if (std::optional<int64_t> index = dim.getConstantIndex())
      classes.tie({dim.getResult(), -1}, {dim.getSource(), *index});
    return;
  }
  if (isa<tensor::EmptyOp, bufferization::AllocTensorOp>(op)) {
    Value result = op->getResult(0);
    auto type = cast<RankedTensorType>(result.getType());
    ValueRange sizes = isa<tensor::EmptyOp>(op)
                           ? cast<tensor::EmptyOp>(op).getDynamicSizes()
                           : cast<bufferization::AllocTensorOp>(op)
                                 .getDynamicSizes();
    unsigned next = 0;
    for (int64_t d = 0; d < type.getRank() && next < sizes.size(); ++d)
      if (type.isDynamicDim(d))
        classes.tie({result, d}, {sizes[next++], -1});
    return;
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    int64_t resultDim = 0;
    for (auto [d, size] : llvm::enumerate(slice.getMixedSizes())) {
      if (dropped.test(d))
        continue;
      classes.tie(slice.getResult(), resultDim++, size);
    }
    return;
  }
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
    classes.tieShapes(insert.getResult(), insert.getDest());
    return;
  }
  if (auto cast = dyn_cast<tensor::CastOp>(op)) {
    classes.tieShapes(cast.getSource(), cast.getResult());
    return;
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    Value result = expand.getResult();
    for (auto [d, size] : llvm::enumerate(expand.getMixedOutputShape()))
      classes.tie(result, d, size);
    for (auto [source, group] :
         llvm::enumerate(expand.getReassociationIndices()))
      tieReshapeGroup({expand.getSrc(), static_cast<int64_t>(source)}, result,
                      group, classes);
    return;
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    for (auto [result, group] :
         llvm::enumerate(collapse.getReassociationIndices()))
      tieReshapeGroup({collapse.getResult(), static_cast<int64_t>(result)},
                      collapse.getSrc(), group, classes);
    return;
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    int64_t axis = concat.getDim();
    SmallVector<Size> parts;
    for (Value input : concat.getInputs()) {
      for (int64_t d = 0, e = concat.getResultType().getRank(); d < e; ++d)
        if (d != axis)
          classes.tie({input, d}, {concat.getResult(), d});
      parts.push_back({input, axis});
    }
    classes.sum({concat.getResult(), axis}, parts);
    return;
  }
  // A size computed as a sum (a class token prepended: seq + 1).
  if (auto add = dyn_cast<arith::AddIOp>(op)) {
    if (add.getType().isIndex())
      classes.sum({add.getResult(), -1},
                  {{add.getLhs(), -1}, {add.getRhs(), -1}});
    return;
  }
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
    classes.tieShapes(softmax.getInput(), softmax.getOutput());
    classes.tieShapes(softmax.getInput(), softmax.getResult()[0]);
    return;
  }
  if (auto attention = dyn_cast<OnlineAttentionOp>(op)) {
    tieOnlineAttention(attention, classes);
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    tieLinalgOp(linalgOp, classes);
  } else if (op->hasTrait<OpTrait::Elementwise>()) {
    // Elementwise ops on tensors take and give one shape.
    for (Value operand : op->getOperands())
      for (Value result : op->getResults())
        classes.tieShapes(operand, result);
  }
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    for (OpResult result : op->getResults())
      classes.tieShapes(result, dps.getTiedOpOperand(result)->get());
}

/// The terms of a size that is a sum of the inputs' sizes and constants
/// (symbolDim(i) for the i-th size, then one constant if not 0), found
/// through the concatenations that make class `root`; none if it is not
/// one. `depth` stops a cycle of sums.
std::optional<SmallVector<int64_t>>
getSumTerms(unsigned root, SizeClasses &classes,
            const DenseMap<unsigned, int64_t> &symbolOf, int depth = 0) {
  root = classes.find(root);
  if (auto it = symbolOf.find(root); it != symbolOf.end())
    return SmallVector<int64_t>{TensorSpec::symbolDim(it->second)};
  if (int64_t size = classes.getStatic(root); !ShapedType::isDynamic(size))
    return SmallVector<int64_t>{size};
  if (depth > 16)
    return std::nullopt;
  for (ArrayRef<unsigned> parts : classes.getSums(root)) {
    SmallVector<int64_t> terms;
    int64_t constant = 0;
    bool complete = true;
    for (unsigned part : parts) {
      std::optional<SmallVector<int64_t>> partTerms =
          getSumTerms(part, classes, symbolOf, depth + 1);
      if (!partTerms) {
        complete = false;
        break;
      }
      for (int64_t term : *partTerms) {
        if (TensorSpec::getSymbol(term))
          terms.push_back(term);
        else
          constant += term;
      }
    }
    if (!complete || terms.empty())
      continue;
    if (constant != 0)
      terms.push_back(constant);
    return terms;
  }
  return std::nullopt;
}

/// The symbol of the size that is the sum of `terms`, added to `signature`
/// if it is new: named after its terms, `past_plus_seq`.
int64_t getSumSymbol(ArrayRef<int64_t> terms, EntrySignature &signature) {
  signature.dimSums.resize(signature.dimNames.size());
  for (auto [symbol, sum] : llvm::enumerate(signature.dimSums))
    if (ArrayRef<int64_t>(sum) == terms)
      return symbol;
  std::string name;
  for (int64_t term : terms) {
    if (!name.empty())
      name += "_plus_";
    std::optional<int64_t> symbol = TensorSpec::getSymbol(term);
    name += symbol ? signature.dimNames[*symbol] : std::to_string(term);
  }
  signature.dimNames.push_back(name);
  signature.dimSums.emplace_back(terms.begin(), terms.end());
  return signature.dimNames.size() - 1;
}

/// The name of the dynamic size that dimension `dim` of input `spec` gets
/// when the graph names none.
std::string defaultName(const TensorSpec &spec, int64_t dim) {
  return spec.name + "_dim" + std::to_string(dim);
}

} // namespace

LogicalResult tfm::bindEntryDims(func::FuncOp entry,
                                 EntrySignature &signature) {
  for (auto [i, spec] : llvm::enumerate(signature.inputs)) {
    Attribute attr = entry.getArgAttr(i, kEntryDimsAttr);
    if (!attr)
      continue;
    auto names = dyn_cast<ArrayAttr>(attr);
    bool valid = names && static_cast<int64_t>(names.size()) ==
                              spec.type.getRank();
    for (int64_t d = 0; valid && d < spec.type.getRank(); ++d) {
      auto name = dyn_cast<StringAttr>(names[d]);
      valid = name && (name.getValue().empty() || spec.type.isDynamicDim(d));
    }
    if (!valid)
      return mlir::emitError(entry.getLoc())
             << "entry @" << entry.getSymName() << ": input " << i << "'s "
             << kEntryDimsAttr << " must name each dimension of " << spec.type
             << " (\"\" for none, and none of a static size), found " << attr;
  }
  auto hasDynamic = [](const TensorSpec &spec) {
    return !spec.type.hasStaticShape();
  };
  if (llvm::none_of(signature.inputs, hasDynamic) &&
      llvm::none_of(signature.outputs, hasDynamic))
    return success();

  // A copy of the module, its entry inlined and lowered to linalg on
  // tensors.
  MLIRContext *ctx = entry.getContext();
  OwningOpRef<ModuleOp> copy = ModuleOp::create(entry.getLoc());
  auto module = entry->getParentOfType<ModuleOp>();
  for (Operation &op : module.getBody()->getOperations())
    copy->getBody()->push_back(op.clone());
  auto copyEntry = copy->lookupSymbol<func::FuncOp>(entry.getSymName());
  PassManager pm(ctx);
  // Calls tie their arguments' sizes to the callee's: inline them.
  pm.addPass(createInlinerPass());
  pm.addPass(createConvertTfmToLinalg());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*copy)))
    return mlir::emitError(entry.getLoc()) << "entry @" << entry.getSymName()
                             << ": cannot analyze its dynamic sizes";

  SizeClasses classes;
  copyEntry.walk([&](Operation *op) { tieOp(op, classes); });
  classes.tieProducts();
  Block &body = copyEntry.getBody().front();
  // Sizes that the graph names (ONNX's dim_param, tfm.dims) are the same
  // size wherever the name appears.
  llvm::StringMap<Size> named;
  for (auto [i, spec] : llvm::enumerate(signature.inputs)) {
    auto names = entry.getArgAttrOfType<ArrayAttr>(i, kEntryDimsAttr);
    for (int64_t d = 0, e = spec.type.getRank(); d < e; ++d) {
      auto name = names && d < static_cast<int64_t>(names.size())
                      ? dyn_cast<StringAttr>(names[d])
                      : StringAttr();
      if (!name || name.getValue().empty() || !spec.type.isDynamicDim(d))
        continue;
      Size size{body.getArgument(i), d};
      auto [it, inserted] = named.try_emplace(name.getValue(), size);
      if (!inserted)
        classes.tie(it->second, size);
    }
  }

  // One dynamic size per class of input dimensions, in order of first use.
  DenseMap<unsigned, int64_t> symbolOf;
  for (auto [i, spec] : llvm::enumerate(signature.inputs)) {
    auto names = entry.getArgAttrOfType<ArrayAttr>(i, kEntryDimsAttr);
    spec.dims.assign(spec.type.getShape().begin(), spec.type.getShape().end());
    for (int64_t d = 0, e = spec.type.getRank(); d < e; ++d) {
      if (!spec.type.isDynamicDim(d))
        continue;
      unsigned root = classes.get({body.getArgument(i), d});
      if (int64_t size = classes.getStatic(root); !ShapedType::isDynamic(size)) {
        spec.dims[d] = size;
        continue;
      }
      auto [it, inserted] =
          symbolOf.try_emplace(root, signature.dimNames.size());
      if (inserted) {
        auto name = names && d < static_cast<int64_t>(names.size())
                        ? dyn_cast<StringAttr>(names[d])
                        : StringAttr();
        signature.dimNames.push_back(name && !name.getValue().empty()
                                         ? sanitizeName(name.getValue())
                                         : defaultName(spec, d));
      }
      spec.dims[d] = TensorSpec::symbolDim(it->second);
    }
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [i, spec] : llvm::enumerate(signature.outputs)) {
    spec.dims.assign(spec.type.getShape().begin(), spec.type.getShape().end());
    for (int64_t d = 0, e = spec.type.getRank(); d < e; ++d) {
      if (!spec.type.isDynamicDim(d))
        continue;
      unsigned root = classes.get({ret.getOperand(i), d});
      if (auto it = symbolOf.find(root); it != symbolOf.end()) {
        spec.dims[d] = TensorSpec::symbolDim(it->second);
        continue;
      }
      if (int64_t size = classes.getStatic(root); !ShapedType::isDynamic(size)) {
        spec.dims[d] = size;
        continue;
      }
      // A sum of the inputs' sizes (`present = concat(past, new)` is past +
      // seq long): a size of its own, which the caller computes.
      if (std::optional<SmallVector<int64_t>> terms =
              getSumTerms(root, classes, symbolOf)) {
        spec.dims[d] =
            terms->size() == 1
                ? terms->front()
                : TensorSpec::symbolDim(getSumSymbol(*terms, signature));
        continue;
      }
      return mlir::emitError(entry.getLoc())
             << "entry @" << entry.getSymName() << ": dimension " << d
             << " of result " << i << " (" << spec.name
             << ") is computed from the inputs' sizes other than as their "
                "sum; tfm's binaries return results whose dynamic sizes "
                "are input sizes or sums of them";
    }
  }
  return success();
}
