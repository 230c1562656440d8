/* repro.c - the microbenchmark script of the hot ops (repro.h). The ops and their device time
 * come from one SQL pass: each kernel dispatch to its launching op, pass and module
 * (dispatch_op, op_link.h), grouped by op name and recorded inputs. The script is the
 * runtime (repro_runtime.py, built in) followed by the ops as data; repro_args.c turns each
 * op's recorded inputs into checked Python text. */
#include "dcutop/repro.h"

#include <stdlib.h>
#include <string.h>

#include "dcutop/filter.h"
#include "dcutop/xalloc.h"
#include "repro_args.h"

extern const char dcutop_repro_runtime[]; /* generated from src/model/analysis/repro_runtime.py */

/* One op as selected: name and recorded inputs (JSON text, NULL when not recorded). */
typedef struct {
    const char *name, *dims, *types, *strides, *conc;
    long long device_ns, calls, kernels;
    const char* pass;   /* forward, backward, other, or two or three of them joined by '+' */
    const char* module; /* one module path of its kernels (NULL: none) */
    long long modules;  /* how many module paths */
} ReproOp;

static DcuStatus sql_error(TraceDb* db, DcuError* err) {
    const char* msg = sqlite3_errmsg(TraceDb_handle(db));
    return Error_set(err, strstr(msg, "PCRE2") || strstr(msg, "regex") ? DCU_ERR_REGEX
                                                                           : DCU_ERR_SQL,
                     "%s", msg);
}

/* temp.repro_link: every kernel dispatch with its launching op, pass and module
 * (dispatch_op, op_link.h). */
static DcuStatus link_ops(TraceDb* db, DcuError* err) {
    return TraceDb_exec(
        db,
        "DROP TABLE IF EXISTS temp.repro_link;"
        "CREATE TEMP TABLE repro_link AS"
        " SELECT d.dur_ns AS dur, d.kernel_id AS kid, x.op_id AS op, x.fwd_op_id AS fwd,"
        "  x.pass AS pass, x.module AS module, coalesce(x.fwd_op_id, x.op_id) AS model_op"
        " FROM dispatch d JOIN dispatch_op x ON x.dispatch_id = d.id"
        " WHERE x.op_id IS NOT NULL"
        "  AND d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel');",
        err);
}

/* The dtype assumed for the elements of tensor lists (not recorded): the floating dtype
 * most ops that launched kernels take. */
static void list_dtype(TraceDb* db, char* buf, size_t cap) {
    sqlite3_stmt* st = NULL;
    snprintf(buf, cap, "float32");
    if (TraceDb_prepare(db,
                        "SELECT j.value FROM temp.repro_link x JOIN cpu_op o ON o.id = x.op,"
                        " json_each(CASE WHEN json_valid(o.input_types) THEN o.input_types"
                        "  ELSE '[]' END) j"
                        " WHERE j.value IN ('float', 'double', 'c10::Half', 'c10::BFloat16')"
                        " GROUP BY j.value ORDER BY count(*) DESC, j.value LIMIT 1",
                        &st, NULL) != DCU_OK) {
        return;
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        const char* d = ReproArgs_dtype((const char*)sqlite3_column_text(st, 0));
        snprintf(buf, cap, "%s", d ? d : "float32");
    }
    sqlite3_finalize(st);
}

/* The GPU the trace was recorded on (its kernels' agent), or "" when the trace names none. */
static void trace_device(TraceDb* db, char* buf, size_t cap) {
    sqlite3_stmt* st = NULL;
    buf[0] = '\0';
    if (TraceDb_prepare(db,
                        "SELECT coalesce(a.product_name, a.name) FROM agent a"
                        " WHERE a.file_id IN (SELECT file_id FROM used_file WHERE layer ="
                        " 'kernel') AND coalesce(a.type, 'GPU') = 'GPU'"
                        " ORDER BY a.file_id, a.node_id LIMIT 1",
                        &st, NULL) != DCU_OK) {
        return;
    }
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        ReproArgs_commentText(buf, cap, (const char*)sqlite3_column_text(st, 0));
    }
    sqlite3_finalize(st);
}

