/* report.c - text, CSV and JSON renderings of the views for --report. */
#include "dcutop/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/export.h"
#include "dcutop/format.h"
#include "dcutop/xalloc.h"

/* Columns the text report shows per view (the CSV/JSON forms carry all columns). */
static const char* const hot_keys[] = {"short_name", "category", "calls", "total_ns", "avg_ns",
                                       "min_ns", "max_ns", "pct", "cum_pct", "ceiling", NULL};
static const char* const cat_keys[] = {"category", "group", "kernels", "calls", "total_ns",
                                       "pct", "ceiling", "what_if", "speedup", NULL};
static const char* const api_keys[] = {"domain", "name", "calls", "total_ns", "avg_ns",
                                       "min_ns", "max_ns", "pct", "source", NULL};
static const char* const copy_keys[] = {"name", "calls", "bytes", "total_ns", "avg_ns",
                                        "min_ns", "max_ns", "pct", "gbps", NULL};
static const char* const file_keys[] = {"name", "format", "layer", "rows", "rejected", "status",
                                        NULL};

static void cell_text(const ResultSet* rs, int r, int c, TimeUnit u, char* buf, size_t cap) {
    const RsCell* cell = ResultSet_cellc(rs, r, c);
    if (cell->null) {
        snprintf(buf, cap, "-");
        return;
    }
    switch (rs->cols[c].type) {
    case CT_TEXT:
        snprintf(buf, cap, "%s", cell->s ? cell->s : "");
        break;
    case CT_INT:
        snprintf(buf, cap, "%" PRId64, cell->i);
        break;
    case CT_NS:
        Format_duration(buf, cap, cell->i, u);
        break;
    case CT_BYTES:
        Format_bytes(buf, cap, cell->i);
        break;
    case CT_PCT:
        snprintf(buf, cap, "%.2f", cell->d);
        break;
    case CT_RATIO:
        Format_ratio(buf, cap, cell->d);
        break;
    default:
        if (isinf(cell->d)) {
            snprintf(buf, cap, "inf");
        } else {
            snprintf(buf, cap, "%.4g", cell->d);
        }
        break;
    }
}

void Report_table(FILE* out, const ResultSet* rs, const char* const* keys, const char* flex,
                  int width, int max_rows) {
    int rows = max_rows > 0 && max_rows < rs->nrows ? max_rows : rs->nrows;
    int cols[32], n = 0;
    for (int i = 0; keys[i] && n < 32; i++) {
        int c = ResultSet_columnIndex(rs, keys[i]);
        int any = 0;
        for (int r = 0; c >= 0 && r < rows && !any; r++) {
            any = !ResultSet_cellc(rs, r, c)->null;
        }
        if (c >= 0 && (any || rows == 0)) { /* a column with no value at all is left out */
            cols[n++] = c;
        }
    }
    TimeUnit unit[32];
    int w[32];
    char buf[1024];
    char head[32][48];
    for (int i = 0; i < n; i++) {
        const RsColumn* col = &rs->cols[cols[i]];
        int64_t mx = 0;
        for (int r = 0; r < rows; r++) {
            const RsCell* cell = ResultSet_cellc(rs, r, cols[i]);
            if (!cell->null && cell->i > mx) {
                mx = cell->i;
            }
        }
        unit[i] = Format_unitFor(mx);
        /* if most values would print as 0.00 in the max's unit, use a smaller one */
        int tiny = 0, nonnull = 0;
        for (int r = 0; r < rows && unit[i] > UNIT_NS; r++) {
            const RsCell* cell = ResultSet_cellc(rs, r, cols[i]);
            if (!cell->null) {
                nonnull++;
                static const int64_t cut[] = {1, 10, 10000, 10000000};
                tiny += cell->i < cut[unit[i]];
            }
        }
        if (nonnull > 0 && tiny * 2 > nonnull) {
            unit[i] = (TimeUnit)(unit[i] - 1);
        }
        if (col->type == CT_NS) {
            snprintf(head[i], sizeof(head[i]), "%s(%s)", col->title, Format_unitName(unit[i]));
        } else {
            snprintf(head[i], sizeof(head[i]), "%s", col->title);
        }
        w[i] = Format_width(head[i]);
        for (int r = 0; r < rows; r++) {
            cell_text(rs, r, cols[i], unit[i], buf, sizeof(buf));
            int cw = Format_width(buf);
            if (cw > w[i]) {
                w[i] = cw;
            }
        }
    }
    /* the flexible column (a name) gets what is left of the width, at least 20 cells */
    int fixed = 0, fi = -1;
    for (int i = 0; i < n; i++) {
        if (flex && strcmp(rs->cols[cols[i]].key, flex) == 0) {
            fi = i;
        } else {
            fixed += w[i] + 2;
        }
    }
    if (fi >= 0) {
        int room = width - fixed - 2;
        if (room < 20) {
            room = 20;
        }
        if (w[fi] > room) {
            w[fi] = room;
        }
    }
    char cell[4096], fit[4096];
    size_t lcap = 256, llen = 0;
    char* line = xmalloc(lcap);
    for (int r = -1; r < rows; r++) {
        llen = 0;
        for (int i = 0; i < n; i++) {
            int right = rs->cols[cols[i]].type != CT_TEXT;
            if (r < 0) {
                snprintf(cell, sizeof(cell), "%s", head[i]);
            } else {
                cell_text(rs, r, cols[i], unit[i], buf, sizeof(buf));
                if (i == fi) {
                    Format_cutName(buf, w[i], cell, sizeof(cell));
                } else {
                    snprintf(cell, sizeof(cell), "%s", buf);
                }
            }
            Format_fit(cell, w[i], right, fit, sizeof(fit));
            size_t fl = strlen(fit);
            xgrow((void**)&line, &lcap, llen + fl + 4);
            memcpy(line + llen, "  ", 2);
            memcpy(line + llen + 2, fit, fl);
            llen += fl + 2;
        }
        /* no trailing spaces: golden files and diffs stay clean */
        while (llen > 0 && line[llen - 1] == ' ') {
            llen--;
        }
        line[llen] = '\0';
        fprintf(out, "%s\n", line);
    }
    free(line);
    if (rows < rs->nrows) {
        fprintf(out, "  ... %d more rows (--top 0 shows all)\n", rs->nrows - rows);
    }
    if (rs->footer) {
        fprintf(out, " %s\n", rs->footer);
    }
}

