"""float32 ONNX models as float16 ones: what `model.half()` before
`torch.onnx.export` writes, for PyTorch builds that cannot run a half
model on the CPU (PyTorch 1.13: no float16 matmul there).

    to_float16(model) -> a new onnx.ModelProto

Every float32 tensor of the graph becomes float16: the initializers and
Constant values (rounded to nearest), the graph's inputs and outputs, the
value_info, and each Cast to FLOAT a Cast to FLOAT16. The ops compute in
float16 as the exported half model's would; integer tensors are left as
they are.
"""

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper


def _half_tensor(tensor):
    if tensor.data_type != TensorProto.FLOAT:
        return tensor
    array = numpy_helper.to_array(tensor).astype(np.float16)
    return numpy_helper.from_array(array, tensor.name)


def _half_type(value_info):
    tensor_type = value_info.type.tensor_type
    if tensor_type.elem_type == TensorProto.FLOAT:
        tensor_type.elem_type = TensorProto.FLOAT16


def to_float16(model):
    """A copy of MODEL with its float32 tensors made float16."""
    half = onnx.ModelProto()
    half.CopyFrom(model)
    graph = half.graph
    for i, tensor in enumerate(graph.initializer):
        graph.initializer[i].CopyFrom(_half_tensor(tensor))
    for values in (graph.input, graph.output, graph.value_info):
        for value in values:
            _half_type(value)
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                attr.t.CopyFrom(_half_tensor(attr.t))
            elif node.op_type == "Cast" and attr.name == "to" and \
                    attr.i == TensorProto.FLOAT:
                attr.i = TensorProto.FLOAT16
            elif node.op_type == "ConstantOfShape" and attr.name == "value":
                attr.t.CopyFrom(_half_tensor(attr.t))
    return half
