/* test_health.c - the health verdict (health.h): the clock reasons decoded, each verdict on a
 * synthetic device with the case that must flag it and the case that must not (clocks that
 * drop while idle, a device idle while the program waits on its loader, utilisation that lags
 * a busy stretch of the trace itself), and the real recording with a second process loading
 * the GPU (tests/data/real/pytorch-h100-smi-contention), its samples and memory events put in
 * by an independent script (tests/tools/smi_rows.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dcutop/device_lane.h"
#include "dcutop/health.h"
#include "dcutop/health_view.h"
#include "testutil.h"

TESTUTIL_DIR_FIXTURE(dir) /* the real test's temp folder: setup, teardown */

#define MS 1000000LL
#define MIB (1LL << 20)

static void reasons_decoded(void** state) {
    (void)state;
    char out[128];
    int idle, power, thermal;
    Health_reasons("0x0000000000000004", out, sizeof(out), &idle, &power, &thermal);
    assert_string_equal(out, "sw_power_cap");
    assert_true(power && !thermal && !idle);
    Health_reasons("0x0000000000000001", out, sizeof(out), &idle, &power, &thermal);
    assert_string_equal(out, "gpu_idle");
    assert_true(idle && !power);
    Health_reasons("0x0000000000000000", out, sizeof(out), &idle, &power, &thermal);
    assert_string_equal(out, "");
    assert_false(idle);
    Health_reasons("0x61", out, sizeof(out), &idle, &power, &thermal);
    assert_string_equal(out, "gpu_idle, sw_thermal_slowdown, hw_thermal_slowdown");
    assert_true(thermal && !idle);
    Health_reasons("0x1000", out, sizeof(out), &idle, &power, &thermal);
    assert_string_equal(out, "reason 0x1000");
    Health_reasons("SOCKET_THM", out, sizeof(out), &idle, &power, &thermal); /* as a tool says */
    assert_string_equal(out, "SOCKET_THM");
    Health_reasons(NULL, out, sizeof(out), &idle, &power, &thermal);
    assert_string_equal(out, "");
    Health_reasons("none", out, sizeof(out), &idle, &power, &thermal);
    assert_string_equal(out, "");
}

/* A device sampled every 100 ms over 0..10 s: busy 5 ms in every 100 ms (5%), at 1980 of
 * 1980 MHz, utilisation 5%, memory used 3 GiB of 80 of which the trace reserves 1 GiB. */
static HealthSample samples[101];
static int64_t bs[100], be[100];

static void base_device(HealthDevice* d) {
    memset(d, 0, sizeof(*d));
    d->span0 = 0;
    d->span1 = 10000 * MS;
    for (int i = 0; i <= 100; i++) {
        HealthSample* x = &samples[i];
        memset(x, 0, sizeof(*x));
        x->t = i * 100 * MS;
        x->sm = 1980;
        x->max_sm = 1980;
        x->util = 5;
        x->used = 3072 * MIB;
        x->total = 81920 * MIB;
        x->power = 150;
        x->cap = 700;
        x->temp = 40;
        x->own = 1024 * MIB;
    }
    for (int i = 0; i < 100; i++) {
        bs[i] = i * 100 * MS + 20 * MS;
        be[i] = bs[i] + 5 * MS;
    }
}

static void healthy(void** state) {
    (void)state;
    HealthDevice d;
    base_device(&d);
    Health_judge(&d, bs, be, 100, samples, 101);
    assert_int_equal(d.samples, 101);
    assert_int_equal(d.spacing_ns, 100 * MS);
    assert_int_equal(d.busy_ns, 500 * MS);
    assert_int_equal(d.nwin, 0);
    assert_false(Health_lowClock(&d));
    assert_false(Health_throttled(&d));
    assert_false(Health_powerCapped(&d));
    assert_false(Health_hot(&d));
    assert_false(Health_memoryFull(&d));
    assert_true(d.max_clock == 1980);
}

/* Clocks down to 300 MHz with reason idle while nothing runs (every sample but those whose
 * interval holds busy time): power saving, not a low clock. */
