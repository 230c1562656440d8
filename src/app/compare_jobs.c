/* compare_jobs.c - two multi-rank jobs compared rank by rank (see compare_jobs.h). */
#include "compare_jobs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/ranks.h"
#include "dcutop/runs.h"
#include "dcutop/xalloc.h"

int CompareJobs_applies(const CompareRuns* c) {
    if (c->n[0] != 1 || c->n[1] != 1) {
        return 0;
    }
    for (int s = 0; s < 2; s++) {
        if (!c->db[s][0] || Runs_count(c->db[s][0]) < 2 || !Ranks_isJobDb(c->db[s][0])) {
            return 0;
        }
    }
    return 1;
}

/* One run of db read as a comparison side, with that run alone in scope (put back after). */
static DcuStatus run_side(TraceDb* db, int64_t id, const char* label, DiffSide** out,
                          DcuError* err) {
    int64_t scope = Runs_scopeRun(db);
    DcuStatus st = Runs_setScope(db, &id, 1, err);
    if (st == DCU_OK) {
        st = DiffSide_fromDb(db, label, out, err);
    }
    DcuError e2;
    Runs_setScope(db, scope ? &scope : NULL, scope ? 1 : 0, &e2);
    return st;
}

/* The critical (slowest) rank: the straggler when the Ranks verdict names one, else the rank
 * with the most compute (on a tie, the larger share of the job's critical path). */
static int critical(const Ranks* r) {
    if (r->verdict.found) {
        return r->verdict.straggler;
    }
    int best = 0;
    for (int i = 1; i < r->n; i++) {
        const RankRow* x = &r->rows[i];
        const RankRow* b = &r->rows[best];
        if (x->compute_ns > b->compute_ns ||
            (x->compute_ns == b->compute_ns && x->critical_pct > b->critical_pct)) {
            best = i;
        }
    }
    return best;
}

static double step_ms(const RankRow* x) {
    if (x->nsteps <= 0) {
        return NAN;
    }
    double s = 0;
    for (int i = 0; i < x->nsteps; i++) {
        s += (double)x->step_ns[i];
    }
    return s / x->nsteps / 1e6;
}

static void put_ms(FILE* f, double ms) {
    if (isnan(ms)) {
        fprintf(f, " %12s", "-");
    } else {
        fprintf(f, " %12.3f", ms);
    }
}

/* One rank of A against the same rank of B: its line of the table. */
static DcuStatus rank_line(const CompareRuns* c, const RankRow* a, const RankRow* b,
                           DiffMatch match, FILE* f, DcuError* err) {
    DiffSide *sa = NULL, *sb = NULL;
    Diff* d = NULL;
    DcuStatus st = run_side(c->db[0][0], a->run_id, a->label, &sa, err);
    if (st == DCU_OK) {
        st = run_side(c->db[1][0], b->run_id, b->label, &sb, err);
    }
    if (st == DCU_OK) {
        const DiffSide* const as[1] = {sa};
        const DiffSide* const bs[1] = {sb};
        st = Diff_compute(as, 1, bs, 1, match, &d, err);
    }
    if (st == DCU_OK) {
        fprintf(f, "  %4d", a->rank);
        put_ms(f, (double)a->kernel_ns / 1e6);
        put_ms(f, (double)b->kernel_ns / 1e6);
        if (isnan(d->total.delta_pct)) {
            fprintf(f, " %8s", "-");
        } else {
            fprintf(f, " %+7.2f%%", d->total.delta_pct);
        }
        put_ms(f, step_ms(a));
        put_ms(f, step_ms(b));
        fprintf(f, "  %s\n", Diff_noiseName(d->total.noise));
    }
    Diff_delete(d);
    DiffSide_delete(sa);
    DiffSide_delete(sb);
    return st;
}

static const RankRow* by_rank(const Ranks* r, int rank) {
    for (int i = 0; i < r->n; i++) {
        if (r->rows[i].rank == rank) {
            return &r->rows[i];
        }
    }
    return NULL;
}

static DcuStatus write_ranks(const CompareRuns* c, Ranks* const rk[2], DiffMatch match,
                             FILE* f, DcuError* err) {
    fprintf(f, "Jobs: A has %d ranks, B has %d; ranks matched by number (%s / %s)\n", rk[0]->n,
            rk[1]->n, Ranks_sourceName(rk[0]->source), Ranks_sourceName(rk[1]->source));
    fprintf(f, "  %4s %12s %12s %8s %12s %12s  %s\n", "Rank", "A kernel ms", "B kernel ms",
            "Delta%", "A step ms", "B step ms", "Noise");
    DcuStatus st = DCU_OK;
    int unmatched = 0;
    for (int i = 0; i < rk[0]->n && st == DCU_OK; i++) {
        const RankRow* a = &rk[0]->rows[i];
        const RankRow* b = a->rank >= 0 ? by_rank(rk[1], a->rank) : NULL;
        if (!b) {
            unmatched++;
            continue;
        }
        st = rank_line(c, a, b, match, f, err);
    }
    for (int i = 0; i < rk[1]->n; i++) {
        unmatched += rk[1]->rows[i].rank < 0 || !by_rank(rk[0], rk[1]->rows[i].rank);
    }
    if (unmatched) {
        fprintf(f, "  %d rank(s) without a partner on the other side: not compared\n", unmatched);
    }
    return st;
}

DcuStatus CompareJobs_build(const CompareRuns* c, DiffMatch match, CompareJobs* out,
                            DcuError* err) {
    memset(out, 0, sizeof(*out));
    Ranks* rk[2] = {NULL, NULL};
    DcuStatus st = Ranks_new(c->db[0][0], &rk[0], err);
    if (st == DCU_OK) {
        st = Ranks_new(c->db[1][0], &rk[1], err);
    }
    if (st == DCU_OK && (rk[0]->n == 0 || rk[1]->n == 0)) {
        st = Error_set(err, DCU_ERR_EMPTY, "a job without timed kernel dispatches");
    }
    char* buf = NULL;
    size_t len = 0;
    FILE* f = st == DCU_OK ? open_memstream(&buf, &len) : NULL;
    if (st == DCU_OK && !f) {
        st = Error_set(err, DCU_ERR_NOMEM, "out of memory");
    }
    if (st == DCU_OK) {
        st = write_ranks(c, rk, match, f, err);
    }
    for (int s = 0; s < 2 && st == DCU_OK; s++) {
        const RankRow* x = &rk[s]->rows[critical(rk[s])];
        out->crit_rank[s] = x->rank;
        char label[160];
        snprintf(label, sizeof(label), "%s (rank %d)", x->label, x->rank);
        st = run_side(c->db[s][0], x->run_id, label, &out->crit[s], err);
    }
    if (st == DCU_OK) {
        fprintf(f, "  Critical (slowest) rank: A rank %d, B rank %d. The job takes its slowest "
                   "rank's time: the comparison below is of these two ranks.\n\n",
                out->crit_rank[0], out->crit_rank[1]);
    }
    if (f) {
        fclose(f);
    }
    out->text = buf;
    Ranks_delete(rk[0]);
    Ranks_delete(rk[1]);
    if (st != DCU_OK) {
        CompareJobs_done(out);
    }
    return st;
}

void CompareJobs_done(CompareJobs* this) {
    DiffSide_delete(this->crit[0]);
    DiffSide_delete(this->crit[1]);
    free(this->text);
    memset(this, 0, sizeof(*this));
}
