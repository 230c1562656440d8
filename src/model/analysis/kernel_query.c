/* kernel_query.c - see kernel_query.h. */
#include "dcutop/kernel_query.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/amdahl.h"
#include "dcutop/dispatch_scan.h"
#include "dcutop/dispatch_store.h"
#include "dcutop/i64_map.h"
#include "dcutop/names.h"
#include "dcutop/roi.h"
#include "dcutop/xalloc.h"

static char* col_text(sqlite3_stmt* st, int i) {
    const unsigned char* t = sqlite3_column_text(st, i);
    return t ? xstrdup((const char*)t) : NULL;
}

/* The dispatch store's kernel_id index (dispatch_store.h); building it changes no row, so
 * the cached derived values stay valid. */
DcuStatus KernelQuery_ensureIndex(TraceDb* db, DcuError* err) {
    (void)err;
    DispatchStore_buildKernelIndex(TraceDb_dispatchStore(db));
    return DCU_OK;
}

int KernelQuery_indexWhenIdle(TraceDb* db, int (*stop)(void)) {
    (void)stop; /* a pass over one column: no need to stop it half-way */
    return KernelQuery_ensureIndex(db, NULL) == DCU_OK;
}

void KernelDetail_done(KernelDetail* d) {
    free(d->name);
    free(d->name_raw);
    free(d->short_name);
    free(d->category);
    free(d->rule_source);
    free(d->rule_pattern);
    free(d->sources);
    free(d->eff_ops);
    for (int i = 0; i < d->n_counters; i++) {
        free(d->counter_name[i]);
    }
    free(d->counter_name);
    free(d->counter_mean);
    memset(d, 0, sizeof(*d));
}

/* One duration into the log2 histogram from p2 (its first bucket's lower edge). */
static void hist_add(KernelDetail* d, int64_t p2, int64_t v) {
    int b = 0;
    int64_t edge = p2 * 2;
    while (v >= edge && b < KQ_BUCKETS - 1) {
        edge *= 2;
        b++;
    }
    d->bucket[b]++;
    if (v < 10000) {
        d->short_dispatches++;
        d->short_ns += v;
    }
    if (b + 1 > d->n_buckets) {
        d->n_buckets = b + 1;
    }
    d->dispatches++;
}

/* histogram_direct's durations of the rows of used files, their files known from the
 * files' row ranges (DispatchScan_fileRuns): the durations alone are read. */
static int histogram_runs(DispatchStore* st, KernelDetail* d, int64_t p2, const int64_t* kr,
                          const DispatchRun* run, int64_t nrun, const I64Map* used) {
    enum { SLICE = 65536 };
    int64_t* dur = xmalloc(sizeof(int64_t) * SLICE);
    int ok = 1;
    for (int64_t k = 0; ok && k < nrun; k++) {
        for (int64_t i0 = run[k].from; ok && i0 < run[k].to && I64Map_get(used, run[k].file_id);
             i0 += SLICE) {
            int64_t len = run[k].to - i0 < SLICE ? run[k].to - i0 : SLICE;
            ok = DispatchStore_gather(st, kr + i0, len, DS_DUR_NS, dur);
            for (int64_t i = 0; ok && i < len; i++) {
                hist_add(d, p2, dur[i] == DISPATCH_STORE_NULL ? 0 : dur[i]);
            }
        }
    }
    free(dur);
    return ok;
}

/* The histogram's durations read from the store through its kernel index (a NULL reads 0,
 * as from SQL): 1 when it could (no region of interest). A drill-in on a kernel of
 * 2,000,000 dispatches spent 90 ms on them through SQL. */
