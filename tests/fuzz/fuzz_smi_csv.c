/* fuzz_smi_csv.c - the device-state logs that are CSV under a header (smi_csv.c):
 * nvidia-smi --query-gpu, rocm-smi / hy-smi --csv, amd-smi metric --csv. The first byte
 * picks the form; its header line goes before the rest of the input, so the sniff hands the
 * bytes to that form's reader whatever the fuzzer does to them (a header of its own making
 * later in the input re-maps the columns). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

static const char* const heads[] = {
    ("timestamp, name, driver_version, clocks.current.sm [MHz], clocks.current.memory [MHz], "
     "clocks.max.sm [MHz], utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
     "memory.total [MiB], power.draw [W], temperature.gpu, clocks_event_reasons.active\n"),
    ("device,GPU use (%),GPU memory use (%),sclk clock speed:,mclk clock speed:,"
     "Current Socket Graphics Package Power (W),Temperature (Sensor junction) (C),"
     "VRAM Total Memory (B),VRAM Total Used Memory (B)\n"),
    ("timestamp,gpu,gfx_activity,umc_activity,socket_power,throttle_status,gfx_0_clk,"
     "gfx_0_max_clk,mem_0_clk,hotspot,edge,total_vram,used_vram\n"),
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
    Fuzz_loadAs("smi.csv", buf, hl + size);
    free(buf);
    return 0;
}
