/* ranks_table.c - the ranks as tables: one row per rank (with percentile rows for large
 * jobs) and the rank x step matrix of compute and collective time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/ranks.h"
#include "dcutop/xalloc.h"

static const RsColumn rank_cols[] = {
    {"rank", "Rank", CT_TEXT},           {"run", "Run", CT_TEXT},
    {"source", "From", CT_TEXT},         {"gpu", "GPU", CT_INT},
    {"pid", "PID", CT_INT},              {"dispatches", "Dispatches", CT_INT},
    {"kernel_ns", "Kernel", CT_NS},      {"compute_ns", "Compute", CT_NS},
    {"comm_ns", "Comm", CT_NS},          {"comm_pct", "%Comm", CT_PCT},
    {"exposed_ns", "Exposed", CT_NS},    {"idle_ns", "Idle", CT_NS},
    {"steps", "Steps", CT_INT},          {"step_mean_ns", "Step mean", CT_NS},
    {"step_max_ns", "Step max", CT_NS},  {"critical_pct", "%Critical", CT_PCT},
    {"run_id", "Id", CT_INT},
};
enum { C_RANK, C_RUN, C_SRC, C_GPU, C_PID, C_DISP, C_KERN, C_COMP, C_COMM, C_COMMPCT,
       C_EXP, C_IDLE, C_STEPS, C_SMEAN, C_SMAX, C_CRIT, C_ID, C_N };

/* The figures of one rank as doubles, in column order (NaN-free; text columns 0). */
static void figures(const RankRow* r, double* f) {
    memset(f, 0, sizeof(double) * C_N);
    f[C_GPU] = r->gpu;
    f[C_PID] = (double)r->pid;
    f[C_DISP] = (double)r->dispatches;
    f[C_KERN] = (double)r->kernel_ns;
    f[C_COMP] = (double)r->compute_ns;
    f[C_COMM] = (double)r->comm_ns;
    f[C_COMMPCT] = r->kernel_ns > 0 ? 100.0 * (double)r->comm_ns / (double)r->kernel_ns : 0;
    f[C_EXP] = (double)r->exposed_comm_ns;
    f[C_IDLE] = (double)r->idle_ns;
    f[C_STEPS] = r->nsteps;
    int64_t sum = 0, mx = 0;
    for (int s = 0; s < r->nsteps; s++) {
        sum += r->step_ns[s];
        mx = r->step_ns[s] > mx ? r->step_ns[s] : mx;
    }
    f[C_SMEAN] = r->nsteps > 0 ? (double)sum / r->nsteps : 0;
    f[C_SMAX] = (double)mx;
    f[C_CRIT] = r->critical_pct;
    f[C_ID] = (double)r->run_id;
}

static void put(ResultSet* rs, int row, int c, double v) {
    if (rank_cols[c].type == CT_PCT || rank_cols[c].type == CT_REAL) {
        ResultSet_setReal(rs, row, c, v);
    } else {
        ResultSet_setInt(rs, row, c, (int64_t)(v + (v >= 0 ? 0.5 : -0.5)));
    }
}

