/* fuzz_smi_json.c - the JSON device-state logs (smi_json.c): rocm-smi / hy-smi --json and
 * amd-smi metric --json, documents gathered line by line and parsed whole. The first byte
 * picks the form; its document's opening goes before the rest of the input, so the sniff hands
 * the bytes to the JSON reader of that form. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static const char* const heads[] = {
    "{\"card0\": {",
    "[{\"gpu\": 0, ",
    "{\"gpu_data\": [{\"gpu\": 1, ",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    size_t form = size > 0 ? data[0] % 3 : 0;
    if (size > 0) {
        data++;
        size--;
    }
    size_t hl = strlen(heads[form]);
    uint8_t* buf = malloc(hl + size + 1);
    memcpy(buf, heads[form], hl);
    if (size > 0) {
        memcpy(buf + hl, data, size);
    }
    Fuzz_loadAs("smi.json", buf, hl + size);
    free(buf);
    return 0;
}
