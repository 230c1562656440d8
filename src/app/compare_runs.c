/* compare_runs.c - loading the runs of a comparison, one database per path. */
#include "compare_runs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/abba_evidence.h"
#include "dcutop/loader.h"
#include "dcutop/runs.h"
#include "dcutop/variab.h"
#include "dcutop/xalloc.h"

DcuStatus CompareRuns_add(CompareRuns* this, int side, const char* path, RuleSet* rules,
                          int strict, int64_t memory, TraceDb** db, DcuError* err) {
    *db = NULL;
    int i = this->n[side];
    if (i == COMPARE_MAX_RUNS) {
        return Error_set(err, DCU_ERR_USAGE, "at most %d runs a side", COMPARE_MAX_RUNS);
    }
    char* real = realpath(path, NULL);
    for (int j = 0; real && j < i; j++) {
        if (this->real[side][j] && strcmp(this->real[side][j], real) == 0) {
            free(real);
            return Error_set(err, DCU_ERR_USAGE, "'%s' is given twice as a run of the %s: a run "
                             "repeated measures no noise (its drift or repeats would be exactly "
                             "0, and every verdict would look trusted); give separate runs",
                             path, side ? "candidate (B)" : "baseline (A)");
        }
    }
    DcuStatus s = TraceDb_open(db, memory, err);
    if (s != DCU_OK) {
        free(real);
        return s;
    }
    this->db[side][i] = *db;
    this->side[side][i] = NULL;
    this->real[side][i] = real;
    this->n[side]++;
    LoadOptions lo = {0};
    lo.strict = strict;
    Loader* ld = Loader_new(*db, &lo);
    s = Loader_addPath(ld, path, err);
    if (s == DCU_OK) {
        s = Loader_run(ld, err);
    }
    Loader_delete(ld);
    if (s == DCU_OK) {
        s = RuleSet_apply(rules, *db, err);
    }
    if (s == DCU_OK) { /* the categories say which kernels are collectives */
        s = Variab_leaveOutCollectives(*db, err);
    }
    /* a side that holds several runs of one program compares one of them, never their sum
     * (runs.h Runs_choice; the ranks of a job stay together) */
    if (s == DCU_OK) {
        s = Runs_applyDefault(*db, err);
    }
    if (s == DCU_OK) {
        s = DiffSide_fromDb(*db, path, &this->side[side][i], err);
    }
    return s;
}

int CompareRuns_isOneRun(const CompareRuns* this, int side, int i) {
    /* over every run loaded, not the scope (which shows one run of several): the runs that
     * give kernel times, a PMC run only where no other run does (used_file's rule) */
    return TraceDb_scalarInt(this->db[side][i],
                             "SELECT count(DISTINCT f.dir || '|' || f.run_tag) FROM"
                             " source_file f JOIN run r ON r.id = f.run_id WHERE f.id IN"
                             " (SELECT file_id FROM source_layer WHERE used AND layer = 'kernel')"
                             " AND (r.mode <> 'pmc' OR NOT EXISTS (SELECT 1 FROM run r2"
                             "  WHERE r2.mode <> 'pmc' AND ',' || r2.layers || ',' LIKE"
                             "  '%,kernel,%'))") == 1;
}

/* distributedInfo of run i of side: the rank (-1 when not said) and the world size */
static int64_t dist_of(const CompareRuns* this, int side, int i, int64_t* world) {
    static const char* in_used = " FROM source_file WHERE id IN"
                                 " (SELECT file_id FROM used_file WHERE layer = 'kernel')";
    char sql[256];
    snprintf(sql, sizeof(sql), "SELECT coalesce(max(dist_world), 0)%s", in_used);
    *world = TraceDb_scalarInt(this->db[side][i], sql);
    snprintf(sql, sizeof(sql), "SELECT coalesce(min(dist_rank), -1)%s", in_used);
    return TraceDb_scalarInt(this->db[side][i], sql);
}

int CompareRuns_areRanks(const CompareRuns* this) {
    if (this->n[0] != 1 || this->n[1] != 1) {
        return 0;
    }
    int64_t w0 = 0, w1 = 0;
    int64_t r0 = dist_of(this, 0, 0, &w0), r1 = dist_of(this, 1, 0, &w1);
    return r0 >= 0 && r1 >= 0 && r0 != r1 && w0 == w1 && w0 >= 2;
}

int64_t CompareRuns_nextLabel(TraceDb* db, char** p, char** label) {
    char* l = *p;
    char* end = l + strlen(l);
    int64_t id = 0;
    for (;;) { /* the whole rest, then one item fewer at a time */
        char keep = *end;
        *end = '\0';
        id = Runs_byLabel(db, l);
        *end = keep;
        if (id) {
            break;
        }
        char* prev = end;
        while (prev > l && *--prev != ',') {
        }
        if (prev == l) {
            break;
        }
        end = prev;
    }
    if (!id) {
        end = l + strcspn(l, ",");
    }
    *p = *end ? end + 1 : end;
    *end = '\0';
    *label = l;
    return id;
}

DcuStatus CompareRuns_evidence(const CompareRuns* this, TraceDb* marks, const int64_t* ids[2],
                               AbbaEvidence** out, DcuError* err) {
    static const int side_of[4] = {0, 1, 1, 0}, idx_of[4] = {0, 0, 1, 1};
    AbbaRunFacts f[4];
    memset(f, 0, sizeof(f));
    DcuStatus s = DCU_OK;
    int64_t scope = marks ? Runs_scopeRun(marks) : 0;
    for (int r = 0; r < 4 && s == DCU_OK; r++) {
        int sd = side_of[r], i = idx_of[r];
        TraceDb* db = this->db[sd][i];
        if (!db && marks && ids) { /* a marked run of one database: read it alone */
            db = marks;
            s = Runs_setScope(marks, &ids[sd][i], 1, err);
        }
        if (s == DCU_OK && db) {
            s = AbbaFacts_fromDb(db, &f[r], err);
        }
    }
    if (marks) {
        DcuError e2;
        Runs_setScope(marks, scope ? &scope : NULL, scope ? 1 : 0, &e2);
    }
    if (s != DCU_OK) {
        for (int r = 0; r < 4; r++) {
            AbbaFacts_done(&f[r]);
        }
        return s;
    }
    *out = AbbaEvidence_judge(f);
    return DCU_OK;
}

void CompareRuns_done(CompareRuns* this) {
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < this->n[s]; i++) {
            DiffSide_delete(this->side[s][i]);
            TraceDb_delete(this->db[s][i]);
            free(this->real[s][i]);
            this->real[s][i] = NULL;
        }
        this->n[s] = 0;
    }
}