static void header(FILE* out, const ReproOpts* o, const char* ldtype, const char* device) {
    char src[512];
    ReproArgs_commentText(src, sizeof(src), o->source ? o->source : "the loaded trace");
    fprintf(out,
            "#!/usr/bin/env python3\n"
            "# Microbenchmark of the hot ops of %s,\n"
            "# written by dcutop --export repro.\n"
            "#\n"
            "# Each op is rebuilt from what the profiler recorded (record_shapes=True): the sizes,\n"
            "# strides and dtypes of its tensors and its scalar arguments, called through\n"
            "# torch.ops with the overload that fits them. Tensors hold random values (index\n"
            "# tensors valid indices); tensor lists are %s (their dtypes are not recorded;\n"
            "# --list-dtype changes it). Each op is warmed up, then timed with device events\n"
            "# over --reps back-to-back calls (a kernel shorter than its launch shows the\n"
            "# launch rate). trace_us is the trace's own figure: the device time of the op's\n"
            "# kernels per call. Runs unchanged on CUDA and ROCm (HIP) builds of PyTorch.\n"
            "#\n"
            "#   python3 repro.py [--device cuda|cpu] [--reps N] [--warmup N] [--only REGEX]\n"
            "#   one line per op: op=NAME shapes=SIZES trace_us=X bench_us=Y ratio=Y/X ...\n",
            src, ldtype);
    if (device[0]) {
        fprintf(out, "#\n# Recorded on: %s\n", device);
    }
    char sel[256];
    if (o->module || o->model_op) {
        char mod[200];
        ReproArgs_commentText(mod, sizeof(mod), o->module ? o->module : "any module");
        ReproArgs_commentText(sel, sizeof(sel), o->model_op ? o->model_op : "any op");
        fprintf(out, "#\n# Selection: the ops that launched the kernels of %s in %s", sel, mod);
        ReproArgs_commentText(sel, sizeof(sel), o->kernel);
        fprintf(out, "%s%s\n", o->kernel ? ", kernel " : "", o->kernel ? sel : "");
    } else if (o->kernel) {
        ReproArgs_commentText(sel, sizeof(sel), o->kernel);
        fprintf(out, "#\n# Selection: the ops that launched %s\n", sel);
    } else if (o->filter) {
        ReproArgs_commentText(sel, sizeof(sel), o->filter);
        fprintf(out, "#\n# Selection: ops matching /%s/ (op or kernel name), most device time first\n",
                sel);
    } else if (o->top > 0) {
        fprintf(out, "#\n# Selection: the %d ops of most device time\n", o->top);
    } else {
        fprintf(out, "#\n# Selection: every op that launched a kernel, most device time first\n");
    }
}

static void op_fields(FILE* out, int rank, const ReproOp* op) {
    fprintf(out, "    dict(rank=%d, name=", rank);
    ReproArgs_pyString(out, op->name);
    fputs(", dims=", out);
    ReproArgs_literal(out, op->dims);
    fputs(", types=", out);
    ReproArgs_literal(out, op->types);
    fputs(",\n         strides=", out);
    ReproArgs_literal(out, op->strides);
    fputs(", concrete=", out);
    ReproArgs_literal(out, op->conc);
    fprintf(out, ",\n         calls=%lld, kernels=%lld, device_ns=%lld, trace_us=%.3f", op->calls,
            op->kernels, op->device_ns,
            op->calls > 0 ? (double)op->device_ns / (double)op->calls / 1000.0 : 0.0);
    fputs(", pass_=", out);
    ReproArgs_pyString(out, op->pass);
    fputs(", module=", out);
    if (op->module) {
        ReproArgs_pyString(out, op->module);
    } else {
        fputs("None", out);
    }
    fprintf(out, ", modules=%lld", op->modules);
}

/* The kernels of one op, most time first, as a comment. */
static void op_kernels(TraceDb* db, FILE* out, const ReproOp* op) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        "SELECT k.name, count(*), CAST(total(x.dur) AS INTEGER)"
                        " FROM temp.repro_link x JOIN cpu_op o ON o.id = x.op"
                        " JOIN kernel k ON k.id = x.kid WHERE o.name = ?1"
                        " AND o.input_dims IS ?2 AND o.input_types IS ?3"
                        " AND o.input_strides IS ?4 AND o.concrete_inputs IS ?5"
                        " GROUP BY k.id ORDER BY 3 DESC, k.name LIMIT 3",
                        &st, NULL) != DCU_OK) {
        return;
    }
    const char* v[5] = {op->name, op->dims, op->types, op->strides, op->conc};
    for (int i = 0; i < 5; i++) {
        sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        char name[160];
        ReproArgs_commentText(name, sizeof(name), (const char*)sqlite3_column_text(st, 0));
        fprintf(out, "    # kernel %s: %lld x, %lld ns\n", name, sqlite3_column_int64(st, 1),
                sqlite3_column_int64(st, 2));
    }
    sqlite3_finalize(st);
}