static void idle_clocks_are_not_throttling(void** state) {
    (void)state;
    HealthDevice d;
    base_device(&d);
    int64_t b2[10], e2[10]; /* busy only in 3 s .. 4 s */
    for (int i = 0; i < 10; i++) {
        b2[i] = bs[30 + i];
        e2[i] = be[30 + i];
    }
    for (int i = 0; i <= 100; i++) {
        if (i < 30 || i > 40) {
            samples[i].sm = 300;
            samples[i].util = 0;
            snprintf(samples[i].reasons, sizeof(samples[i].reasons), "gpu_idle");
            samples[i].idle_only = 1;
        }
    }
    Health_judge(&d, b2, e2, 10, samples, 101);
    assert_int_equal(d.busy_ns, 50 * MS);
    assert_int_equal(d.low_busy_ns, 0);
    assert_false(Health_lowClock(&d));
    assert_false(Health_throttled(&d));
    assert_int_equal(d.nwin, 0); /* idle while the program waited: no other process */
    /* a low clock without the idle reason where the trace was busy: a low clock */
    HealthDevice d2;
    base_device(&d2);
    for (int i = 0; i <= 100; i++) {
        if (i < 30 || i > 40) {
            samples[i].sm = 300;
            samples[i].util = 0;
            samples[i].idle_only = 1;
        }
    }
    samples[35].sm = 1200;
    Health_judge(&d2, b2, e2, 10, samples, 101);
    assert_int_equal(d2.low_busy_ns, 5 * MS);
    assert_true(Health_lowClock(&d2)); /* 10% of the busy time */
    assert_true(d2.low_min == 1200 && d2.low_max == 1200);
}

/* Another process from 4.05 s to 6.05 s: memory used 6 GiB more from the sample at 4.1 s to
 * the one at 6.0 s, utilisation 99% from 4.3 s to 6.2 s (it lags). */
static void another_process(void** state) {
    (void)state;
    HealthDevice d;
    base_device(&d);
    for (int i = 41; i <= 60; i++) {
        samples[i].used += 6144 * MIB;
    }
    for (int i = 43; i <= 62; i++) {
        samples[i].util = 99;
    }
    Health_judge(&d, bs, be, 100, samples, 101);
    assert_int_equal(d.nwin, 1);
    const HealthWindow* w = &d.win[0];
    assert_int_equal(w->t0, 4050 * MS); /* half-way between 4.0 and 4.1 s */
    assert_int_equal(w->t1, 6050 * MS);
    assert_int_equal(w->res_ns, 50 * MS);
    assert_true(w->by_memory && w->by_util);
    assert_int_equal(w->mem_excess, 6144 * MIB);
    assert_true(w->util_min == 99 && w->util_max == 99);
    assert_int_equal(w->samples, 22); /* 4.1 .. 6.2 s */
    assert_true(w->own_pct > 4.9 && w->own_pct < 5.1);
    /* the trace's own reserved memory rising with the memory used is its own */
    HealthDevice d2;
    base_device(&d2);
    for (int i = 41; i <= 60; i++) {
        samples[i].used += 6144 * MIB;
        samples[i].own += 6144 * MIB;
    }
    Health_judge(&d2, bs, be, 100, samples, 101);
    assert_int_equal(d2.nwin, 0);
    /* without memory events, utilisation alone: its edges */
    HealthDevice d3;
    base_device(&d3);
    for (int i = 0; i <= 100; i++) {
        samples[i].own = -1;
        samples[i].util = i >= 43 && i <= 62 ? 99 : 5;
    }
    Health_judge(&d3, bs, be, 100, samples, 101);
    assert_int_equal(d3.nwin, 1);
    assert_int_equal(d3.win[0].t0, 4250 * MS);
    assert_int_equal(d3.win[0].t1, 6250 * MS);
    assert_false(d3.win[0].by_memory);
}

/* Utilisation that stays high after a busy stretch of the trace itself (NVML averages and
 * reports late): explained by the trace, not another process. Then a sample whose windows
 * reach before the span: not judged. */
static void lagging_utilisation_is_own(void** state) {
    (void)state;
    HealthDevice d;
    base_device(&d);
    int64_t b2[101], e2[101];
    int n = 0;
    for (int i = 0; i < 100; i++) {
        if (i == 50) { /* busy all of 5.0 .. 5.5 s */
            b2[n] = 5000 * MS;
            e2[n++] = 5500 * MS;
            continue;
        }
        if (i > 50 && i < 55) {
            continue;
        }
        b2[n] = bs[i];
        e2[n++] = be[i];
    }
    for (int i = 51; i <= 60; i++) { /* 100% until 6.0 s: 0.5 s late */
        samples[i].util = 100;
    }
    Health_judge(&d, b2, e2, n, samples, 101);
    assert_int_equal(d.nwin, 0);
    /* at the span's start the trace cannot explain what came before it */
    HealthDevice d2;
    base_device(&d2);
    samples[5].util = 100;
    Health_judge(&d2, bs, be, 100, samples, 101);
    assert_int_equal(d2.nwin, 0);
}

