/* test_smi_text.c - the words every device-state reader shares (smi_text.c, smi_fields.c,
 * load_smi.c's sniff): timestamps in the forms the SMI tools and `date` print, in UTC or read
 * as local time in TZ; numbers with units and the tools' words for a missing value; CSV
 * fields; memory units; rocm-smi / hy-smi keys; which tool wrote the first bytes of a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "load/load_event.h"
#include "load/load_smi.h"

static int64_t t_of(const char* s, int* zone) {
    int64_t ns = -1;
    int z = -1;
    if (!Smi_parseTime(s, strlen(s), &ns, &z)) {
        return -1;
    }
    if (zone) {
        *zone = z;
    }
    return ns;
}

/* 2026-12-07 19:46:48 UTC */
#define T0 INT64_C(1796672808000000000)

static void test_times_utc(void** state) {
    (void)state;
    setenv("TZ", "UTC", 1);
    tzset();
    int z;
    assert_int_equal(t_of("2026/12/07 19:46:48.588", &z), T0 + 588000000);
    assert_int_equal(z, SMI_ZONE_LOCAL); /* nvidia-smi: the machine's local time */
    assert_int_equal(t_of("20261207 19:46:48", NULL), T0);       /* dmon -o DT */
    assert_int_equal(t_of("Mon Dec  7 19:46:48 UTC 2026", &z), T0); /* date */
    assert_int_equal(z, SMI_ZONE_UTC);
    assert_int_equal(t_of("Mon 07 Dec 2026 07:46:48 PM UTC", NULL), T0); /* en_US date */
    assert_int_equal(t_of("2026-12-07T19:46:48+00:00", &z), T0);          /* date -Is */
    assert_int_equal(z, SMI_ZONE_UTC);
    assert_int_equal(t_of("2026-12-07T21:46:48+02:00", NULL), T0);
    assert_int_equal(t_of("2026-12-07 19:46:48.5Z", NULL), T0 + 500000000);
    assert_int_equal(t_of("1796672808", &z), T0); /* date +%s */
    assert_int_equal(z, SMI_ZONE_UTC);
    assert_int_equal(t_of("1796672808.123456789", NULL), T0 + 123456789);
    assert_int_equal(t_of("  2026-12-07 19:46:48  ", NULL), T0);
}

static void test_times_local(void** state) {
    (void)state;
    setenv("TZ", "UTC-8", 1); /* 8 h east of UTC */
    tzset();
    int z;
    assert_int_equal(t_of("2026/12/07 19:46:48.000", &z), T0 - INT64_C(8) * 3600 * 1000000000);
    assert_int_equal(z, SMI_ZONE_LOCAL);
    /* a zone written out is honoured whatever TZ says */
    assert_int_equal(t_of("Mon Dec  7 19:46:48 UTC 2026", NULL), T0);
    setenv("TZ", "UTC", 1);
    tzset();
}

static void test_times_refused(void** state) {
    (void)state;
    const char* bad[] = {"2026/13/07 19:46:48", "2026/02/30 10:00:00", "2026/12/07 24:00:00",
                         "2026/12/07", "19:46:48", "12345", "1796672808x", "hello world",
                         "Mon Dec 19:46:48 2026", "1960-01-01 00:00:00", "0x1234567890",
                         "2026-12-07T19:46:48+99:00", "Mon Dec  7 19:46:48 UTC 2026 extra"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int64_t ns;
        int z;
        assert_false(Smi_parseTime(bad[i], strlen(bad[i]), &ns, &z));
    }
}

static void test_numbers(void** state) {
    (void)state;
    double v;
    const char* u;
    size_t ul;
    int na;
    assert_true(Smi_number(" 1980 MHz", 9, &v, &u, &ul, &na));
    assert_true(v == 1980.0);
    assert_int_equal(ul, 3);
    assert_memory_equal(u, "MHz", 3);
    assert_true(Smi_number("128.18 W", 8, &v, &u, &ul, &na));
    assert_true(v == 128.18);
    assert_true(Smi_number("99 %", 4, &v, &u, &ul, &na));
    assert_true(Smi_number("\"742.0\"", 7, &v, &u, &ul, &na));
    assert_true(v == 742.0 && ul == 0);
    assert_true(Smi_number("1e3", 3, &v, &u, &ul, &na) && v == 1000.0);
    const char* missing[] = {"[N/A]", "N/A", "[Not Supported]", "-", ""};
    for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
        assert_false(Smi_number(missing[i], strlen(missing[i]), &v, &u, &ul, &na));
        assert_true(na);
    }
    const char* nan_[] = {"abc", "nan", "inf", "1.2.3", "12/5", "0x10", "1e999"};
    for (size_t i = 0; i < sizeof(nan_) / sizeof(nan_[0]); i++) {
        assert_false(Smi_number(nan_[i], strlen(nan_[i]), &v, &u, &ul, &na));
        assert_false(na);
    }
    double mhz;
    assert_true(Smi_mhz("1 (1800Mhz)", 11, &mhz) && mhz == 1800.0); /* the MHz, not the level */
    assert_true(Smi_mhz("(131Mhz)", 8, &mhz) && mhz == 131.0);
    assert_false(Smi_mhz("16.0GT/s x16", 12, &mhz));
}