static int histogram_direct(TraceDb* db, KernelDetail* d, int64_t p2) {
    DispatchStore* st = DispatchScan_store(db);
    const int64_t* kr;
    int64_t nk, ns;
    DispatchSpan* sp = NULL;
    DcuError e;
    if (!st || !DispatchStore_kernelRows(st, d->id, &kr, &nk) ||
        DispatchScan_usedSpans(db, &sp, &ns, &e) != DCU_OK) {
        return 0;
    }
    I64Map* used = I64Map_new(); /* the used kernel files */
    for (int64_t i = 0; i < ns; i++) {
        I64Map_put(used, sp[i].file_id, 1);
    }
    free(sp);
    DispatchRun* run;
    int64_t nrun;
    if (DispatchScan_fileRuns(db, kr, nk, &run, &nrun)) { /* no file column to read */
        int ok = histogram_runs(st, d, p2, kr, run, nrun, used);
        free(run);
        I64Map_delete(used);
        return ok;
    }
    enum { SLICE = 65536 }; /* a slice of rows at a time: no arrays as long as the kernel's */
    int64_t* fid = xmalloc(sizeof(int64_t) * SLICE);
    int64_t* dur = xmalloc(sizeof(int64_t) * SLICE);
    int ok = 1;
    int64_t last = 0, in = 0;
    for (int64_t i0 = 0; ok && i0 < nk; i0 += SLICE) {
        int64_t len = nk - i0 < SLICE ? nk - i0 : SLICE;
        ok = DispatchStore_gather(st, kr + i0, len, DS_FILE_ID, fid) &&
             DispatchStore_gather(st, kr + i0, len, DS_DUR_NS, dur);
        for (int64_t i = 0; ok && i < len; i++) {
            if ((i0 == 0 && i == 0) || fid[i] != last) { /* a file's rows come together */
                last = fid[i];
                in = I64Map_get(used, last);
            }
            if (in) {
                hist_add(d, p2, dur[i] == DISPATCH_STORE_NULL ? 0 : dur[i]);
            }
        }
    }
    free(fid);
    free(dur);
    I64Map_delete(used);
    return ok;
}

/* log2 duration histogram of the kernel's dispatches in used files */
static DcuStatus histogram(TraceDb* db, KernelDetail* d, DcuError* err) {
    int64_t lo = d->min_ns > 0 ? d->min_ns : 1;
    int64_t p2 = 1;
    while (p2 * 2 <= lo) {
        p2 *= 2;
    }
    d->bucket_lo_ns = p2;
    if (histogram_direct(db, d, p2)) {
        return DCU_OK;
    }
    /* a read error half-way: start again through SQL */
    memset(d->bucket, 0, sizeof(d->bucket));
    d->short_dispatches = d->short_ns = d->dispatches = 0;
    d->n_buckets = 0;
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db,
                                  "SELECT dur_ns FROM dispatch WHERE kernel_id = ?1 AND file_id IN"
                                  " (SELECT file_id FROM used_file WHERE layer = 'kernel')",
                                  &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int64(st, 1, d->id);
    while (sqlite3_step(st) == SQLITE_ROW) {
        hist_add(d, p2, sqlite3_column_int64(st, 0));
    }
    sqlite3_finalize(st);
    return DCU_OK;
}

/* The kernel's efficiency figures (kernel_perf) and the ops its dispatches came from. */
static void kernel_efficiency(TraceDb* db, KernelDetail* d) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT dispatches, dur_ns, flops, bytes, compute_ns, memory_ns"
                            " FROM kernel_perf WHERE kernel_id = ?1", &st, NULL) != DCU_OK) {
        return;
    }
    sqlite3_bind_int64(st, 1, d->id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        d->eff_dispatches = sqlite3_column_int64(st, 0);
        d->eff_ns = sqlite3_column_int64(st, 1);
        d->eff_flops = sqlite3_column_double(st, 2);
        d->eff_bytes = sqlite3_column_double(st, 3);
        d->eff_known = sqlite3_column_type(st, 4) != SQLITE_NULL &&
                       sqlite3_column_type(st, 5) != SQLITE_NULL;
        double c = sqlite3_column_double(st, 4), m = sqlite3_column_double(st, 5);
        d->eff_peak_ns = c > m ? c : m;
        d->eff_compute_bound = c >= m;
    }
    sqlite3_finalize(st);
    if (d->eff_dispatches == 0 ||
        TraceDb_prepare(db,
                        "SELECT group_concat(line, char(10)) FROM (SELECT o.name || ' ' ||"
                        " coalesce(p.shape, '') || ' ' || coalesce(p.dtype, '') || ' (' ||"
                        " count(*) || ')' AS line FROM dispatch_perf x"
                        " JOIN dispatch t ON t.id = x.dispatch_id"
                        " JOIN op_perf p ON p.op_id = x.op_id JOIN cpu_op o ON o.id = x.op_id"
                        " WHERE t.kernel_id = ?1 GROUP BY o.name, p.shape, p.dtype"
                        " ORDER BY total(t.dur_ns) DESC LIMIT 4)",
                        &st, NULL) != DCU_OK) {
        return;
    }
    sqlite3_bind_int64(st, 1, d->id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        d->eff_ops = col_text(st, 0);
    }
    sqlite3_finalize(st);
}