static void rule(FILE* out, const char* title) {
    fprintf(out, "\n%s\n", title);
}

static DcuStatus section(TraceDb* db, ViewId v, const ReportOpts* o, FILE* out,
                         DcuError* err, ResultSet** keep) {
    ResultSet* rs = NULL;
    QueryOpts q = o->query;
    if (v == VIEW_FILES) { /* the file list is never filtered */
        q.filter = NULL;
        q.sort = NULL;
    }
    if (v != VIEW_CATEGORIES) {
        q.what_if = NULL;
        q.n_what_if = 0;
    }
    DcuStatus s = Query_view(db, v, &q, &rs, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->format == FMT_CSV) {
        fprintf(out, "# %s\r\n", Query_viewName(v));
        s = Export_csv(rs, out, err);
        fputs("\r\n", out);
    } else if (o->format == FMT_JSON) {
        fprintf(out, ",\n\"%s\": ", Query_viewName(v));
        s = Export_json(rs, out, err);
    } else {
        switch (v) {
        case VIEW_FILES:
            Report_table(out, rs, file_keys, "status", o->width, 0);
            break;
        case VIEW_HOTSPOTS:
            Report_table(out, rs, hot_keys, "short_name", o->width, o->top);
            break;
        case VIEW_CATEGORIES:
            Report_table(out, rs, cat_keys, NULL, o->width, 0);
            break;
        case VIEW_API:
            Report_table(out, rs, api_keys, "name", o->width, 0);
            break;
        case VIEW_COPIES:
            Report_table(out, rs, copy_keys, "name", o->width, 0);
            break;
        default:
            break;
        }
    }
    if (keep) {
        *keep = rs;
    } else {
        ResultSet_delete(rs);
    }
    return s;
}

static void messages(TraceDb* db, FILE* out, int json) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        "SELECT f.path, m.line, m.message FROM load_message m"
                        " JOIN source_file f ON f.id = m.file_id ORDER BY m.id",
                        &st, NULL) != DCU_OK) {
        return;
    }
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char* p = (const char*)sqlite3_column_text(st, 0);
        const char* m = (const char*)sqlite3_column_text(st, 2);
        if (json) {
            continue;
        }
        if (n++ == 0) {
            rule(out, "Load messages");
        }
        if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
            fprintf(out, "  %s: %s\n", p, m);
        } else {
            fprintf(out, "  %s:%lld: %s\n", p, (long long)sqlite3_column_int64(st, 1), m);
        }
    }
    sqlite3_finalize(st);
}