/* A log device that holds less memory than the trace reserved is another device: it says so
 * and gives no verdict; memory alone above the level (utilisation the trace's own) is a
 * window by memory only. */
static void mismatch_and_memory_only(void** state) {
    (void)state;
    HealthDevice d;
    base_device(&d);
    for (int i = 0; i <= 100; i++) {
        samples[i].used = 512 * MIB; /* the trace reserves 1 GiB */
        samples[i].util = 99;
    }
    Health_judge(&d, bs, be, 100, samples, 101);
    assert_true(Health_mismatch(&d));
    assert_int_equal(d.below_own, 101);
    Health h = {.state = HEALTH_JUDGED, .log = "smi.csv", .log_rows = 101, .dev = &d, .ndev = 1};
    d.paired = 1;
    HealthLine l[8];
    int n = HealthView_lines(&h, l, 8);
    assert_int_equal(n, 1);
    assert_string_equal(l[0].kind, "mismatch");
    HealthDevice d2;
    base_device(&d2);
    for (int i = 60; i <= 100; i++) {
        samples[i].used += 2048 * MIB;
    }
    Health_judge(&d2, bs, be, 100, samples, 101);
    assert_false(Health_mismatch(&d2));
    assert_int_equal(d2.nwin, 1);
    assert_true(d2.win[0].by_memory && !d2.win[0].by_util);
    assert_int_equal(d2.win[0].t1, d2.span1); /* to the span's end */
    d2.paired = 1;
    d2.has_util = 1;
    h.dev = &d2;
    n = HealthView_lines(&h, l, 8);
    assert_int_equal(n, 1);
    assert_non_null(strstr(l[0].text, "utilisation the trace's own"));
}

static void power_temp_memory(void** state) {
    (void)state;
    HealthDevice d;
    base_device(&d);
    for (int i = 20; i <= 40; i++) {
        samples[i].power = 690; /* >= 97% of 700 W */
        samples[i].temp = 88;
        samples[i].used = 79000 * MIB;
    }
    Health_judge(&d, bs, be, 100, samples, 101);
    assert_true(Health_powerCapped(&d));
    assert_true(Health_hot(&d));
    assert_true(Health_memoryFull(&d));
    assert_true(d.power_max == 690 && d.power_cap == 700 && d.temp_max == 88);
    assert_int_equal(d.temp_max_t, 2000 * MS);
    assert_int_equal(d.mem_used_max, 79000 * MIB);
    assert_int_equal(d.power_cap_busy_ns, 21 * 5 * MS);
}

/* The real recording: samples and memory events put in by tests/tools/smi_rows.py when the
 * loader did not read them. */
static TraceDb* load_contention(void) {
    char path[512], cmd[1200];
    snprintf(path, sizeof(path), "%s/pytorch-h100-smi-contention", TestUtil_real());
    DcuStatus st;
    TraceDb* db = TestUtil_load(path, &st);
    assert_int_equal(st, DCU_OK);
    int has = TestUtil_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'device_sample'")
                  ? (int)TestUtil_int(db, "SELECT count(*) FROM device_sample")
                  : 0;
    int mem = TestUtil_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'mem_event'")
                  ? (int)TestUtil_int(db, "SELECT count(*) FROM mem_event")
                  : 0;
    if (!has || !mem) {
        char sql[512];
        snprintf(sql, sizeof(sql), "%s/rows.sql", dir);
        snprintf(cmd, sizeof(cmd), "python3 tests/tools/smi_rows.py %s %s > %s && echo 1", path,
                 mem ? "" : "--mem", sql);
        assert_int_equal(TestUtil_shellInt(cmd), 1);
        FILE* f = fopen(sql, "r");
        assert_non_null(f);
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        rewind(f);
        char* text = malloc((size_t)len + 1);
        assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
        text[len] = '\0';
        fclose(f);
        if (has) { /* the loader read the log: keep its rows, add the memory events only */
            char* ins = strstr(text, "CREATE TABLE IF NOT EXISTS mem_event");
            assert_non_null(ins);
            memmove(text + 7, ins, strlen(ins) + 1);
            memcpy(text, "BEGIN; ", 7);
            char* dev;
            while ((dev = strstr(text, "INSERT INTO device_sample")) != NULL) {
                char* end = strchr(dev, ';');
                memmove(dev, end + 1, strlen(end + 1) + 1);
            }
        }
        DcuError err;
        Error_clear(&err);
        assert_int_equal(TraceDb_exec(db, text, &err), DCU_OK);
        free(text);
    }
    return db;
}