/* Its launch shapes (variab.c, kernel_var_shape); none listed when it has only one. */
static void kernel_shapes(TraceDb* db, KernelDetail* d) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        "SELECT coalesce(grid, -1), coalesce(workgroup, -1), dispatches,"
                        " total_ns, golden_ns, var_ns, outliers, count(*) OVER ()"
                        " FROM kernel_var_shape WHERE kernel_id = ?1"
                        " ORDER BY total_ns DESC, grid, workgroup",
                        &st, NULL) != DCU_OK) {
        return;
    }
    sqlite3_bind_int64(st, 1, d->id);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        d->n_shapes = sqlite3_column_int(st, 7);
        if (n < KQ_SHAPES) {
            KernelShape* k = &d->shape[n++];
            k->grid = sqlite3_column_int64(st, 0);
            k->workgroup = sqlite3_column_int64(st, 1);
            k->dispatches = sqlite3_column_int64(st, 2);
            k->total_ns = sqlite3_column_int64(st, 3);
            k->golden_ns = sqlite3_column_int64(st, 4);
            k->var_ns = sqlite3_column_int64(st, 5);
            k->outliers = sqlite3_column_int64(st, 6);
        }
    }
    sqlite3_finalize(st);
    if (d->n_shapes < 2) {
        d->n_shapes = 0;
    }
}

/* The files that fed it: those with its dispatches, from the per-file sums, unless a region
 * of interest cuts the dispatches (a scan of them was a third of a drill-in at 1M). */
static void kernel_sources(TraceDb* db, KernelDetail* d) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(
            db,
            Roi_active(db, NULL)
                ? "SELECT group_concat(name, ', ') FROM (SELECT DISTINCT f.name FROM source_file f"
                  " JOIN used_file u ON u.file_id = f.id AND u.layer = 'kernel'"
                  " WHERE f.id IN (SELECT file_id FROM dispatch WHERE kernel_id = ?1"
                  "  UNION SELECT file_id FROM kernel_stat WHERE kernel_id = ?1) ORDER BY f.id)"
                : "SELECT group_concat(name, ', ') FROM (SELECT DISTINCT f.name FROM source_file f"
                  " JOIN used_file u ON u.file_id = f.id AND u.layer = 'kernel'"
                  " WHERE f.id IN (SELECT file_id FROM dispatch_agg WHERE kernel_id = ?1"
                  "  UNION SELECT file_id FROM kernel_stat WHERE kernel_id = ?1) ORDER BY f.id)",
            &st, NULL) != DCU_OK) {
        return;
    }
    sqlite3_bind_int64(st, 1, d->id);
    if (sqlite3_step(st) == SQLITE_ROW) {
        d->sources = col_text(st, 0);
    }
    sqlite3_finalize(st);
}

