/* marker_ops.c - op identity from marker ranges (rocprofv3 marker_api_trace, rocpd regions,
 * rocprofv2 roctx), as PyTorch writes them under torch.autograd.profiler.emit_nvtx (on ROCm
 * its nvtx ranges are roctx ranges):
 *   "aten::addmm, seq = 5230, op_id = 12, sizes = [[1536], [4096, 512], [512, 1536]]"
 * nested in module ranges ("nn.Module: Linear_1", or any name that is not an op), under a
 * "ProfilerStep#N" range. A backward function's range ("AddmmBackward0, seq = 5230", on the
 * autograd thread) carries the sequence number of the forward op that made it.
 * A dispatch's op is read from the innermost range open at its launch (dispatch_range):
 * its forward op is the outermost op range on that chain (or, under a backward function, the
 * outermost op around the last forward op range to start with the same seq); its module path the module
 * ranges around that op, outermost first, joined by '/' as PyTorch's module events are. When
 * any range is named "nn.Module: ...", only those are modules; else every range that is not
 * an op, a backward function or a ProfilerStep is. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/i64_map.h"
#include "dcutop/xalloc.h"
#include "diff_ops.h"

enum { R_OTHER, R_OP, R_BWD, R_WRAP, R_STEP, R_MOD };

typedef struct {
    int64_t id, file, parent, start;
    int kind;
    int in_autograd; /* under a backward function or the autograd engine */
    int64_t seq;     /* -1 none */
    char* name;      /* the op or module name (owned) */
    char* sizes;     /* compact, "" none (owned) */
} Rg;

static const char module_prefix[] = "nn.Module: ";

/* "aten::mm, seq = 3, sizes = [[2, 3], [3]]" -> name "aten::mm", seq 3, sizes "[[2,3],[3]]" */
static void parse(Rg* r, const char* text) {
    const char* comma = strstr(text, ", ");
    size_t n = comma ? (size_t)(comma - text) : strlen(text);
    r->name = xmalloc(n + 1);
    memcpy(r->name, text, n);
    r->name[n] = '\0';
    r->seq = -1;
    const char* s = comma ? strstr(comma, "seq = ") : NULL;
    if (s) {
        r->seq = strtoll(s + 6, NULL, 10);
    }
    const char* z = comma ? strstr(comma, "sizes = ") : NULL;
    r->sizes = xmalloc(z ? strlen(z) + 1 : 1);
    size_t k = 0;
    if (z) {
        int depth = 0;
        for (const char* p = z + 8; *p; p++) {
            depth += *p == '[' ? 1 : (*p == ']' ? -1 : 0);
            if (!isspace((unsigned char)*p)) {
                r->sizes[k++] = *p;
            }
            if (depth == 0) {
                break;
            }
        }
    }
    r->sizes[k] = '\0';
    size_t len = strlen(r->name);
    size_t d = len;
    while (d > 0 && isdigit((unsigned char)r->name[d - 1])) {
        d--;
    }
    if (strncmp(r->name, "autograd::", 10) == 0) {
        r->kind = R_WRAP; /* autograd::engine::evaluate_function: XBackward0 */
    } else if (d >= 8 && strncmp(r->name + d - 8, "Backward", 8) == 0) {
        r->kind = R_BWD;
    } else if (strncmp(r->name, "ProfilerStep#", 13) == 0) {
        r->kind = R_STEP;
        r->seq = strtoll(r->name + 13, NULL, 10); /* the step number */
    } else if (strstr(r->name, "::")) {
        r->kind = R_OP;
    } else if (strncmp(r->name, module_prefix, sizeof(module_prefix) - 1) == 0) {
        r->kind = R_MOD;
        memmove(r->name, r->name + sizeof(module_prefix) - 1,
                len - (sizeof(module_prefix) - 1) + 1);
    } else {
        r->kind = R_OTHER;
    }
}

typedef struct {
    Rg* v;
    int n;
    I64Map* idx;    /* range id -> index + 1 */
    I64Map* by_seq; /* (file, seq) -> index + 1 of the first forward op range */
    int modules_named;
} Ranges;

static int64_t seq_key(int64_t file, int64_t seq) {
    return file * 1000000007LL + seq + 1;
}

static DcuStatus read_ranges(TraceDb* db, Ranges* rs, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(db,
                                   "SELECT id, file_id, coalesce(parent_id, 0), start_ns, name"
                                   " FROM range_span ORDER BY id",
                                   &st, err);
    if (rc != DCU_OK) {
        return rc;
    }
    int cap = 0, r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        if (rs->n == cap) {
            cap = cap ? cap * 2 : 1024;
            rs->v = xrealloc(rs->v, sizeof(Rg) * (size_t)cap);
        }
        Rg* g = &rs->v[rs->n];
        g->id = sqlite3_column_int64(st, 0);
        g->file = sqlite3_column_int64(st, 1);
        g->parent = sqlite3_column_int64(st, 2);
        g->start = sqlite3_column_int64(st, 3);
        const unsigned char* t = sqlite3_column_text(st, 4);
        parse(g, t ? (const char*)t : "");
        rs->modules_named |= g->kind == R_MOD;
        I64Map_put(rs->idx, g->id, rs->n + 1);
        int64_t pi = g->parent ? I64Map_get(rs->idx, g->parent) : 0; /* parents come first */
        g->in_autograd = g->kind == R_BWD || g->kind == R_WRAP ||
                         (pi && rs->v[pi - 1].in_autograd);
        /* An op records the sequence number it finds on entry, and the counter moves on when
         * an op makes a backward node: the op that made node N is the last to start with
         * seq N (those before it made none). The autograd thread keeps a counter of its own:
         * its ops are left out. */
        int64_t k = seq_key(g->file, g->seq);
        int64_t prev = I64Map_get(rs->by_seq, k);
        if (g->kind == R_OP && g->seq >= 0 && !g->in_autograd &&
            (!prev || rs->v[prev - 1].start <= g->start)) {
            I64Map_put(rs->by_seq, k, rs->n + 1);
        }
        rs->n++;
    }
    sqlite3_finalize(st);
    return r == SQLITE_DONE ? DCU_OK : Error_set(err, DCU_ERR_SQL, "SQL error: %s",
                                                 sqlite3_errmsg(TraceDb_handle(db)));
}