static void real_contention(void** state) {
    (void)state;
    TraceDb* db = load_contention();
    Health h;
    DcuError err;
    Error_clear(&err);
    assert_int_equal(Health_compute(db, &h, &err), DCU_OK);
    assert_int_equal(h.state, HEALTH_JUDGED);
    assert_int_equal(h.ndev, 1);
    HealthDevice* d = &h.dev[0];
    assert_true(d->paired);
    assert_true(d->has_mem_events);
    assert_true(d->has_wall);
    if (getenv("HEALTH_DEBUG")) {
        fprintf(stderr, "span %lld..%lld origin %lld samples %d spacing %lld busy %lld\n",
                (long long)d->span0, (long long)d->span1, (long long)d->origin_ns, d->samples,
                (long long)d->spacing_ns, (long long)d->busy_ns);
        for (int i = 0; i < d->nwin && i < HEALTH_MAX_WINDOWS; i++) {
            fprintf(stderr, "win %.3f..%.3f ms (wall %lld..%lld) res %lld n %d mem %d util %d "
                            "%.0f-%.0f own %.2f excess %lld\n",
                    (double)(d->win[i].t0 - d->origin_ns) / 1e6,
                    (double)(d->win[i].t1 - d->origin_ns) / 1e6,
                    (long long)(d->win[i].t0 + d->wall_offset_ns),
                    (long long)(d->win[i].t1 + d->wall_offset_ns), (long long)d->win[i].res_ns,
                    d->win[i].samples, d->win[i].by_memory, d->win[i].by_util,
                    d->win[i].util_min, d->win[i].util_max, d->win[i].own_pct,
                    (long long)d->win[i].mem_excess);
        }
        fprintf(stderr, "low %lld of %lld (%.0f-%.0f) thr %lld '%s' power %.1f temp %.0f "
                        "used %lld/%lld own %lld\n",
                (long long)d->low_busy_ns, (long long)d->busy_ns, d->low_min, d->low_max,
                (long long)d->thr_busy_ns, d->reasons, d->power_max, d->temp_max,
                (long long)d->mem_used_max, (long long)d->mem_total,
                (long long)d->own_reserved);
    }
    /* the second process's wall-clock window (second-process.json) within one sample */
    int64_t start = TestUtil_shellInt("python3 -c \"import json; print(json.load(open("
                                      "'tests/data/real/pytorch-h100-smi-contention/"
                                      "second-process.json'))['start_time_ns'])\"");
    int64_t end = TestUtil_shellInt("python3 -c \"import json; print(json.load(open("
                                    "'tests/data/real/pytorch-h100-smi-contention/"
                                    "second-process.json'))['end_time_ns'])\"");
    assert_int_equal(d->nwin, 1);
    const HealthWindow* w = &d->win[0];
    assert_true(w->by_memory && w->by_util);
    int64_t w0 = w->t0 + d->wall_offset_ns, w1 = w->t1 + d->wall_offset_ns;
    assert_true(llabs(w0 - start) <= w->res_ns);
    assert_true(llabs(w1 - end) <= w->res_ns);
    assert_true(w->res_ns <= 60 * MS); /* samples about 100 ms apart */
    assert_true(Health_lowClock(d));
    assert_true(Health_throttled(d));
    assert_string_equal(d->reasons, "sw_power_cap");
    assert_true(Health_powerCapped(d));
    assert_false(Health_hot(d));
    assert_false(Health_memoryFull(d));
    HealthLine l[16];
    int n = HealthView_lines(&h, l, 16);
    for (int i = 0; getenv("HEALTH_DEBUG") && i < n; i++) {
        fprintf(stderr, "%s: %s\n", l[i].kind, l[i].text);
    }
    assert_int_equal(n, 4);
    assert_string_equal(l[0].kind, "other-process");
    assert_int_equal(l[0].t0, w->t0 - d->origin_ns);
    assert_string_equal(l[1].kind, "low-clock");
    assert_string_equal(l[2].kind, "throttle");
    assert_string_equal(l[3].kind, "power-cap");
    Health_done(&h);
    TraceDb_delete(db);
}

/* The Trace screen's lanes on the real recording: every sample of smi.csv (not of the 1 s
 * dmon.txt beside it), the value that holds at a time in the second process's load and after
 * it equal to the latest sample before it, and the trace's own allocated memory peaking at
 * the largest 'Total Allocated' of its '[memory]' events (independent one-liners). */
/* Column col (its number) of smi.csv's latest sample at or before t on the trace's clock
 * (base: the trace's baseTimeNanoseconds). */
