# -*- Python -*-
# lit configuration of the tfm test suite.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TFM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "lib"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tfm_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tfm_src_root", config.tfm_src_root))
config.substitutions.append(("%tfm_tools_dir", config.tfm_tools_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# lit runs tests side by side; compiled models use one OpenMP thread unless a
# test asks for more (as the parallel-loop tests do).
config.environment["OMP_NUM_THREADS"] = "1"
llvm_config.use_default_substitutions()

# FileCheck, not and count come from LLVM; the tfm tools from the build.
tool_dirs = [config.tfm_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tfm-opt", "tfm-compile", "tfm-translate"],
                                   tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# %cc compiles the tests' C callers of compiled libraries; in a sanitizer
# build (TFM_SANITIZERS) with the sanitizers the libraries were linked for,
# and with the options scripts/sanitize.sh documents.
cc = "clang-22"
if config.tfm_sanitizers:
    cc += " -fsanitize=" + config.tfm_sanitizers
    config.available_features.add("sanitizers")
    suppressions = os.path.join(config.tfm_src_root, "scripts",
                                "sanitizer-suppressions")
    config.environment["ASAN_OPTIONS"] = (
        "allow_user_poisoning=0:detect_container_overflow=0:"
        "detect_leaks=1:abort_on_error=0")
    config.environment["LSAN_OPTIONS"] = (
        "suppressions=%s/lsan.txt" % suppressions)
    config.environment["UBSAN_OPTIONS"] = (
        "print_stacktrace=1:halt_on_error=1:suppressions=%s/ubsan.txt"
        % suppressions)
config.substitutions.append(("%cc", cc))

# Integration tests compare against NumPy references, with Debian's python3.
config.python = "/usr/bin/python3"
config.substitutions.append(("%python", config.python))
# %pytools: the directory holding the tfm_tools package (python/), for tests
# that import it inline; %testlib: the test drivers (opcheck.py, ...).
config.substitutions.append(
    ("%pytools", os.path.join(config.tfm_src_root, "python")))
config.substitutions.append(
    ("%testlib", os.path.join(config.tfm_src_root, "test", "lib")))
import subprocess

def has_module(name):
    try:
        subprocess.run([config.python, "-c", "import " + name], check=True,
                       capture_output=True)
        return True
    except (OSError, subprocess.CalledProcessError):
        return False

if has_module("numpy"):
    config.available_features.add("numpy")

# Code compiled with --cpu=avx512 runs only where the host has AVX-512; the
# AVX2 code of --cpu=avx2 runs on every machine tfm is tested on.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        if " avx512f" in cpuinfo.read():
            config.available_features.add("avx512")
except OSError:
    pass

# Tensor-parallel models run under Open MPI's mpirun where tfm was built with
# its MPI runtime. CI runs as root, and the tests may start more ranks than
# the machine has cores; each rank computes on one thread.
import shutil

mpirun = shutil.which("mpirun")
if mpirun and os.path.exists(os.path.join(config.tfm_obj_root, "lib",
                                          "libtfm_mpi_runtime.a")):
    config.available_features.add("mpi")
    # In the sanitizer run the ranks skip the leak check: Open MPI leaks in
    # its plugins, which it unloads before the check, so that no
    # suppression can name them (test/lib/readme.py does the same).
    ranks_env = ""
    if config.tfm_sanitizers:
        ranks_env = "-x ASAN_OPTIONS=%s:detect_leaks=0 " % (
            config.environment["ASAN_OPTIONS"])
    config.substitutions.append(
        ("%mpirun", mpirun + " --oversubscribe --allow-run-as-root "
         "--bind-to none -x OMP_NUM_THREADS=1 " + ranks_env + "-np"))

# ptxas assembles the GPU tests' PTX where a CUDA toolkit is installed (on
# PATH or under /usr/local/cuda), as tfm-compile looks for it.
ptxas = shutil.which("ptxas") or next(
    (p for p in [os.path.join(os.environ.get("CUDA_HOME", ""), "bin", "ptxas"),
                 "/usr/local/cuda/bin/ptxas"] if os.access(p, os.X_OK)), None)
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# The CUDA toolkit tfm-compile finds (the first of these that holds
# libdevice), as tfm-gpu-pipeline options, so that a test can run tfm-opt with
# the options tfm-compile sets on this machine; without one, tfm-compile also
# empties CUDA_ROOT so that MLIR's NVVM target does not look for one.
cuda_prefixes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH",
                                              "CUDA_ROOT")]
cuda_prefixes.append("/usr/local/cuda")
if shutil.which("ptxas"):
    cuda_prefixes.append(os.path.dirname(os.path.dirname(
        os.path.realpath(shutil.which("ptxas")))))
cuda_prefix = next((p for p in cuda_prefixes if p and os.path.isfile(
    os.path.join(p, "nvvm", "libdevice", "libdevice.10.bc"))), None)
if cuda_prefix:
    config.substitutions.append(("%gpu_toolkit_env", ""))
    config.substitutions.append(
        ("%gpu_toolkit_options", "toolkit=%s libdevice=true" % cuda_prefix))
else:
    config.substitutions.append(("%gpu_toolkit_env", "env CUDA_ROOT="))
    config.substitutions.append(
        ("%gpu_toolkit_options", "toolkit= libdevice=false"))

# The ONNX tests export PyTorch modules with Debian's python3-torch.
if has_module("torch") and has_module("torchvision"):
    config.available_features.add("torch")

# The official ONNX backend node tests (test/lib/onnxnodes.py) come from
# Debian's python3-onnx, which scripts/setup.sh installs.
if has_module("onnx"):
    config.available_features.add("onnx")

# ONNX models written as protobuf text (test/Target/Onnx/Inputs/*.textproto)
# are encoded with protoc against libonnx-dev's schema.
config.substitutions.append(
    ("%onnx-encode", "protoc --encode=onnx.ModelProto -I/usr/include/onnx "
     "/usr/include/onnx/onnx.proto"))
