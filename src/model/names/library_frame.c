/* library_frame.c - whether a stack frame belongs to a runtime, library or interpreter:
 * a classification of a name, used by the stack loader and the stack views alike. */
#include <stddef.h>
#include <string.h>

#include "dcutop/names.h"

/* Substrings that mark a runtime, library or interpreter frame anywhere in its name. */
static const char* const lib_parts[] = {
    /* HIP/ROCm runtime and tools */
    "libamdhip64", "libhsa-runtime64", "libhsakmt", "libamd_comgr", "librocprofiler",
    "libroctracer", "libroctx", "librocm_smi", "libhiprtc", "libgalaxyhip", "libhipprof",
    /* math and framework libraries */
    "librocblas", "libhipblas", "libhipblaslt", "librocsolver", "libhipsolver", "libMIOpen",
    "librccl", "librocfft", "libhipfft", "librocrand", "libhiprand", "librocsparse", "libhipsparse",
    "libtensile", "libTensile", "libcudart", "libcuda.so", "libcublas", "libcudnn", "libnccl",
    "libtorch_hip", "libtorch_cuda", "libtorch_cpu", "libtorch_python", "libtorch.so",
    "libtorch_global", "libc10", "libcaffe2", "libshm", "libgomp", "libomp",
    /* system and interpreter */
    "libpython", "libc.so", "libc-", "libstdc++", "libgcc_s", "ld-linux", "libpthread", "libdl.so",
    "libm.so",
    /* python library code */
    "site-packages/", "dist-packages/", "/lib/python", "<frozen ", "importlib/"};

/* Prefixes of library function or python file names. */
static const char* const lib_prefixes[] = {
    /* python: standard library modules that wrap user code, torch's own python code,
     * C functions seen from python */
    "threading.py", "runpy.py", "contextlib.py", "functools.py", "abc.py", "typing.py", "asyncio/",
    "concurrent/", "multiprocessing/", "torch/", "<built-in", "<string>",
    /* C/C++ runtimes, frameworks and the interpreter */
    "at::", "c10::", "torch::", "caffe2::", "std::", "__gnu_cxx::", "pybind11::", "_start",
    "__libc_start", "__GI_", "start_thread", "clone", "hip::", "amd::", "roc::", "hsa_", "ihip",
    "hipLaunch", "hipModuleLaunch", "hipExtModuleLaunch", "hipExtLaunch", "hipGraphLaunch",
    "rocblas_", "hipblas", "Tensile::", "miopen", "rccl", "nccl", "cudaLaunch", "cuLaunch", "_Py",
    "Py", "method_vectorcall", "cfunction_", "slot_tp_", "THP", "__pyx_"};

int Names_isLibraryFrame(const char* name) {
    for (size_t i = 0; i < sizeof(lib_parts) / sizeof(lib_parts[0]); i++) {
        if (strstr(name, lib_parts[i])) {
            return 1;
        }
    }
    for (size_t i = 0; i < sizeof(lib_prefixes) / sizeof(lib_prefixes[0]); i++) {
        if (strncmp(name, lib_prefixes[i], strlen(lib_prefixes[i])) == 0) {
            return 1;
        }
    }
    return 0;
}
