/* stacks.c - call trees over stacks and ranges (see stacks.h). The samples come from SQL
 * (kernel_stack, dispatch_range), the trees are built in memory: a prefix tree keyed by
 * (parent node, name) in an open-addressing hash, then laid out in pre-order with the
 * children of each node sorted by inclusive time. Nothing here recurses, so a 10,000-frame
 * stack is as safe as a 10-frame one. */
#include "dcutop/stacks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/filter.h"
#include "dcutop/intern.h"
#include "dcutop/query.h"
#include "dcutop/range_groups.h"
#include "dcutop/stack_groups.h"
#include "dcutop/xalloc.h"

static const char* const source_names[] = {"stacks", "ranges"};
static const char* const mode_names[] = {"calls", "callers", "callees"};

int Stacks_sourceByName(const char* name) {
    for (int i = 0; i < 2; i++) {
        if (name && strcmp(name, source_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char* Stacks_sourceName(StacksSource src) {
    return src == STACKS_SRC_RANGES ? source_names[1] : source_names[0];
}

int Stacks_modeByName(const char* name) {
    for (int i = 0; i < 3; i++) {
        if (name && strcmp(name, mode_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char* Stacks_modeName(StacksMode m) {
    return (unsigned)m < 3 ? mode_names[m] : "?";
}

/* ---- library frames ------------------------------------------------------------------- */

/* ---- a small (uint64 -> int) hash -------------------------------------------------------- */

typedef struct Map_ {
    uint64_t* keys; /* 0 = empty */
    int* vals;
    size_t cap, count;
} Map;

static uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDULL;
    k ^= k >> 33;
    k *= 0xC4CEB9FE1A85EC53ULL;
    return k ^ (k >> 33);
}

static void map_init(Map* m) {
    m->cap = 1024;
    m->count = 0;
    m->keys = xcalloc(m->cap, sizeof(uint64_t));
    m->vals = xmalloc(m->cap * sizeof(int));
}

static void map_done(Map* m) {
    free(m->keys);
    free(m->vals);
}

static size_t map_slot(const Map* m, uint64_t k) {
    size_t mask = m->cap - 1;
    size_t i = (size_t)mix(k) & mask;
    while (m->keys[i] && m->keys[i] != k) {
        i = (i + 1) & mask;
    }
    return i;
}

static int map_get(const Map* m, uint64_t k) {
    size_t i = map_slot(m, k);
    return m->keys[i] ? m->vals[i] : -1;
}

static void map_put(Map* m, uint64_t k, int v) {
    if ((m->count + 1) * 2 > m->cap) {
        Map g;
        g.cap = m->cap * 2;
        g.count = 0;
        g.keys = xcalloc(g.cap, sizeof(uint64_t));
        g.vals = xmalloc(g.cap * sizeof(int));
        for (size_t i = 0; i < m->cap; i++) {
            if (m->keys[i]) {
                size_t j = map_slot(&g, m->keys[i]);
                g.keys[j] = m->keys[i];
                g.vals[j] = m->vals[i];
                g.count++;
            }
        }
        map_done(m);
        *m = g;
    }
    size_t i = map_slot(m, k);
    if (!m->keys[i]) {
        m->keys[i] = k;
        m->count++;
    }
    m->vals[i] = v;
}

/* ---- symbols (names with a kind) ---------------------------------------------------------- */

typedef struct Sym_ {
    size_t off; /* into Builder.strings */
    int kind, lib;
    int64_t kernel_id;
} Sym;

typedef struct TNode_ {
    int sym, parent, first_child, next_sibling, nchildren, depth;
    int64_t self, incl, calls;
} TNode;

typedef struct Builder_ {
    Intern* sym_ix; /* kind byte + name -> sym index + 1 */
    Sym* syms;
    int nsyms, capsyms;
    char* strings;
    size_t slen, scap;
    TNode* nodes;
    int n, cap;
    Map child;  /* (parent + 1) << 32 | sym -> node */
    int* stamp; /* per sym: last sample that counted it at a root */
    int stamp_cap;
    StacksMode mode;
    int fold;
    Filter* filter;
    int neg;
    int64_t total, total_calls, samples;
    int* path;
    int pcap;
    int* folded;
    int fcap;
    /* per source */
    int64_t* sn_parent; /* stack_node / range_span id -> parent id (0 = none) */
    int* sn_sym;        /* id -> sym (-1 = none) */
    int64_t sn_max;
    /* the note's time without a stack, when the direct pass summed it (stack_direct) */
    double unstacked_ns;
    int unstacked_known;
} Builder;

static int sym_get(Builder* b, int kind, const char* name, int lib, int64_t kernel_id) {
    size_t nl = strlen(name);
    char stackbuf[256];
    char* key = nl + 1 <= sizeof(stackbuf) ? stackbuf : xmalloc(nl + 1);
    key[0] = (char)('0' + kind);
    memcpy(key + 1, name, nl);
    int64_t id = Intern_get(b->sym_ix, key, nl + 1);
    if (!id) {
        if (b->nsyms == b->capsyms) {
            b->capsyms = b->capsyms ? b->capsyms * 2 : 256;
            b->syms = xrealloc(b->syms, sizeof(Sym) * (size_t)b->capsyms);
        }
        Sym* s = &b->syms[b->nsyms];
        s->off = b->slen;
        s->kind = kind;
        s->lib = lib;
        s->kernel_id = kernel_id;
        xgrow((void**)&b->strings, &b->scap, b->slen + nl + 1);
        memcpy(b->strings + b->slen, name, nl + 1);
        b->slen += nl + 1;
        id = ++b->nsyms;
        Intern_put(b->sym_ix, key, nl + 1, id);
    }
    if (key != stackbuf) {
        free(key);
    }
    return (int)id - 1;
}

static const char* sym_name(const Builder* b, int s) {
    return b->strings + b->syms[s].off;
}

static int node_get(Builder* b, int parent, int sym) {
    uint64_t k = ((uint64_t)(parent + 1) << 32) | (uint64_t)(uint32_t)sym;
    k += 1; /* never 0 */
    int idx = map_get(&b->child, k);
    if (idx >= 0) {
        return idx;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 1024;
        b->nodes = xrealloc(b->nodes, sizeof(TNode) * (size_t)b->cap);
    }
    idx = b->n++;
    TNode* t = &b->nodes[idx];
    memset(t, 0, sizeof(*t));
    t->sym = sym;
    t->parent = parent;
    t->first_child = -1;
    t->next_sibling = -1;
    t->depth = parent >= 0 ? b->nodes[parent].depth + 1 : 0;
    if (parent >= 0) {
        t->next_sibling = b->nodes[parent].first_child;
        b->nodes[parent].first_child = idx;
        b->nodes[parent].nchildren++;
    }
    map_put(&b->child, k, idx);
    return idx;
}

static void add(Builder* b, int node, int64_t t, int64_t c) {
    b->nodes[node].incl += t;
    b->nodes[node].calls += c;
}

static int pseudo(Builder* b, const char* name) {
    return sym_get(b, SNODE_PSEUDO, name, 0, 0);
}

/* Inserts one sample: path[0..n) outermost first, the leaf last. */
static void insert(Builder* b, const int* p, int n, int64_t t, int64_t c) {
    if (n <= 0) {
        return;
    }
    b->samples++;
    if (b->mode == STACKS_TREE) {
        int node = -1;
        for (int i = 0; i < n; i++) {
            node = node_get(b, node, p[i]);
            add(b, node, t, c);
        }
        b->nodes[node].self += t;
        return;
    }
    if (b->stamp_cap < b->nsyms) {
        int old = b->stamp_cap;
        b->stamp_cap = b->nsyms * 2;
        b->stamp = xrealloc(b->stamp, sizeof(int) * (size_t)b->stamp_cap);
        for (int i = old; i < b->stamp_cap; i++) {
            b->stamp[i] = -1;
        }
    }
    int sample = (int)(b->samples & 0x7FFFFFFF);
    int callers = b->mode == STACKS_CALLER;
    for (int i = 0; i < n; i++) {
        int root = node_get(b, -1, p[i]);
        if (b->stamp[p[i]] != sample) {
            b->stamp[p[i]] = sample;
            add(b, root, t, c);
        }
        int node = root;
        int j = callers ? i - 1 : i + 1;
        int steps = 0;
        while (j >= 0 && j < n && steps < STACKS_CHAIN_MAX) {
            node = node_get(b, node, p[j]);
            add(b, node, t, c);
            j += callers ? -1 : 1;
            steps++;
        }
        if (j >= 0 && j < n) {
            node =
                node_get(b, node, pseudo(b, callers ? "[more callers cut]" : "[more callees cut]"));
            add(b, node, t, c);
        }
        if (!callers) {
            b->nodes[node].self += t; /* the chain reached the leaf */
        } else if (i == n - 1) {
            b->nodes[root].self += t; /* perf's Self: the root is the leaf */
        }
    }
}

/* Applies folding and the filter to path[0..n) (leaf last, never folded) and inserts it. */
static void sample(Builder* b, int n, int64_t t, int64_t c) {
    b->total += t;
    b->total_calls += c;
    int* p = b->path;
    if (b->fold && n > 1) {
        if (b->fcap < n) {
            b->fcap = n;
            b->folded = xrealloc(b->folded, sizeof(int) * (size_t)n);
        }
        int m = 0;
        for (int i = 0; i < n - 1; i++) {
            if (!b->syms[p[i]].lib) {
                b->folded[m++] = p[i];
            }
        }
        if (m == 0) {
            b->folded[m++] = p[0]; /* all library: keep the entry point */
        }
        b->folded[m++] = p[n - 1];
        p = b->folded;
        n = m;
    }
    if (b->filter) {
        int any = 0;
        for (int i = 0; i < n && !any; i++) {
            const char* s = sym_name(b, p[i]);
            int pass = Filter_matches(b->filter, s, strlen(s));
            any = b->neg ? !pass : pass;
        }
        if (any == b->neg) {
            return;
        }
    }
    insert(b, p, n, t, c);
}

static void path_reserve(Builder* b, int n) {
    if (b->pcap < n) {
        b->pcap = n * 2;
        b->path = xrealloc(b->path, sizeof(int) * (size_t)b->pcap);
    }
}

/* path from a stack_node / range_span id: its chain to the root, outermost first. Returns the
 * number of names written; a parent chain that does not end (a corrupt database) stops after
 * as many steps as there are nodes. */
static int chain(Builder* b, int64_t id, int extra) {
    int n = 0;
    for (int64_t k = id; k > 0 && k <= b->sn_max && n <= b->sn_max; k = b->sn_parent[k]) {
        n++;
        if (b->sn_parent[k] >= k) {
            break;
        }
    }
    path_reserve(b, n + extra + 1);
    int i = n;
    for (int64_t k = id; k > 0 && k <= b->sn_max && i > 0; k = b->sn_parent[k]) {
        b->path[--i] = b->sn_sym[k];
        if (b->sn_parent[k] >= k) {
            break;
        }
    }
    /* drop entries without a name (ids that do not exist) */
    int m = 0;
    for (int j = i; j < n; j++) {
        if (b->path[j] >= 0) {
            b->path[m++] = b->path[j];
        }
    }
    return m;
}

/* ---- reading the samples ------------------------------------------------------------------ */

static DcuStatus sql_fail(TraceDb* db, DcuError* err) {
    return Error_set(err, DCU_ERR_SQL, "SQL error: %s", sqlite3_errmsg(TraceDb_handle(db)));
}

static DcuStatus load_nodes(Builder* b, TraceDb* db, const char* max_sql, const char* sql, int kind,
                            int with_lib, DcuError* err) {
    b->sn_max = TraceDb_scalarInt(db, max_sql);
    if (b->sn_max < 0 || b->sn_max > 200000000) {
        return Error_set(err, DCU_ERR_SQL, "stack ids out of range");
    }
    b->sn_parent = xcalloc((size_t)b->sn_max + 1, sizeof(int64_t));
    b->sn_sym = xmalloc(((size_t)b->sn_max + 1) * sizeof(int));
    for (int64_t i = 0; i <= b->sn_max; i++) {
        b->sn_sym[i] = -1;
    }
    sqlite3_stmt* st = NULL;
    DcuStatus s = TraceDb_prepare(db, sql, &st, err);
    if (s != DCU_OK) {
        return s;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        if (id <= 0 || id > b->sn_max) {
            continue;
        }
        b->sn_parent[id] = sqlite3_column_int64(st, 1);
        const char* name = (const char*)sqlite3_column_text(st, 2);
        b->sn_sym[id] =
            sym_get(b, kind, name ? name : "?", with_lib ? sqlite3_column_int(st, 3) : 0, 0);
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

/* Folded stacks carry their own time (VALUE). When kernel-attached stacks exist too (a dump,
 * or a Kineto trace of the same run), only those are used: both describe the same device
 * time, and adding them up would count it twice. ?1 in the queries below. */
static int only_folded(TraceDb* db) {
    return !TraceDb_scalarInt(db, "SELECT EXISTS (SELECT 1 FROM kernel_stack"
                                  " WHERE form <> 'folded')");
}

/* One sample of the stacks tree: the stack's chain, then the kernel (when named) as leaf. */
static void stack_sample(Builder* b, int64_t sid, int64_t kid, const char* kname, int64_t calls,
                         int64_t t, int64_t* attached) {
    int n = chain(b, sid, 1);
    if (kname) {
        b->path[n++] = sym_get(b, SNODE_KERNEL, kname, 0, kid);
    }
    if (kid) {
        *attached += 1;
    }
    sample(b, n, t, calls);
}

/* The kernel time no stack accounts for, so that 100% is device kernel time. */
static void unstacked_sample(Builder* b, int64_t kid, const char* name, int64_t calls,
                             int64_t t) {
    path_reserve(b, 2);
    b->path[0] = pseudo(b, "[no stack]");
    b->path[1] = sym_get(b, SNODE_KERNEL, name, 0, kid);
    sample(b, 2, t, calls > 0 ? calls : 0);
}

/* The samples from one pass over kernel_stack (stack_groups.h), the kernels named here; the
 * note's unstacked time (stack_note) is summed on the way. */
static DcuStatus stack_direct(Builder* b, TraceDb* db, int folded, int64_t* attached,
                              DcuError* err) {
    StackGroups sg;
    sqlite3_stmt* name = NULL;
    DcuStatus s = StackGroups_read(db, folded, &sg, err);
    if (s == DCU_OK) {
        s = TraceDb_prepare(db, "SELECT name FROM kernel WHERE id = ?1", &name, err);
    }
    for (int64_t i = 0; s == DCU_OK && i < sg.n; i++) {
        const StackGroup* g = &sg.g[i];
        const char* kname = g->kname;
        if (g->has_kernel) {
            sqlite3_bind_int64(name, 1, g->kernel_id);
            kname = sqlite3_step(name) == SQLITE_ROW ? (const char*)sqlite3_column_text(name, 0)
                                                     : NULL;
        }
        stack_sample(b, g->stack_id, g->kernel_id, kname, g->calls, g->time_ns, attached);
        sqlite3_reset(name);
    }
    sqlite3_finalize(name);
    sqlite3_stmt* st = NULL;
    if (s == DCU_OK && *attached) {
        s = TraceDb_prepare(db,
                            "SELECT s.kernel_id, k.name, s.calls, s.total_ns FROM kernel_summary s"
                            " LEFT JOIN kernel k ON k.id = s.kernel_id"
                            " WHERE s.total_ns IS NOT NULL ORDER BY s.kernel_id",
                            &st, err);
        pseudo(b, "[no stack]");
        b->unstacked_known = 1;
    }
    int rc = SQLITE_DONE;
    while (st && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t kid = sqlite3_column_int64(st, 0), calls, t;
        StackGroups_kernel(&sg, kid, &calls, &t);
        int64_t left = sqlite3_column_int64(st, 3) - t;
        if (left <= 0) {
            continue;
        }
        b->unstacked_ns += (double)left; /* the note's total() */
        if (sqlite3_column_type(st, 1) != SQLITE_NULL) { /* the tree joins kernel */
            unstacked_sample(b, kid, (const char*)sqlite3_column_text(st, 1),
                             sqlite3_column_int64(st, 2) - calls, left);
        }
    }
    if (s == DCU_OK && rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    StackGroups_done(&sg);
    return s;
}

static DcuStatus stack_samples(Builder* b, TraceDb* db, int64_t* attached, DcuError* err) {
    DcuStatus s = load_nodes(b, db, "SELECT coalesce(max(id), 0) FROM stack_node",
                             "SELECT n.id, coalesce(n.parent, 0), f.name, f.lib"
                             " FROM stack_node n JOIN frame f ON f.id = n.frame_id",
                             SNODE_FRAME, 1, err);
    if (s != DCU_OK) {
        return s;
    }
    int folded = only_folded(db);
    *attached = 0;
    if (!getenv("DCUTOP_SQL_SCAN")) {
        return stack_direct(b, db, folded, attached, err);
    }
    /* the SQL the direct pass stands for (DCUTOP_SQL_SCAN: tests compare the two). A kernel
     * named by a dump but not loaded is still the leaf (no time). Grouped on ids first and
     * named after: grouping a row per dispatch (Kineto) by the kernel's name text cost twice
     * as much (issue 11). A matched kernel_id determines the name. */
    sqlite3_stmt* st = NULL;
    s = TraceDb_prepare(db,
                        "SELECT g.stack_id, g.kernel_id, coalesce(k.name, g.kname), g.calls, g.t"
                        " FROM (SELECT stack_id, kernel_id, CASE WHEN kernel_id IS NULL AND"
                        "  form <> 'folded' THEN kernel_name END AS kname,"
                        "  CAST(sum(CAST(calls AS REAL)) AS INTEGER) AS calls,"
                        "  CAST(sum(CAST(time_ns AS REAL)) AS INTEGER) AS t"
                        "  FROM kernel_stack WHERE ?1 OR form <> 'folded' GROUP BY 1, 2, 3) g"
                        " LEFT JOIN kernel k ON k.id = g.kernel_id ORDER BY 1, 2, 3",
                        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int(st, 1, folded);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        stack_sample(b, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                     (const char*)sqlite3_column_text(st, 2), sqlite3_column_int64(st, 3),
                     sqlite3_column_int64(st, 4), attached);
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    if (s != DCU_OK || *attached == 0) {
        return s;
    }
    s = TraceDb_prepare(
        db,
        "SELECT k.id, k.name, s.calls - coalesce(a.calls, 0),"
        " s.total_ns - coalesce(a.t, 0)"
        " FROM kernel_summary s JOIN kernel k ON k.id = s.kernel_id"
        " LEFT JOIN (SELECT kernel_id, CAST(sum(CAST(calls AS REAL)) AS INTEGER) AS calls, CAST(sum(CAST(time_ns AS REAL)) AS INTEGER) AS t"
        "   FROM kernel_stack WHERE kernel_id IS NOT NULL AND (?1 OR form <> 'folded')"
        "   GROUP BY 1) a ON a.kernel_id = s.kernel_id"
        " WHERE s.total_ns - coalesce(a.t, 0) > 0 ORDER BY k.id",
        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_bind_int(st, 1, folded);
    pseudo(b, "[no stack]");
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        unstacked_sample(b, sqlite3_column_int64(st, 0), (const char*)sqlite3_column_text(st, 1),
                         sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3));
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

/* One group of the ranges tree: the range's chain (or a pseudo node: no range) and the
 * kernel as its leaf. */
static void range_sample(Builder* b, int has_range, int64_t range_id, int none,
                         const char* module, int64_t kernel_id, const char* kname,
                         int64_t calls, int64_t t) {
    int n, depth = 0; /* the module path's levels: its spans are ranges too */
    for (const char* p = module; p && *p; p++) {
        depth += p == module || p[-1] == '/';
    }
    if (!has_range) {
        path_reserve(b, 3 + depth);
        n = 0;
        if (!depth) {
            b->path[n++] = none == 1 ? pseudo(b, "[no launch time]")
                                     : pseudo(b, "[outside any range]");
        }
    } else {
        n = chain(b, range_id, 2 + depth);
    }
    for (const char* p = module; p && *p;) {
        size_t l = strcspn(p, "/");
        char name[320];
        snprintf(name, sizeof(name), "nn.Module: %.*s", (int)(l < 300 ? l : 300), p);
        b->path[n++] = sym_get(b, SNODE_RANGE, name, 0, 0);
        p += l + (p[l] == '/');
    }
    if (none == 2) { /* a backward kernel, under the ranges of its forward op */
        b->path[n++] = pseudo(b, "[backward]");
    }
    b->path[n++] = sym_get(b, SNODE_KERNEL, kname, 0, kernel_id);
    sample(b, n, t, calls);
}

/* The groups from the dispatch store's columns (range_groups.h), named here. */
static DcuStatus range_direct(Builder* b, TraceDb* db, const RangeGroup* g, int64_t n,
                              char* const* modules, DcuError* err) {
    sqlite3_stmt* name = NULL;
    DcuStatus s = TraceDb_prepare(db, "SELECT name FROM kernel WHERE id = ?1", &name, err);
    for (int64_t i = 0; s == DCU_OK && i < n; i++) {
        sqlite3_bind_int64(name, 1, g[i].kernel_id);
        if (sqlite3_step(name) != SQLITE_ROW) {
            s = sql_fail(db, err);
            break;
        }
        range_sample(b, g[i].range_id != 0, g[i].range_id, g[i].none,
                     g[i].module ? modules[g[i].module - 1] : NULL, g[i].kernel_id,
                     (const char*)sqlite3_column_text(name, 0), g[i].calls,
                     (int64_t)g[i].time_ns);
        sqlite3_reset(name);
    }
    sqlite3_finalize(name);
    return s;
}

static DcuStatus range_samples(Builder* b, TraceDb* db, DcuError* err) {
    DcuStatus s =
        load_nodes(b, db, "SELECT coalesce(max(id), 0) FROM range_span",
                   "SELECT id, coalesce(parent_id, 0), name FROM range_span", SNODE_RANGE, 0, err);
    if (s != DCU_OK) {
        return s;
    }
    /* the two pseudo nodes first, as before the direct read */
    pseudo(b, "[outside any range]");
    pseudo(b, "[no launch time]");
    RangeGroup* g = NULL;
    int64_t ng = 0, nm = 0;
    char** modules = NULL;
    if (RangeGroups_read(db, &g, &ng, &modules, &nm, &s, err)) {
        s = s == DCU_OK ? range_direct(b, db, g, ng, modules, err) : s;
        free(g);
        for (int64_t i = 0; i < nm; i++) {
            free(modules[i]);
        }
        free(modules);
        return s;
    }
    if (s != DCU_OK) {
        return s;
    }
    sqlite3_stmt* st = NULL;
    s = TraceDb_prepare(db,
                        "SELECT dr.range_id, d.kernel_id, k.name, count(*),"
                        " CAST(total(d.dur_ns) AS INTEGER), CASE coalesce(dr.how, 'none')"
                        "  WHEN 'none' THEN 1 WHEN 'forward op' THEN 2 ELSE 0 END, dop.module"
                        " FROM dispatch d JOIN used_file u ON u.file_id = d.file_id"
                        "   AND u.layer = 'kernel'"
                        " JOIN kernel k ON k.id = d.kernel_id"
                        " LEFT JOIN dispatch_range dr ON dr.dispatch_id = d.id"
                        " LEFT JOIN dispatch_op dop ON dop.dispatch_id = d.id"
                        "   AND dop.op_name IS NULL"
                        " GROUP BY 1, 2, 6, 7 ORDER BY 1, 2, 6, 7",
                        &st, err);
    if (s != DCU_OK) {
        return s;
    }
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        range_sample(b, sqlite3_column_type(st, 0) != SQLITE_NULL, sqlite3_column_int64(st, 0),
                     sqlite3_column_int(st, 5), (const char*)sqlite3_column_text(st, 6),
                     sqlite3_column_int64(st, 1), (const char*)sqlite3_column_text(st, 2),
                     sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
    }
    if (rc != SQLITE_DONE) {
        s = sql_fail(db, err);
    }
    sqlite3_finalize(st);
    return s;
}

/* ---- layout ------------------------------------------------------------------------------- */

static const Builder* sort_b;

static int cmp_nodes(const void* x, const void* y) {
    const TNode* a = &sort_b->nodes[*(const int*)x];
    const TNode* c = &sort_b->nodes[*(const int*)y];
    if (a->incl != c->incl) {
        return a->incl > c->incl ? -1 : 1;
    }
    int r = strcmp(sym_name(sort_b, a->sym), sym_name(sort_b, c->sym));
    if (r) {
        return r;
    }
    return a->sym < c->sym ? -1 : a->sym > c->sym;
}

/* Pre-order copy of the trie into t->nodes, children sorted; iterative. */
static void layout(Builder* b, StackTree* t) {
    t->n = b->n;
    t->nodes = xcalloc(b->n > 0 ? (size_t)b->n : 1, sizeof(StackNode));
    int* kids = xmalloc(sizeof(int) * (size_t)(b->n > 0 ? b->n : 1));
    /* sorted child lists: for each node, its children in kids[start .. start+nchildren) */
    int* start = xmalloc(sizeof(int) * (size_t)(b->n + 1));
    int roots = 0;
    for (int i = 0; i < b->n; i++) {
        roots += b->nodes[i].parent < 0;
    }
    int* rootv = xmalloc(sizeof(int) * (size_t)(roots > 0 ? roots : 1));
    int r = 0;
    for (int i = 0; i < b->n; i++) {
        if (b->nodes[i].parent < 0) {
            rootv[r++] = i;
        }
    }
    sort_b = b;
    qsort(rootv, (size_t)roots, sizeof(int), cmp_nodes);
    int pos = 0;
    for (int i = 0; i < b->n; i++) {
        start[i] = pos;
        int k = pos;
        for (int c = b->nodes[i].first_child; c >= 0; c = b->nodes[c].next_sibling) {
            kids[k++] = c;
        }
        qsort(kids + pos, (size_t)(k - pos), sizeof(int), cmp_nodes);
        pos = k;
    }
    /* DFS with an explicit stack of (trie node, output parent) */
    int* stk = xmalloc(sizeof(int) * (size_t)(b->n > 0 ? b->n : 1) * 2);
    int sp = 0;
    for (int i = roots - 1; i >= 0; i--) {
        stk[sp++] = rootv[i];
        stk[sp++] = -1;
    }
    int out = 0;
    int* out_of = xmalloc(sizeof(int) * (size_t)(b->n > 0 ? b->n : 1));
    while (sp > 0) {
        int parent = stk[--sp];
        int node = stk[--sp];
        const TNode* tn = &b->nodes[node];
        StackNode* o = &t->nodes[out];
        const Sym* sy = &b->syms[tn->sym];
        o->kind = sy->kind;
        o->library = sy->lib;
        o->kernel_id = sy->kernel_id;
        o->parent = parent;
        o->first_child = -1;
        o->next_sibling = -1;
        o->nchildren = tn->nchildren;
        o->depth = tn->depth;
        o->self_ns = tn->self;
        o->incl_ns = tn->incl;
        o->calls = tn->calls;
        o->self_pct = b->total > 0 ? 100.0 * (double)tn->self / (double)b->total : 0;
        o->incl_pct = b->total > 0 ? 100.0 * (double)tn->incl / (double)b->total : 0;
        o->name = (const char*)(uintptr_t)sy->off; /* fixed up below */
        out_of[node] = out;
        if (parent >= 0 && t->nodes[parent].first_child < 0) {
            t->nodes[parent].first_child = out;
        }
        out++;
        int c0 = start[node];
        for (int k = c0 + tn->nchildren - 1; k >= c0; k--) {
            stk[sp++] = kids[k];
            stk[sp++] = out_of[node];
        }
    }
    /* siblings and subtree ends: a node's subtree ends where the next node of depth <= its
     * depth begins */
    int* open = xmalloc(sizeof(int) * (size_t)(b->n > 0 ? b->n : 1));
    int no = 0;
    for (int i = 0; i < t->n; i++) {
        while (no > 0 && t->nodes[open[no - 1]].depth >= t->nodes[i].depth) {
            t->nodes[open[--no]].subtree_end = i;
        }
        open[no++] = i;
    }
    while (no > 0) {
        t->nodes[open[--no]].subtree_end = t->n;
    }
    for (int i = 0; i < t->n; i++) {
        int e = t->nodes[i].subtree_end;
        if (e < t->n && t->nodes[e].parent == t->nodes[i].parent) {
            t->nodes[i].next_sibling = e;
        }
    }
    t->nroots = roots;
    free(open);
    free(out_of);
    free(stk);
    free(rootv);
    free(start);
    free(kids);
}

/* ---- public --------------------------------------------------------------------------------- */

/* "825.0 ms" (the model does not link the view's formatting) */
static void dur_text(char* buf, size_t cap, int64_t ns) {
    int64_t a = ns < 0 ? -ns : ns;
    if (a >= 1000000000LL) {
        snprintf(buf, cap, "%.2f s", (double)ns / 1e9);
    } else if (a >= 1000000LL) {
        snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
    } else if (a >= 1000LL) {
        snprintf(buf, cap, "%.1f us", (double)ns / 1e3);
    } else {
        snprintf(buf, cap, "%lld ns", (long long)ns);
    }
}

int Stacks_available(TraceDb* db, StacksSource src) {
    return TraceDb_scalarInt(db, src == STACKS_SRC_RANGES
                                     ? "SELECT EXISTS (SELECT 1 FROM range_span)"
                                     : "SELECT EXISTS (SELECT 1 FROM kernel_stack)") != 0;
}

void StackTree_delete(StackTree* this) {
    if (!this) {
        return;
    }
    free(this->nodes);
    free(this->strings);
    free(this->note);
    free(this);
}

static void builder_done(Builder* b) {
    Intern_delete(b->sym_ix);
    free(b->syms);
    free(b->strings);
    free(b->nodes);
    map_done(&b->child);
    free(b->stamp);
    free(b->path);
    free(b->folded);
    free(b->sn_parent);
    free(b->sn_sym);
    Filter_delete(b->filter);
}

static char* stack_note(TraceDb* db, const Builder* b, int64_t attached) {
    char t[64], k[64];
    dur_text(t, sizeof(t), b->total);
    int64_t kern = TraceDb_scalarInt(db, "SELECT CAST(total(total_ns) AS INTEGER)"
                                         " FROM kernel_summary");
    if (attached) {
        int64_t none = b->unstacked_known ? (int64_t)b->unstacked_ns : TraceDb_scalarInt(
            db, only_folded(db)
                    ? "SELECT CAST(total(s.total_ns - coalesce(a.t, 0)) AS INTEGER)"
                      " FROM kernel_summary s LEFT JOIN (SELECT kernel_id, CAST(sum(CAST(time_ns AS REAL)) AS INTEGER) AS t"
                      " FROM kernel_stack WHERE kernel_id IS NOT NULL GROUP BY 1) a"
                      " ON a.kernel_id = s.kernel_id WHERE s.total_ns - coalesce(a.t, 0) > 0"
                    : "SELECT CAST(total(s.total_ns - coalesce(a.t, 0)) AS INTEGER)"
                      " FROM kernel_summary s LEFT JOIN (SELECT kernel_id, CAST(sum(CAST(time_ns AS REAL)) AS INTEGER) AS t"
                      " FROM kernel_stack WHERE kernel_id IS NOT NULL AND form <> 'folded'"
                      " GROUP BY 1) a ON a.kernel_id = s.kernel_id"
                      " WHERE s.total_ns - coalesce(a.t, 0) > 0");
        int64_t nfold = TraceDb_scalarInt(db, "SELECT count(*) FROM kernel_stack"
                                              " WHERE form = 'folded'");
        char* skipped = NULL;
        if (nfold > 0 && !only_folded(db)) {
            skipped = xasprintf("; %" PRId64 " folded stacks left out (their VALUE would count the "
                                "same device time again)",
                                nfold);
        }
        char* note;
        dur_text(k, sizeof(k), none);
        if (none <= 0) {
            note = xasprintf("100%% = %s: device kernel time; every kernel has stacks%s", t,
                             skipped ? skipped : "");
        } else {
            note = xasprintf("100%% = %s: device kernel time with the stacks that launched it; "
                             "%s (%.1f%%) has no stack ([no stack])%s",
                             t, k, b->total > 0 ? 100.0 * (double)none / (double)b->total : 0.0,
                             skipped ? skipped : "");
        }
        free(skipped);
        return note;
    }
    if (kern > 0) {
        dur_text(k, sizeof(k), kern);
        return xasprintf("100%% = %s: the VALUE column of the folded stacks (microseconds); no "
                         "stack names a loaded kernel, so device kernel time (%s) is not "
                         "compared",
                         t, k);
    }
    return xasprintf("100%% = %s: the VALUE column of the folded stacks (microseconds)", t);
}

static char* range_note(TraceDb* db, const Builder* b) {
    char t[64], k[64];
    dur_text(t, sizeof(t), b->total);
    int64_t stats = TraceDb_scalarInt(
        db, "SELECT CAST(total(total_ns) AS INTEGER) FROM kernel_summary WHERE per_dispatch = 0");
    int64_t corr = TraceDb_scalarInt(db, "SELECT count(*) FROM dispatch_range"
                                         " WHERE how = 'correlation'");
    int64_t bytime =
        TraceDb_scalarInt(db, "SELECT count(*) FROM dispatch_range WHERE how = 'time'");
    char* extra = NULL;
    if (stats > 0) {
        dur_text(k, sizeof(k), stats);
        extra = xasprintf("; %s from aggregate stats has no launch times and is not shown", k);
    }
    char* n = xasprintf("100%% = %s: per-dispatch device kernel time; launches placed by "
                        "correlation id %" PRId64 ", by time %" PRId64 "%s",
                        t, corr, bytime, extra ? extra : "");
    free(extra);
    return n;
}

DcuStatus Stacks_build(TraceDb* db, StacksSource src, const StacksOpts* opts, StackTree** out,
                       DcuError* err) {
    *out = NULL;
    Builder b;
    memset(&b, 0, sizeof(b));
    b.sym_ix = Intern_new();
    map_init(&b.child);
    b.mode = opts ? opts->mode : STACKS_TREE;
    b.fold = opts ? opts->fold : 0;
    DcuStatus s = DCU_OK;
    if (opts && opts->filter && *opts->filter) {
        s = Filter_new(opts->filter, &b.filter, err);
        if (s != DCU_OK) {
            builder_done(&b);
            return s;
        }
        b.neg = Filter_isNegated(b.filter);
    }
    int64_t attached = 0;
    int have = Stacks_available(db, src);
    if (have) {
        s = src == STACKS_SRC_RANGES ? range_samples(&b, db, err)
                                     : stack_samples(&b, db, &attached, err);
    }
    if (s != DCU_OK) {
        builder_done(&b);
        return s;
    }
    StackTree* t = xcalloc(1, sizeof(*t));
    layout(&b, t);
    t->total_ns = b.total;
    t->total_calls = b.total_calls;
    t->samples = b.samples;
    t->strings = b.strings;
    b.strings = NULL;
    for (int i = 0; i < t->n; i++) {
        t->nodes[i].name = t->strings + (size_t)(uintptr_t)t->nodes[i].name;
    }
    if (!have) {
        t->note = xstrdup(src == STACKS_SRC_RANGES ? "no roctx/hiptx ranges in this trace"
                                                   : "no call stacks in this trace");
    } else {
        t->note = src == STACKS_SRC_RANGES ? range_note(db, &b) : stack_note(db, &b, attached);
    }
    builder_done(&b);
    *out = t;
    return DCU_OK;
}

/* ---- result sets -------------------------------------------------------------------------- */

enum { R_ID, R_PARENT, R_DEPTH, R_KIND, R_NAME, R_PATH, R_SELF, R_INCL, R_SPCT, R_IPCT, R_CALLS };
static const RsColumn tree_cols[] = {
    {"id", "Id", CT_INT},          {"parent", "Parent", CT_INT}, {"depth", "Depth", CT_INT},
    {"kind", "Kind", CT_TEXT},     {"name", "Name", CT_TEXT},    {"path", "Call path", CT_TEXT},
    {"self_ns", "Self", CT_NS},    {"incl_ns", "Incl", CT_NS},   {"self_pct", "%Self", CT_PCT},
    {"incl_pct", "%Incl", CT_PCT}, {"calls", "Calls", CT_INT},
};

static const char* const kind_names[] = {"frame", "kernel", "range", "pseudo"};

#define PATH_HEAD 8  /* frames kept at the start of a long path */
#define PATH_TAIL 24 /* ... and at its end */
#define PATH_BYTES 16384

/* names from the root to node i, ';'-joined; the middle of long paths elided */
static char* node_path(const StackTree* t, int i, int** scratch, int* cap) {
    int d = t->nodes[i].depth + 1;
    if (*cap < d) {
        *cap = d;
        *scratch = xrealloc(*scratch, sizeof(int) * (size_t)d);
    }
    int k = d;
    for (int j = i; j >= 0 && k > 0; j = t->nodes[j].parent) {
        (*scratch)[--k] = j;
    }
    size_t cap_b = 256, len = 0;
    char* out = xmalloc(cap_b);
    out[0] = '\0';
    for (int j = k; j < d; j++) {
        if (d - k > PATH_HEAD + PATH_TAIL && j == k + PATH_HEAD) {
            char mark[64];
            int skipped = d - k - PATH_HEAD - PATH_TAIL;
            snprintf(mark, sizeof(mark), ";[%d frames]", skipped);
            xgrow((void**)&out, &cap_b, len + strlen(mark) + 1);
            memcpy(out + len, mark, strlen(mark) + 1);
            len += strlen(mark);
            j += skipped - 1;
            continue;
        }
        const char* nm = t->nodes[(*scratch)[j]].name;
        size_t nl = strlen(nm);
        if (nl > PATH_BYTES / 4) {
            nl = PATH_BYTES / 4;
        }
        xgrow((void**)&out, &cap_b, len + nl + 2);
        if (j > k) {
            out[len++] = ';';
        }
        memcpy(out + len, nm, nl);
        len += nl;
        out[len] = '\0';
    }
    return out;
}

ResultSet* Stacks_toResultSet(const StackTree* t, StacksSource src) {
    ResultSet* rs = ResultSet_new(Stacks_sourceName(src), tree_cols,
                                  (int)(sizeof(tree_cols) / sizeof(tree_cols[0])));
    int* scratch = NULL;
    int cap = 0;
    for (int i = 0; i < t->n; i++) {
        const StackNode* nd = &t->nodes[i];
        int r = ResultSet_addRow(rs);
        ResultSet_setInt(rs, r, R_ID, i);
        if (nd->parent >= 0) {
            ResultSet_setInt(rs, r, R_PARENT, nd->parent);
        }
        ResultSet_setInt(rs, r, R_DEPTH, nd->depth);
        ResultSet_setText(rs, r, R_KIND, kind_names[nd->kind & 3]);
        ResultSet_setText(rs, r, R_NAME, nd->name);
        char* p = node_path(t, i, &scratch, &cap);
        ResultSet_cell(rs, r, R_PATH)->s = p;
        ResultSet_cell(rs, r, R_PATH)->null = 0;
        ResultSet_setInt(rs, r, R_SELF, nd->self_ns);
        ResultSet_setInt(rs, r, R_INCL, nd->incl_ns);
        ResultSet_setReal(rs, r, R_SPCT, nd->self_pct);
        ResultSet_setReal(rs, r, R_IPCT, nd->incl_pct);
        ResultSet_setInt(rs, r, R_CALLS, nd->calls);
    }
    free(scratch);
    if (t->note) {
        rs->footer = xstrdup(t->note);
    }
    return rs;
}

DcuStatus Stacks_query(TraceDb* db, StacksSource src, const StacksOpts* opts, const char* sort,
                       ResultSet** out, DcuError* err) {
    *out = NULL;
    StackTree* t = NULL;
    DcuStatus s = Stacks_build(db, src, opts, &t, err);
    if (s != DCU_OK) {
        return s;
    }
    ResultSet* rs = Stacks_toResultSet(t, src);
    StackTree_delete(t);
    if (sort && *sort && (s = Query_sort(rs, sort, err)) != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}

/* ---- top paths of one kernel ------------------------------------------------------------------
 */

enum { KP_PATH, KP_CALLS, KP_TIME, KP_PCT };
static const RsColumn kpath_cols[] = {
    {"path", "Call path", CT_TEXT},
    {"calls", "Calls", CT_INT},
    {"time_ns", "Time", CT_NS},
    {"pct", "%Kernel", CT_PCT},
};

typedef struct KPath_ {
    char* path;
    int64_t calls, time;
} KPath;

static int cmp_kpath(const void* x, const void* y) {
    const KPath* a = x;
    const KPath* c = y;
    if (a->time != c->time) {
        return a->time > c->time ? -1 : 1;
    }
    if (a->calls != c->calls) {
        return a->calls > c->calls ? -1 : 1;
    }
    return strcmp(a->path, c->path);
}

/* The distinct paths of one kernel, summed: kp[n] (owned texts); seen maps a text to its
 * index + 1. */
typedef struct KPaths_ {
    KPath* kp;
    int n, cap;
    Intern* seen;
    int64_t total; /* time of every row, ns */
} KPaths;

/* The statement of one kernel's dispatches (ranges) or stack samples (stacks), per node id. */
static DcuStatus kpath_query(TraceDb* db, StacksSource src, const char* kernel_name,
                             sqlite3_stmt** st, DcuError* err) {
    DcuStatus s = TraceDb_prepare(
        db,
        src == STACKS_SRC_RANGES
            ? "SELECT dr.range_id, count(*), CAST(total(d.dur_ns) AS INTEGER)"
              " FROM dispatch d JOIN used_file u ON u.file_id = d.file_id"
              "   AND u.layer = 'kernel' JOIN kernel k ON k.id = d.kernel_id"
              " LEFT JOIN dispatch_range dr ON dr.dispatch_id = d.id"
              " WHERE k.name = ?1 GROUP BY 1"
            : "SELECT ks.stack_id, CAST(sum(CAST(ks.calls AS REAL)) AS INTEGER), CAST(sum(CAST(ks.time_ns AS REAL)) AS INTEGER) FROM kernel_stack ks"
              " LEFT JOIN kernel k ON k.id = ks.kernel_id"
              " WHERE coalesce(k.name, ks.kernel_name) = ?1 AND (ks.kernel_id IS NOT NULL"
              "   OR ks.form <> 'folded') AND (?2 OR ks.form <> 'folded') GROUP BY 1",
        st, err);
    if (s == DCU_OK) {
        sqlite3_bind_text(*st, 1, kernel_name, -1, SQLITE_TRANSIENT);
        if (src == STACKS_SRC_STACKS) {
            sqlite3_bind_int(*st, 2, only_folded(db));
        }
    }
    return s;
}

/* The path of node id (0: none) as text, frames joined by ';' (owned; *len its length); fold
 * leaves library frames out, all but the entry point when every frame is a library's. */
static char* kpath_text(Builder* b, StacksSource src, int64_t id, int fold, size_t* len) {
    int n = id ? chain(b, id, 1) : 0;
    int* p = b->path;
    if (fold && n > 0) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (!b->syms[p[i]].lib) {
                p[m++] = p[i];
            }
        }
        if (m == 0) {
            m = 1; /* all library: the entry point stays (p[0] untouched) */
        }
        n = m;
    }
    size_t cap = 64;
    char* txt = xmalloc(cap);
    txt[0] = '\0';
    *len = 0;
    if (n == 0) {
        const char* none = src == STACKS_SRC_RANGES ? "[outside any range]" : "[empty stack]";
        xgrow((void**)&txt, &cap, strlen(none) + 1);
        strcpy(txt, none);
        *len = strlen(none);
    }
    for (int i = 0; i < n; i++) {
        const char* nm = sym_name(b, p[i]);
        size_t nl = strlen(nm);
        xgrow((void**)&txt, &cap, *len + nl + 2);
        if (i) {
            txt[(*len)++] = ';';
        }
        memcpy(txt + *len, nm, nl + 1);
        *len += nl;
    }
    return txt;
}

/* Adds calls and time to the path txt (owned: kept or freed). */
static void kpath_add(KPaths* k, char* txt, size_t len, int64_t calls, int64_t time) {
    k->total += time;
    int64_t at = Intern_get(k->seen, txt, len);
    if (at) {
        k->kp[at - 1].calls += calls;
        k->kp[at - 1].time += time;
        free(txt);
        return;
    }
    if (k->n == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 32;
        k->kp = xrealloc(k->kp, sizeof(KPath) * (size_t)k->cap);
    }
    k->kp[k->n].path = txt;
    k->kp[k->n].calls = calls;
    k->kp[k->n].time = time;
    k->n++;
    Intern_put(k->seen, txt, len, k->n);
}

/* The max heaviest paths as rows of rs (all when max <= 0; the rest counted in the footer);
 * frees every path. */
static void kpath_rows(KPaths* k, int max, int keep, ResultSet* rs) {
    if (k->n > 1) {
        qsort(k->kp, (size_t)k->n, sizeof(KPath), cmp_kpath);
    }
    for (int i = 0; i < k->n; i++) {
        if (keep && (max <= 0 || i < max)) {
            int r = ResultSet_addRow(rs);
            ResultSet_setText(rs, r, KP_PATH, k->kp[i].path);
            ResultSet_setInt(rs, r, KP_CALLS, k->kp[i].calls);
            ResultSet_setInt(rs, r, KP_TIME, k->kp[i].time);
            ResultSet_setReal(rs, r, KP_PCT,
                              k->total > 0 ? 100.0 * (double)k->kp[i].time / (double)k->total
                                           : 0);
        }
        free(k->kp[i].path);
    }
    if (keep && max > 0 && k->n > max) {
        rs->footer = xasprintf("%d more paths", k->n - max);
    }
    free(k->kp);
}

DcuStatus Stacks_kernelPaths(TraceDb* db, StacksSource src, const char* kernel_name, int fold,
                             int max, ResultSet** out, DcuError* err) {
    *out = NULL;
    Builder b;
    memset(&b, 0, sizeof(b));
    b.sym_ix = Intern_new();
    map_init(&b.child);
    DcuStatus s = DCU_OK;
    ResultSet* rs = ResultSet_new("kernel_paths", kpath_cols,
                                  (int)(sizeof(kpath_cols) / sizeof(kpath_cols[0])));
    if (!Stacks_available(db, src)) {
        builder_done(&b);
        *out = rs;
        return DCU_OK;
    }
    s = src == STACKS_SRC_RANGES
            ? load_nodes(&b, db, "SELECT coalesce(max(id), 0) FROM range_span",
                         "SELECT id, coalesce(parent_id, 0), name FROM range_span", SNODE_RANGE, 0,
                         err)
            : load_nodes(&b, db, "SELECT coalesce(max(id), 0) FROM stack_node",
                         "SELECT n.id, coalesce(n.parent, 0), f.name, f.lib"
                         " FROM stack_node n JOIN frame f ON f.id = n.frame_id",
                         SNODE_FRAME, 1, err);
    sqlite3_stmt* st = NULL;
    if (s == DCU_OK) {
        s = kpath_query(db, src, kernel_name, &st, err);
    }
    KPaths k = {.seen = Intern_new()};
    if (s == DCU_OK) {
        int rc;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            int64_t id =
                sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
            size_t len;
            char* txt = kpath_text(&b, src, id, fold, &len);
            kpath_add(&k, txt, len, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
        }
        if (rc != SQLITE_DONE) {
            s = sql_fail(db, err);
        }
    }
    sqlite3_finalize(st);
    kpath_rows(&k, max, s == DCU_OK, rs);
    Intern_delete(k.seen);
    builder_done(&b);
    if (s != DCU_OK) {
        ResultSet_delete(rs);
        return s;
    }
    *out = rs;
    return DCU_OK;
}