static void test_bytes_and_csv(void** state) {
    (void)state;
    assert_int_equal(Smi_bytes(9067, "MiB", 3, 0), INT64_C(9067) * 1048576);
    assert_int_equal(Smi_bytes(9078, "MB", 2, 0), INT64_C(9078) * 1048576);
    assert_int_equal(Smi_bytes(512, "", 0, 1.0), 512);
    assert_int_equal(Smi_bytes(2, "GiB", 3, 0), INT64_C(2) << 30);
    assert_int_equal(Smi_bytes(1, "parsecs", 7, 0), LOAD_NULL);
    assert_int_equal(Smi_bytes(-1, "MiB", 3, 0), LOAD_NULL);
    assert_int_equal(Smi_bytes(1e30, "MiB", 3, 0), LOAD_NULL);
    const char* fs[8];
    size_t fl[8];
    const char line[] = "a, \"b, c\" ,\"d\"\"e\",, f ";
    int n = Smi_splitCsv(line, strlen(line), fs, fl, 8);
    assert_int_equal(n, 5);
    assert_int_equal(fl[0], 1);
    assert_memory_equal(fs[1], "b, c", 4);
    assert_int_equal(fl[1], 4);
    assert_memory_equal(fs[2], "d\"\"e", 4);
    assert_int_equal(fl[3], 0);
    assert_memory_equal(fs[4], "f", 1);
    assert_int_equal(Smi_splitCsv("x,y,z", 5, fs, fl, 2), 3); /* counts past max */
}

static void test_rocm_keys(void** state) {
    (void)state;
    SmiField f;
    static const struct {
        const char* key;
        int kind;
    } keys[] = {{"GPU use (%)", SK_UTIL},
                {"HCU use (%)", SK_UTIL},
                {"DCU use (%)", SK_UTIL},
                {"HCU memory use (%)", SK_MEMUTIL},
                {"GPU Memory Read/Write Activity (%)", SK_MEMUTIL},
                {"sclk clock speed:", SK_SM},
                {"mclk clock speed:", SK_MEMCLK},
                {"Average Graphics Package Power (W)", SK_POWER},
                {"Max Graphics Package Power (W)", SK_POWERCAP},
                {"Temperature (Sensor edge) (C)", SK_TEMP},
                {"vram Total Used Memory (MiB)", SK_MEMUSED},
                {"VRAM Total Memory (B)", SK_MEMTOTAL},
                {"Card Series", SK_NAME}};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        assert_true(Smi_rocmField(keys[i].key, strlen(keys[i].key), &f));
        assert_int_equal(f.kind, keys[i].kind);
    }
    assert_true(Smi_rocmField("vram Total Used Memory (MiB)", 28, &f));
    assert_true(f.unit == 1048576.0);
    assert_true(Smi_rocmField("VRAM Total Used Memory (B)", 26, &f));
    assert_true(f.unit == 1.0);
    /* the junction sensor is preferred to the edge one */
    SmiField j, e;
    Smi_rocmField("Temperature (Sensor junction) (C)", 33, &j);
    Smi_rocmField("Temperature (Sensor edge) (C)", 29, &e);
    assert_true(j.rank < e.rank);
    assert_false(Smi_rocmField("sclk clock level:", 17, &f)); /* a level, not a clock */
    assert_false(Smi_rocmField("GFX Activity", 12, &f));
}

static int sniff(const char* s) {
    return LoadSmi_sniff((const unsigned char*)s, strlen(s));
}

static void test_sniff(void** state) {
    (void)state;
    assert_int_equal(sniff("timestamp, name, clocks.current.sm [MHz], utilization.gpu [%]\n"),
                     SMI_NV_CSV);
    assert_int_equal(sniff("index, memory.used [MiB], power.draw [W]\n0, 1, 2\n"), SMI_NV_CSV);
    assert_int_equal(sniff("#Date        Time         gpu    pwr  gtemp  mtemp     sm\n"),
                     SMI_NV_DMON);
    assert_int_equal(sniff("# gpu   pwr  gtemp  mtemp     sm    mem\n# Idx     W\n"), SMI_NV_DMON);
    assert_int_equal(sniff("Mon Dec  7 19:46:58 UTC 2026\n\n===== ROCm System Management "
                           "Interface =====\n===== x =====\nGPU[0]\t\t: GPU use (%): 4\n"),
                     SMI_ROCM_TEXT);
    assert_int_equal(sniff("HCU[3]\t\t: HCU use (%): 15.0\n"), SMI_ROCM_TEXT);
    assert_int_equal(sniff("1796672820\ndevice,HCU use (%)\ncard0,1\n"), SMI_ROCM_CSV);
    assert_int_equal(sniff("{\"card0\": {\"GPU use (%)\": \"1\"}}\n"), SMI_ROCM_JSON);
    assert_int_equal(sniff("[\n    {\n        \"gpu\": 0,\n"), SMI_AMD_JSON);
    assert_int_equal(sniff("{\n    \"gpu_data\": [\n"), SMI_AMD_JSON);
    assert_int_equal(sniff("timestamp,gpu,gfx_activity,umc_activity,socket_power\n"),
                     SMI_AMD_CSV);
    /* not device-state logs: traces, step times, metrics */
    assert_int_equal(sniff("{\"schemaVersion\": 1, \"deviceProperties\": []}"), 0);
    assert_int_equal(sniff("[{\"name\": \"k\", \"ph\": \"X\"}]"), 0);
    assert_int_equal(sniff("{\"traceEvents\": []}"), 0);
    assert_int_equal(sniff("name,value\nloss,7.2\n"), 0);
    assert_int_equal(sniff("\"Index\",\"KernelName\",\"gpu-id\"\n"), 0);
    assert_int_equal(sniff("step_ms\n5.1\n"), 0);
    /* rocprof-compute's roofline.csv opens with "device," too */
    assert_int_equal(sniff("device,HBMBw,L2Bw,L1Bw,LDSBw,MFMAF16Flops\n0,1,2,3,4,5\n"), 0);
    assert_int_equal(sniff(""), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_times_utc),     cmocka_unit_test(test_times_local),
        cmocka_unit_test(test_times_refused), cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_bytes_and_csv), cmocka_unit_test(test_rocm_keys),
        cmocka_unit_test(test_sniff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