/* The shapes as the script prints them: the dims column without spaces. */
static void shapes_text(const ReproOp* op, char* buf, size_t cap) {
    size_t n = 0;
    for (const char* p = op->dims ? op->dims : "none"; *p && n + 1 < cap; p++) {
        if (*p != ' ') {
            buf[n++] = *p >= 0x20 && *p < 0x7f ? *p : '?';
        }
    }
    buf[n] = '\0';
}

typedef struct {
    FILE *ok, *bad, *notes; /* OPS entries, NOT_REBUILT entries, notes */
    char* bad_comments;     /* the header's list of ops not rebuilt */
    size_t bad_len;
    FILE* badc;
} Sinks;

/* The argument specs of one recorded call (owned), or NULL with the reason in reason[256]. */
static char* op_args(const char* name, const char* dims, const char* types,
                     const char* strides, const char* conc, const char* ldtype, char* reason) {
    char* args = NULL;
    size_t len = 0;
    FILE* m = open_memstream(&args, &len);
    if (!m) {
        snprintf(reason, 256, "out of memory");
        return NULL;
    }
    int ok = ReproArgs_write(m, name, dims, types, strides, conc, ldtype, reason, 256);
    fclose(m);
    if (!ok) {
        free(args);
        args = NULL;
    }
    return args;
}

/* An autograd node ("autograd::engine::evaluate_function: MmBackward0", "MmBackward0"). */
static int is_backward_node(const char* name) {
    static const char node[] = "autograd::engine::evaluate_function: ";
    if (!name || strncmp(name, node, sizeof(node) - 1) == 0) {
        return name != NULL;
    }
    const char* b = strstr(name, "Backward");
    if (!b || strstr(name, "::")) {
        return 0;
    }
    for (b += strlen("Backward"); *b >= '0' && *b <= '9'; b++) {
    }
    return *b == '\0';
}

/* The forward op most of a backward node's kernels link to (dispatch_op.fwd_op_id): its
 * name and recorded inputs, copied into f[5] (owned); 0 when none is linked. */
static int forward_op(TraceDb* db, const ReproOp* op, char* f[5]) {
    sqlite3_stmt* st = NULL;
    int found = 0;
    if (TraceDb_prepare(db,
                        "SELECT f.name, f.input_dims, f.input_types, f.input_strides,"
                        " f.concrete_inputs FROM temp.repro_link x JOIN cpu_op o ON o.id = x.op"
                        " JOIN cpu_op f ON f.id = x.fwd WHERE x.fwd IS NOT x.op"
                        " AND o.name = ?1 AND o.input_dims IS ?2 AND o.input_types IS ?3"
                        " AND o.input_strides IS ?4 AND o.concrete_inputs IS ?5"
                        " GROUP BY 1, 2, 3, 4, 5 ORDER BY count(*) DESC, min(f.id) LIMIT 1",
                        &st, NULL) != DCU_OK) {
        return 0;
    }
    const char* v[5] = {op->name, op->dims, op->types, op->strides, op->conc};
    for (int i = 0; i < 5; i++) {
        sqlite3_bind_text(st, i + 1, v[i], -1, SQLITE_STATIC);
    }
    if (sqlite3_step(st) == SQLITE_ROW) {
        for (int i = 0; i < 5; i++) {
            const char* t = (const char*)sqlite3_column_text(st, i);
            f[i] = t ? xstrdup(t) : NULL;
        }
        found = 1;
    }
    sqlite3_finalize(st);
    return found;
}

/* The forward op's fields in an OPS entry whose backward the script times. */
static void fwd_fields(FILE* out, char* const f[5]) {
    fputs(",\n         grad=True, fwd=dict(name=", out);
    ReproArgs_pyString(out, f[0]);
    const char* keys[4] = {"dims", "types", "strides", "concrete"};
    for (int i = 0; i < 4; i++) {
        fprintf(out, ", %s=", keys[i]);
        ReproArgs_literal(out, f[i + 1]);
    }
    fputc(')', out);
}

static void op_comment(FILE* out, const ReproOp* op, char* const fwd[5]) {
    char mod[200], fname[128];
    ReproArgs_commentText(mod, sizeof(mod), op->module);
    fprintf(out, "    # %s pass%s%s", op->pass ? op->pass : "?", op->module ? ", in " : "", mod);
    if (op->modules > 1) {
        fprintf(out, " and %lld other module%s", op->modules - 1, op->modules > 2 ? "s" : "");
    }
    if (fwd[0]) {
        ReproArgs_commentText(fname, sizeof(fname), fwd[0]);
        fprintf(out, "; timed as the backward of its forward op %s", fname);
    }
    fputc('\n', out);
}

