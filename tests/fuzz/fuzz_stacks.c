/* fuzz_stacks.c - call-stack dumps (hipprof --kernel-stack: gdb frames, backtrace_symbols
 * lines, CSV with a stack column). The stacks are loaded beside a small fixed kernel trace,
 * written once, so that the pass that ties each stack to its kernel and dispatch
 * (LoadStacks_finish) runs on them too. The first input byte picks the file name. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

static const char* const names[] = {"app.kernel_stacks.txt", "app.backtrace.txt",
                                    "app.stacks.csv", "hipprof.stack.log"};

/* rocprofv3 kernel_trace with dispatch ids and correlation ids 1..4 */
static const char kernels[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
    "\"KERNEL_DISPATCH\",1,1,0,7,1,10,\"gemm_kernel\",1,1000,2000\n"
    "\"KERNEL_DISPATCH\",1,1,0,7,2,11,\"softmax_kernel\",2,2100,2500\n"
    "\"KERNEL_DISPATCH\",1,1,0,7,3,10,\"gemm_kernel\",3,2600,3600\n"
    "\"KERNEL_DISPATCH\",1,1,0,7,4,12,\"void at::native::elementwise_kernel<128, 2>\",4,"
    "3700,3800\n";

static char* kernel_path;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!kernel_path) {
        kernel_path = Fuzz_write("k/4242_kernel_trace.csv", (const uint8_t*)kernels,
                                 strlen(kernels));
    }
    const char* name = Fuzz_pickName(names, sizeof(names) / sizeof(names[0]), &data, &size);
    char* path = Fuzz_write(name, data, size);
    const char* paths[] = {kernel_path, path};
    Fuzz_load(paths, 2);
    unlink(path);
    free(path);
    return 0;
}