static void text_summary(TraceDb* db, const Totals* t, FILE* out) {
    char a[64], b[64];
    Format_durationAuto(a, sizeof(a), t->kernel_ns);
    fprintf(out, "\nDevice kernel time %s over %" PRId64 " dispatches of %" PRId64
                 " kernels (%s)\n",
            a, t->dispatches, t->kernels,
            t->per_dispatch ? "per-dispatch data" : "aggregated stats only");
    if (t->kernel_ns > 0) {
        double p = (double)t->gemm_ns / (double)t->kernel_ns;
        Format_ratio(b, sizeof(b), Amdahl_ceiling(p));
        sqlite3_stmt* st = NULL;
        char group[128] = "GEMM";
        if (TraceDb_prepare(db, "SELECT group_concat(name, '+') FROM (SELECT name FROM category"
                                " WHERE is_gemm ORDER BY ord)", &st, NULL) == DCU_OK) {
            if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0) &&
                strcmp((const char*)sqlite3_column_text(st, 0), "gemm") != 0) {
                snprintf(group, sizeof(group), "GEMM group (%s)", sqlite3_column_text(st, 0));
            }
            sqlite3_finalize(st);
        }
        fprintf(out,
                "%s %.2f%% of device kernel time: speeding it up alone gives at most %s on "
                "device kernel time; non-GEMM %.2f%%\n",
                group, 100.0 * p, b, 100.0 * (1 - p));
    }
    if (t->api_calls > 0) {
        Format_durationAuto(a, sizeof(a), t->api_ns);
        fprintf(out, "Host API time %s in %" PRId64
                     " calls (host layer: never added to kernel time)\n",
                a, t->api_calls);
    }
    if (t->pmc) {
        fputs("WARNING: kernel times come from a PMC (counter) run; instrumented timings are "
              "not performance (a 0.0185 ms kernel measured 1.48 ms).\n",
              out);
    }
    int64_t rej = TraceDb_scalarInt(db, "SELECT coalesce(sum(rows_rejected),0) FROM source_file");
    if (rej > 0) {
        fprintf(out, "WARNING: %" PRId64 " rows rejected; see Load messages below.\n", rej);
    }
}

DcuStatus Report_write(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    Totals t;
    DcuStatus s = Query_totals(db, &t, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->format == FMT_JSON) {
        fprintf(out,
                "{\"dcutop\": \"%s\",\n\"totals\": {\"kernel_ns\": %" PRId64
                ", \"dispatches\": %" PRId64 ", \"kernels\": %" PRId64
                ", \"per_dispatch\": %s, \"gemm_ns\": %" PRId64 ", \"gemm_pct\": %.6f"
                ", \"gemm_ceiling\": %.6f, \"api_ns\": %" PRId64 ", \"api_calls\": %" PRId64
                ", \"copy_ns\": %" PRId64 ", \"copy_calls\": %" PRId64
                ", \"rows_rejected\": %" PRId64 ", \"pmc\": %s}",
                DCUTOP_VERSION, t.kernel_ns, t.dispatches, t.kernels,
                t.per_dispatch ? "true" : "false", t.gemm_ns,
                t.kernel_ns ? 100.0 * (double)t.gemm_ns / (double)t.kernel_ns : 0.0,
                t.kernel_ns && t.gemm_ns < t.kernel_ns
                    ? Amdahl_ceiling((double)t.gemm_ns / (double)t.kernel_ns)
                    : 0.0,
                t.api_ns, t.api_calls, t.copy_ns, t.copy_calls, t.rows_rejected,
                t.pmc ? "true" : "false");
    } else if (o->format == FMT_TEXT) {
        fprintf(out, "dcutop %s report: %s\n", DCUTOP_VERSION, o->title ? o->title : "");
    }
    static const struct {
        ViewId v;
        const char* title;
    } secs[] = {
        {VIEW_FILES, "Files"},
        {VIEW_HOTSPOTS, "Hotspots: device kernels by total time"},
        {VIEW_CATEGORIES, "Categories: GEMM vs non-GEMM; Amdahl ceilings over device kernel time"},
        {VIEW_API, "HIP API: host time per call (not added to kernel time)"},
        {VIEW_COPIES, "Memory copies"},
    };
    for (size_t i = 0; s == DCU_OK && i < sizeof(secs) / sizeof(secs[0]); i++) {
        if (o->view >= 0 && (int)secs[i].v != o->view) {
            continue;
        }
        if (o->format == FMT_TEXT) {
            if (secs[i].v == VIEW_HOTSPOTS && o->view < 0) {
                text_summary(db, &t, out);
            }
            if ((secs[i].v == VIEW_API && t.api_calls == 0) ||
                (secs[i].v == VIEW_COPIES && t.copy_calls == 0)) {
                rule(out, secs[i].title);
                fputs("  (no data in this trace)\n", out);
                continue;
            }
            rule(out, secs[i].title);
        }
        s = section(db, secs[i].v, o, out, err, NULL);
    }
    if (o->format == FMT_JSON) {
        fputs("}\n", out);
    } else if (o->format == FMT_TEXT && s == DCU_OK) {
        messages(db, out, 0);
    }
    return s;
}
