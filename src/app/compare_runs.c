/* compare_runs.c - loading the runs of a comparison, one database per path. */
#include "compare_runs.h"

#include "dcutop/loader.h"

DcuStatus CompareRuns_add(CompareRuns* this, int side, const char* path, RuleSet* rules,
                          int strict, int64_t memory, TraceDb** db, DcuError* err) {
    *db = NULL;
    int i = this->n[side];
    if (i == COMPARE_MAX_RUNS) {
        return Error_set(err, DCU_ERR_USAGE, "at most %d runs a side", COMPARE_MAX_RUNS);
    }
    DcuStatus s = TraceDb_open(db, memory, err);
    if (s != DCU_OK) {
        return s;
    }
    this->db[side][i] = *db;
    this->side[side][i] = NULL;
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
    if (s == DCU_OK) {
        s = DiffSide_fromDb(*db, path, &this->side[side][i], err);
    }
    return s;
}

int CompareRuns_isOneRun(const CompareRuns* this, int side, int i) {
    return TraceDb_scalarInt(this->db[side][i],
                             "SELECT count(DISTINCT f.dir || '|' || f.run_tag) FROM"
                             " source_file f WHERE f.id IN"
                             " (SELECT file_id FROM used_file WHERE layer = 'kernel')") == 1;
}

void CompareRuns_done(CompareRuns* this) {
    for (int s = 0; s < 2; s++) {
        for (int i = 0; i < this->n[s]; i++) {
            DiffSide_delete(this->side[s][i]);
            TraceDb_delete(this->db[s][i]);
        }
        this->n[s] = 0;
    }
}