DcuStatus KernelQuery_detail(TraceDb* db, const char* name, KernelDetail* d, DcuError* err) {
    memset(d, 0, sizeof(*d));
    d->stddev_ns = -1;
    DcuStatus s = KernelQuery_ensureIndex(db, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_stmt* st = NULL;
    s = TraceDb_prepare(
        db,
        "SELECT k.id, k.name, k.short_name, coalesce(k.category, 'other'), k.rule_source,"
        " k.rule_line, s.calls, s.total_ns, s.min_ns, s.max_ns, s.sumsq, s.has_sq,"
        " s.per_dispatch, (SELECT total(total_ns) FROM kernel_summary),"
        " s.golden_ns, s.var_ns, s.outliers, k.rule_pattern, k.name_raw"
        " FROM kernel k JOIN kernel_summary s ON s.kernel_id = k.id WHERE k.name = ?1",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_ROW) {
        sqlite3_finalize(st);
        return Error_set(err, DCU_ERR_USAGE, "no such kernel");
    }
    d->id = sqlite3_column_int64(st, 0);
    d->name = col_text(st, 1);
    d->short_name = col_text(st, 2);
    d->category = col_text(st, 3);
    d->rule_source = col_text(st, 4);
    d->rule_line = sqlite3_column_int(st, 5);
    d->calls = sqlite3_column_int64(st, 6);
    d->total_ns = sqlite3_column_int64(st, 7);
    d->has_minmax = sqlite3_column_type(st, 8) != SQLITE_NULL;
    d->min_ns = sqlite3_column_int64(st, 8);
    d->max_ns = sqlite3_column_int64(st, 9);
    double sumsq = sqlite3_column_double(st, 10);
    int64_t has_sq = sqlite3_column_int64(st, 11);
    d->per_dispatch = sqlite3_column_int(st, 12);
    double total = sqlite3_column_double(st, 13);
    d->has_var = sqlite3_column_type(st, 15) != SQLITE_NULL;
    d->golden_ns = sqlite3_column_int64(st, 14);
    d->var_ns = sqlite3_column_int64(st, 15);
    d->outliers = sqlite3_column_int64(st, 16);
    d->rule_pattern = col_text(st, 17);
    d->name_raw = col_text(st, 18);
    sqlite3_finalize(st);
    if (d->name && d->name_raw && strcmp(d->name, d->name_raw) == 0) {
        /* a symbol shown as it is: say why when the cap kept it (bounded work: the cap) */
        free(Names_demangle(d->name_raw, strlen(d->name_raw), &d->name_capped));
    }
    d->avg_ns = d->calls ? (double)d->total_ns / (double)d->calls : 0;
    if (has_sq == d->calls && d->calls > 0) {
        double var = sumsq / (double)d->calls - d->avg_ns * d->avg_ns;
        d->stddev_ns = var > 0 ? sqrt(var) : 0;
    }
    d->pct = total > 0 ? 100.0 * (double)d->total_ns / total : 0;
    d->ceiling = Amdahl_ceiling(d->pct / 100.0);

    if (d->per_dispatch && (s = histogram(db, d, err)) != DCU_OK) {
        KernelDetail_done(d);
        return s;
    }
    kernel_efficiency(db, d);
    if (d->has_var) {
        kernel_shapes(db, d);
    }
    kernel_sources(db, d);
    /* PMC counters: mean per counter */
    s = TraceDb_prepare(db,
                        "SELECT c.name, avg(c.value) FROM dispatch_counter c JOIN dispatch d"
                        " ON d.id = c.dispatch_id WHERE d.kernel_id = ?1"
                        " AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'counter')"
                        " GROUP BY c.name"
                        " ORDER BY c.name",
                        &st, err);
    if (s == DCU_OK) {
        sqlite3_bind_int64(st, 1, d->id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            d->counter_name = xrealloc(d->counter_name, sizeof(char*) * (size_t)(d->n_counters + 1));
            d->counter_mean = xrealloc(d->counter_mean, sizeof(double) * (size_t)(d->n_counters + 1));
            d->counter_name[d->n_counters] = col_text(st, 0);
            d->counter_mean[d->n_counters] = sqlite3_column_double(st, 1);
            d->n_counters++;
        }
        sqlite3_finalize(st);
        d->pmc = d->n_counters > 0;
    }
    return s;
}
