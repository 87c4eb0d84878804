//===- DeviceConstants.h - Constants kept on the device ---------*- C++ -*-===//
//
// A model's constants (its weights) are copied to the device once, on the
// first call that needs them, and stay there for the process (or the
// library) that holds them: `tfm-gpu-place-buffers` reads each through a
// call of the runtime's `tfmGpuConstant_<element>` (runtime/GpuRuntime.cpp),
// which takes the host copy as a one-dimensional memref and returns the
// device copy, made the first time it is asked for. The CPU emulation
// (`tfm-emulate-gpu-on-cpu`) answers the call with the host copy itself.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_GPU_DEVICECONSTANTS_H
#define TFM_LIB_CODEGEN_GPU_DEVICECONSTANTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir {
namespace tfm {

/// The runtime function that returns the device copy of a constant with
/// elements of type `element` (e.g. `tfmGpuConstant_f32`), or "" if the
/// runtime has none for that type (such a constant is copied at every call).
std::string getDeviceConstantFunction(Type element);

/// Whether `call` asks the runtime for a constant's device copy.
bool isDeviceConstantCall(func::CallOp call);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CODEGEN_GPU_DEVICECONSTANTS_H