static Rg* parent_of(const Ranges* rs, const Rg* g) {
    int64_t i = g->parent ? I64Map_get(rs->idx, g->parent) : 0;
    return i ? &rs->v[i - 1] : NULL;
}

static int is_module(const Ranges* rs, const Rg* g) {
    return rs->modules_named ? g->kind == R_MOD : (g->kind == R_MOD || g->kind == R_OTHER);
}

/* Up the chain from g: the outermost op range, the step, the module path (into *mod). */
static const Rg* walk(const Ranges* rs, const Rg* g, int64_t* step, char** mod) {
    const Rg* top = NULL;
    const Rg* mods[64];
    int nm = 0;
    *step = -1;
    for (const Rg* p = g; p; p = parent_of(rs, p)) {
        if ((p->kind == R_OP || p->kind == R_WRAP) && nm == 0) {
            top = p; /* ops inside an op: the outer one; ops above a module do not count */
        } else if (p->kind == R_STEP && *step < 0) {
            *step = p->seq;
        } else if (is_module(rs, p) && top && nm < 64) {
            mods[nm++] = p;
        }
    }
    size_t len = 0;
    FILE* f = open_memstream(mod, &len);
    for (int i = nm - 1; i >= 0; i--) {
        fprintf(f, "%s%s", i == nm - 1 ? "" : "/", mods[i]->name);
    }
    fclose(f);
    return top;
}

/* The forward op range a dispatch's backward function names, or NULL; *in_bwd: 1 when the
 * dispatch is under a backward function or the autograd engine at all. */
static const Rg* backward_of(const Ranges* rs, const Rg* g, int* in_bwd) {
    *in_bwd = 0;
    for (const Rg* p = g; p; p = parent_of(rs, p)) {
        *in_bwd |= p->kind == R_BWD || p->kind == R_WRAP;
        if ((p->kind == R_BWD || p->kind == R_WRAP) && p->seq >= 0) {
            *in_bwd = 1;
            int64_t i = I64Map_get(rs->by_seq, seq_key(p->file, p->seq));
            return i ? &rs->v[i - 1] : NULL;
        }
    }
    return NULL;
}

static int any_op(const Ranges* rs) {
    for (int i = 0; i < rs->n; i++) {
        if (rs->v[i].kind == R_OP) {
            return 1;
        }
    }
    return 0;
}

static DcuStatus attribute(TraceDb* db, const Ranges* rs, OpBuild* b, DcuError* err) {
    sqlite3_stmt* st = NULL;
    DcuStatus rc = TraceDb_prepare(
        db,
        "SELECT d.kernel_id, d.dur_ns, coalesce(r.range_id, 0) FROM dispatch d"
        " LEFT JOIN dispatch_range r ON r.dispatch_id = d.id"
        " WHERE d.file_id IN (SELECT file_id FROM used_file WHERE layer = 'kernel')"
        " ORDER BY d.id",
        &st, err);
    if (rc != DCU_OK) {
        return rc;
    }
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t ri = I64Map_get(rs->idx, sqlite3_column_int64(st, 2));
        const Rg* g = ri ? &rs->v[ri - 1] : NULL;
        int back = 0;
        const Rg* fwd = g ? backward_of(rs, g, &back) : NULL;
        char* mod = NULL;
        int64_t step = -1;
        const Rg* top = g ? walk(rs, fwd ? fwd : g, &step, &mod) : NULL;
        int t = -1;
        if (top) {
            t = OpBuild_top(b, top->id);
            if (!b->tops[t].name) {
                b->tops[t].name = xstrdup(top->name);
                b->tops[t].dims = xstrdup(top->sizes);
                b->tops[t].start = top->start;
            }
        }
        OpBuild_add(b, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), t, back,
                    mod ? mod : "", back ? "backward" : (mod && *mod ? "forward" : "other"),
                    step);
        free(mod);
    }
    sqlite3_finalize(st);
    return r == SQLITE_DONE ? DCU_OK : Error_set(err, DCU_ERR_SQL, "SQL error: %s",
                                                 sqlite3_errmsg(TraceDb_handle(db)));
}

DcuStatus MarkerOps_read(TraceDb* db, OpBuild* b, DcuError* err) {
    /* PyTorch's ranges: other namespaced names (Kokkos::...) are the generic marker ops */
    if (!TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM range_span WHERE name LIKE 'aten::%')")) {
        return DCU_OK;
    }
    Ranges rs = {0};
    rs.idx = I64Map_new();
    rs.by_seq = I64Map_new();
    DcuStatus rc = read_ranges(db, &rs, err);
    if (rc == DCU_OK && any_op(&rs)) {
        rc = attribute(db, &rs, b, err);
    }
    for (int i = 0; i < rs.n; i++) {
        free(rs.v[i].name);
        free(rs.v[i].sizes);
    }
    free(rs.v);
    I64Map_delete(rs.idx);
    I64Map_delete(rs.by_seq);
    return rc;
}