static int64_t sample_at(const char* d, int64_t base, int64_t t, int col) {
    char cmd[1600];
    snprintf(cmd, sizeof(cmd),
             "python3 -c \"import csv,calendar,datetime; "
             "r=list(csv.reader(open('%s/smi.csv')))[1:]; "
             "w=lambda s: (lambda t: calendar.timegm(t.timetuple())*10**9+t.microsecond*1000)"
             "(datetime.datetime.strptime(s.strip(),'%%Y/%%m/%%d %%H:%%M:%%S.%%f')); "
             "x=[q for q in r if w(q[0])-%lld <= %lld][-1]; print(x[%d].split()[0])\"",
             d, (long long)base, (long long)t, col);
    return TestUtil_shellInt(cmd);
}

static void real_lanes(void** state) {
    (void)state;
    TraceDb* db = load_contention();
    DeviceLanes l;
    DcuError err;
    Error_clear(&err);
    assert_int_equal(DeviceLanes_read(db, 0, &l, &err), DCU_OK);
    const char* d = "tests/data/real/pytorch-h100-smi-contention";
    char cmd[1600];
    snprintf(cmd, sizeof(cmd),
             "python3 -c \"import csv; print(len(list(csv.reader(open('%s/smi.csv')))) - 1)\"", d);
    assert_int_equal(l.s[DLANE_SM_CLOCK].n, TestUtil_shellInt(cmd));
    assert_int_equal(DeviceLanes_count(&l), 8);
    int64_t origin = TestUtil_int(db, "SELECT min(start_ns) FROM dispatch");
    snprintf(cmd, sizeof(cmd),
             "python3 -c \"import gzip,json; print(json.load(gzip.open("
             "'%s/gpt_contention.trace.json.gz','rt'))['baseTimeNanoseconds'])\"", d);
    int64_t base = TestUtil_shellInt(cmd);
    static const int at_ms[] = {1500, 1000, 3300};
    for (int i = 0; i < 3; i++) {
        int64_t t = origin + at_ms[i] * MS;
        double v = 0;
        assert_true(DeviceSeries_at(&l.s[DLANE_SM_CLOCK], t, t + 1, 1, &v));
        assert_true(v == (double)sample_at(d, base, t, 3));
        assert_true(DeviceSeries_at(&l.s[DLANE_MEM_USED], t, t + 1, 0, &v));
        assert_true(v == (double)(sample_at(d, base, t, 8) << 20));
    }
    double top = 0;
    for (int64_t i = 0; i < l.s[DLANE_ALLOCATED].n; i++) {
        top = l.s[DLANE_ALLOCATED].v[i] > top ? l.s[DLANE_ALLOCATED].v[i] : top;
    }
    snprintf(cmd, sizeof(cmd),
             "python3 -c \"import gzip,json; print(max(e['args']['Total Allocated'] for e in "
             "json.load(gzip.open('%s/gpt_contention.trace.json.gz','rt'))['traceEvents'] if "
             "e.get('name')=='[memory]' and e['args'].get('Device Type')==1))\"", d);
    assert_true(top == (double)TestUtil_shellInt(cmd));
    /* before the log's first sample nothing holds; past its last, nothing after the hold */
    double v = 0;
    assert_false(DeviceSeries_at(&l.s[DLANE_SM_CLOCK], l.s[DLANE_SM_CLOCK].t[0] - 1,
                                 l.s[DLANE_SM_CLOCK].t[0], 1, &v));
    int64_t last = l.s[DLANE_SM_CLOCK].t[l.s[DLANE_SM_CLOCK].n - 1];
    assert_true(DeviceSeries_at(&l.s[DLANE_SM_CLOCK], last + 1, last + 2, 1, &v));
    assert_false(DeviceSeries_at(&l.s[DLANE_SM_CLOCK], last + l.s[DLANE_SM_CLOCK].hold_ns,
                                 last + l.s[DLANE_SM_CLOCK].hold_ns + 1, 1, &v));
    DeviceLanes_done(&l);
    TraceDb_delete(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reasons_decoded),
        cmocka_unit_test(healthy),
        cmocka_unit_test(idle_clocks_are_not_throttling),
        cmocka_unit_test(another_process),
        cmocka_unit_test(lagging_utilisation_is_own),
        cmocka_unit_test(power_temp_memory),
        cmocka_unit_test(mismatch_and_memory_only),
        cmocka_unit_test_setup_teardown(real_contention, setup, teardown),
        cmocka_unit_test_setup_teardown(real_lanes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