static int cmp_dbl(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n). */
static double pct_of(const double* v, int n, double p) {
    int k = (int)(p / 100.0 * n + 0.999999) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static void percentile_rows(const Ranks* j, ResultSet* rs) {
    static const char* const names[] = {"min", "median", "p90", "max"};
    static const double ps[] = {0, 50, 90, 100};
    double* col = xmalloc(sizeof(double) * (size_t)j->n);
    double* all = xmalloc(sizeof(double) * (size_t)j->n * C_N);
    for (int i = 0; i < j->n; i++) {
        figures(&j->rows[i], all + (size_t)i * C_N);
    }
    for (int p = 0; p < 4; p++) {
        int row = ResultSet_addRow(rs);
        ResultSet_setText(rs, row, C_RANK, names[p]);
        ResultSet_setText(rs, row, C_RUN, "(all ranks)");
        for (int c = C_DISP; c <= C_CRIT; c++) {
            for (int i = 0; i < j->n; i++) {
                col[i] = all[(size_t)i * C_N + c];
            }
            qsort(col, (size_t)j->n, sizeof(double), cmp_dbl);
            put(rs, row, c, p == 0 ? col[0] : pct_of(col, j->n, ps[p]));
        }
    }
    rs->pinned = 4;
    free(col);
    free(all);
}

ResultSet* Ranks_table(const Ranks* this) {
    ResultSet* rs = ResultSet_new("ranks", rank_cols, C_N);
    if (this->n > RANKS_PERCENTILES_ABOVE) {
        percentile_rows(this, rs);
    }
    for (int i = 0; i < this->n; i++) {
        const RankRow* r = &this->rows[i];
        int row = ResultSet_addRow(rs);
        char buf[32];
        snprintf(buf, sizeof(buf), "%d", r->rank);
        ResultSet_setText(rs, row, C_RANK, r->rank >= 0 ? buf : "?");
        ResultSet_setText(rs, row, C_RUN, r->label);
        ResultSet_setText(rs, row, C_SRC, Ranks_sourceName(this->source));
        double f[C_N];
        figures(r, f);
        for (int c = C_GPU; c < C_N; c++) {
            put(rs, row, c, f[c]);
        }
        if (r->gpu < 0) {
            ResultSet_cell(rs, row, C_GPU)->null = 1;
        }
        if (r->pid < 0) {
            ResultSet_cell(rs, row, C_PID)->null = 1;
        }
        if (!r->idle_known) {
            ResultSet_cell(rs, row, C_IDLE)->null = 1;
        }
    }
    char* v = Ranks_verdictText(this);
    rs->footer = v;
    return rs;
}

ResultSet* Ranks_matrix(const Ranks* this, int step_rows) {
    int ns = 0;
    for (int i = 0; i < this->n; i++) {
        ns = this->rows[i].nsteps > ns ? this->rows[i].nsteps : ns;
    }
    ResultSet* rs = ResultSet_newDynamic("rank_steps", ns + 2);
    ResultSet_setColumn(rs, 0, "rank", CT_TEXT);
    ResultSet_setColumn(rs, 1, "kind", CT_TEXT);
    for (int s = 0; s < ns; s++) {
        char key[24];
        snprintf(key, sizeof(key), "s%d", s + 1);
        ResultSet_setColumn(rs, s + 2, key, CT_NS);
    }
    for (int i = 0; i < this->n; i++) {
        const RankRow* r = &this->rows[i];
        for (int kind = step_rows ? 0 : 1; kind < 4; kind++) {
            if (kind == 3 && !this->have_waits) {
                continue; /* no rank-wait known */
            }
            int row = ResultSet_addRow(rs);
            char buf[32];
            snprintf(buf, sizeof(buf), "%d", r->rank);
            ResultSet_setText(rs, row, 0, r->rank >= 0 ? buf : r->label);
            static const char* const kinds[] = {"step", "compute", "comm", "wait"};
            ResultSet_setText(rs, row, 1, kinds[kind]);
            const int64_t* v = kind == 0   ? r->step_ns
                               : kind == 1 ? r->step_compute_ns
                               : kind == 2 ? r->step_comm_ns
                                           : r->step_wait_ns;
            for (int s = 0; s < r->nsteps; s++) {
                ResultSet_setInt(rs, row, s + 2, v[s]);
            }
        }
    }
    return rs;
}

static const RsColumn excess_cols[] = {
    {"rank", "Rank", CT_TEXT},          {"kernel", "Kernel", CT_TEXT},
    {"short_name", "Short name", CT_TEXT}, {"excess_ns", "Excess/step", CT_NS},
    {"straggler_ns", "Straggler/step", CT_NS}, {"others_ns", "Others/step", CT_NS},
    {"calls_excess", "Dispatches+/step", CT_REAL}, {"pct", "%Excess", CT_PCT},
};

ResultSet* Ranks_excessTable(const Ranks* this) {
    ResultSet* rs =
        ResultSet_new("rank_excess", excess_cols, (int)(sizeof(excess_cols) / sizeof(excess_cols[0])));
    const RankVerdict* v = &this->verdict;
    for (int i = 0; v->found && i < v->nkernels; i++) {
        const RankExcess* k = &v->kernels[i];
        int row = ResultSet_addRow(rs);
        const RankRow* r = &this->rows[v->straggler];
        char buf[32];
        snprintf(buf, sizeof(buf), "%d", r->rank);
        ResultSet_setText(rs, row, 0, r->rank >= 0 ? buf : r->label);
        ResultSet_setText(rs, row, 1, k->name);
        ResultSet_setText(rs, row, 2, k->short_name);
        ResultSet_setInt(rs, row, 3, (int64_t)(k->excess_ns + 0.5));
        ResultSet_setInt(rs, row, 4, (int64_t)(k->straggler_ns + 0.5));
        ResultSet_setInt(rs, row, 5, (int64_t)(k->others_ns + 0.5));
        ResultSet_setReal(rs, row, 6, k->calls_excess);
        ResultSet_setReal(rs, row, 7, v->excess_ns > 0 ? 100.0 * k->excess_ns / v->excess_ns : 0);
    }
    return rs;
}