static void write_bad(Sinks* k, int rank, const ReproOp* op, const char* reason) {
    char shown[256], name[128];
    shapes_text(op, shown, sizeof(shown));
    ReproArgs_commentText(name, sizeof(name), op->name);
    op_fields(k->bad, rank, op);
    fputs(",\n         reason=", k->bad);
    ReproArgs_pyString(k->bad, reason);
    fputs("),\n", k->bad);
    fprintf(k->badc, "#   %s shapes=%s trace_us=%.3f: %s\n", name, shown,
            op->calls > 0 ? (double)op->device_ns / (double)op->calls / 1000.0 : 0.0, reason);
    if (k->notes) {
        fprintf(k->notes, "dcutop: repro: not rebuilt: op=%s shapes=%s: %s\n", name, shown,
                reason);
    }
}

/* One op into OPS, or into NOT_REBUILT with the reason. A backward node that launched
 * kernels itself is rebuilt as its forward op, whose backward the script times. */
static void write_op(TraceDb* db, Sinks* k, int rank, const ReproOp* op, const char* ldtype,
                     ReproStats* st) {
    char reason[256], why_fwd[256];
    char* fwd[5] = {NULL, NULL, NULL, NULL, NULL};
    char* args = op_args(op->name, op->dims, op->types, op->strides, op->conc, ldtype, reason);
    if (!args && is_backward_node(op->name) && forward_op(db, op, fwd)) {
        args = op_args(fwd[0], fwd[1], fwd[2], fwd[3], fwd[4], ldtype, why_fwd);
        if (!args) {
            char fname[96];
            ReproArgs_commentText(fname, sizeof(fname), fwd[0]);
            snprintf(reason, sizeof(reason), "backward of %s, which cannot be rebuilt: %.100s",
                     fname, why_fwd);
        }
    }
    if (args) {
        op_comment(k->ok, op, fwd);
        op_kernels(db, k->ok, op);
        op_fields(k->ok, rank, op);
        if (fwd[0]) {
            fwd_fields(k->ok, fwd);
        }
        fprintf(k->ok, ",\n         args=%s),\n", args);
        st->rebuilt++;
    } else {
        write_bad(k, rank, op, reason);
        st->not_rebuilt++;
    }
    for (int i = 0; i < 5; i++) {
        free(fwd[i]);
    }
    free(args);
}

static const char* const select_sql =
    "SELECT o.name, o.input_dims, o.input_types, o.input_strides, o.concrete_inputs,"
    " CAST(total(x.dur) AS INTEGER) AS ns, count(DISTINCT o.id), count(*),"
    " CASE count(DISTINCT x.pass) WHEN 1 THEN min(x.pass) WHEN 2 THEN min(x.pass) || '+' ||"
    "  max(x.pass) ELSE 'backward+forward+other' END, min(x.module), count(DISTINCT x.module)"
    " FROM temp.repro_link x JOIN cpu_op o ON o.id = x.op JOIN kernel k ON k.id = x.kid"
    " WHERE (?5 IS NULL OR coalesce(x.module, '[no module]') = ?5)"
    "  AND (?6 IS NULL OR (SELECT m.name FROM cpu_op m WHERE m.id = x.model_op) = ?6)"
    " GROUP BY o.name, o.input_dims, o.input_types, o.input_strides, o.concrete_inputs"
    " HAVING (?1 IS NULL OR CASE WHEN ?2 THEN min(regexp_any(?1, o.name, k.name))"
    "   ELSE max(regexp_any(?1, o.name, k.name)) END)"
    "  AND (?3 IS NULL OR max(k.name = ?3))"
    " ORDER BY ns DESC, o.name, o.input_dims, o.input_types, o.input_strides,"
    "  o.concrete_inputs LIMIT ?4";

