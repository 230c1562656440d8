/* fuzz_smi_text.c - rocm-smi / hy-smi plain text (smi_rocmtext.c): "GPU[N]\t\t: key: value"
 * lines between `date` lines and banners. A first device line goes before the input, so the
 * sniff hands it to the text reader. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const char head[] = "GPU[0]\t\t: GPU use (%): 1\n";
    size_t hl = sizeof(head) - 1;
    uint8_t* buf = malloc(hl + size + 1);
    memcpy(buf, head, hl);
    if (size > 0) {
        memcpy(buf + hl, data, size);
    }
    Fuzz_loadAs("rocm-smi.log", buf, hl + size);
    free(buf);
    return 0;
}
