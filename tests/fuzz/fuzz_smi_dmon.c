/* fuzz_smi_dmon.c - nvidia-smi dmon logs (smi_dmon.c). The first byte picks the header: with
 * -o DT (date and time columns) or without; the rest of the input follows it. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static const char* const heads[] = {
    ("#Date        Time         gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg"
     "    ofa   mclk   pclk     fb   bar1   ccpm\n"
     "#YYYYMMDD    HH:MM:SS     Idx      W      C      C      %      %      %      %      %"
     "      %    MHz    MHz     MB     MB     MB\n"),
    ("# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk  pviol  tviol\n"
     "# Idx      W      C      C      %      %      %      %    MHz    MHz      %   bool\n"),
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    size_t form = size > 0 ? data[0] % 2 : 0;
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
    Fuzz_loadAs("dmon.txt", buf, hl + size);
    free(buf);
    return 0;
}