/* Runs the selection into the sinks. */
static DcuStatus select_ops(TraceDb* db, const ReproOpts* o, int negated, Sinks* k,
                            const char* ldtype, ReproStats* st, DcuError* err) {
    sqlite3_stmt* q = NULL;
    DcuStatus s = TraceDb_prepare(db, select_sql, &q, err);
    if (s != DCU_OK) {
        return s;
    }
    if (o->filter) {
        sqlite3_bind_text(q, 1, o->filter, -1, SQLITE_TRANSIENT);
    }
    sqlite3_bind_int(q, 2, negated);
    if (o->kernel) {
        sqlite3_bind_text(q, 3, o->kernel, -1, SQLITE_TRANSIENT);
    }
    sqlite3_bind_int64(q, 4, o->top > 0 ? o->top : -1);
    if (o->module) {
        sqlite3_bind_text(q, 5, o->module, -1, SQLITE_TRANSIENT);
    }
    if (o->model_op) {
        sqlite3_bind_text(q, 6, o->model_op, -1, SQLITE_TRANSIENT);
    }
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        ReproOp op = {(const char*)sqlite3_column_text(q, 0),
                      (const char*)sqlite3_column_text(q, 1),
                      (const char*)sqlite3_column_text(q, 2),
                      (const char*)sqlite3_column_text(q, 3),
                      (const char*)sqlite3_column_text(q, 4),
                      sqlite3_column_int64(q, 5),
                      sqlite3_column_int64(q, 6),
                      sqlite3_column_int64(q, 7),
                      (const char*)sqlite3_column_text(q, 8),
                      (const char*)sqlite3_column_text(q, 9),
                      sqlite3_column_int64(q, 10)};
        write_op(db, k, ++st->ops, &op, ldtype, st);
    }
    if (rc != SQLITE_DONE) {
        s = sql_error(db, err);
    }
    sqlite3_finalize(q);
    return s;
}

DcuStatus Repro_write(TraceDb* db, const ReproOpts* opts, FILE* out, FILE* notes,
                      ReproStats* stats, DcuError* err) {
    ReproStats st = {0, 0, 0};
    int negated = 0;
    if (opts->filter) { /* a bad pattern is the user's error, said before any work */
        Filter* f = NULL;
        if (Filter_new(opts->filter, &f, err) != DCU_OK) {
            return err->code;
        }
        negated = Filter_isNegated(f);
        Filter_delete(f);
    }
    DcuStatus s = link_ops(db, err);
    if (s == DCU_OK && TraceDb_scalarInt(db, "SELECT count(*) FROM temp.repro_link") <= 0) {
        s = Error_set(err, DCU_ERR_EMPTY,
                      "no kernel is linked to a PyTorch op: --export repro needs a PyTorch "
                      "profiler (Kineto) trace with its cpu_op events");
    }
    char ldtype[32];
    Sinks k = {NULL, NULL, notes, NULL, 0, NULL};
    char *ok_text = NULL, *bad_text = NULL;
    size_t ok_len = 0, bad_len = 0;
    if (s == DCU_OK) {
        list_dtype(db, ldtype, sizeof(ldtype));
        k.ok = open_memstream(&ok_text, &ok_len);
        k.bad = open_memstream(&bad_text, &bad_len);
        k.badc = open_memstream(&k.bad_comments, &k.bad_len);
        if (!k.ok || !k.bad || !k.badc) {
            s = Error_set(err, DCU_ERR_NOMEM, "out of memory");
        }
    }
    if (s == DCU_OK) {
        s = select_ops(db, opts, negated, &k, ldtype, &st, err);
    }
    if (k.ok) {
        fclose(k.ok);
    }
    if (k.bad) {
        fclose(k.bad);
    }
    if (k.badc) {
        fclose(k.badc);
    }
    if (s == DCU_OK && st.ops == 0) {
        s = Error_set(err, DCU_ERR_EMPTY, "no op %s",
                      opts->module || opts->model_op ? "of the selection launched a kernel"
                      : opts->kernel                 ? "launched this kernel"
                                                     : "matches the filter");
    }
    if (s == DCU_OK) {
        char device[160];
        trace_device(db, device, sizeof(device));
        header(out, opts, ldtype, device);
        fprintf(out, "#\n# %d ops: %d rebuilt, %d not rebuilt%s\n", st.ops, st.rebuilt,
                st.not_rebuilt, st.not_rebuilt ? " (listed with the reason):" : "");
        fputs(k.bad_comments ? k.bad_comments : "", out);
        fprintf(out, "\n%s\nLIST_DTYPE = \"%s\"\nTRACE_DEVICE = ", dcutop_repro_runtime, ldtype);
        ReproArgs_pyString(out, device);
        fprintf(out, "\n\nOPS = [\n%s]\n\nNOT_REBUILT = [\n%s]\n\n"
                     "if __name__ == \"__main__\":\n    sys.exit(main(OPS, NOT_REBUILT))\n",
                ok_text ? ok_text : "", bad_text ? bad_text : "");
        if (ferror(out)) {
            s = Error_set(err, DCU_ERR_IO, "write error");
        }
    }
    free(ok_text);
    free(bad_text);
    free(k.bad_comments);
    TraceDb_exec(db, "DROP TABLE IF EXISTS temp.repro_link;", NULL);
    if (stats) {
        *stats = st;
    }
    return s;
}
