/* report_diff.h - the comparison reports (--diff, --abba) as text, CSV blocks or one JSON
 * document. Read a Diff / Abba (diff.h); never touch the UI. */
#ifndef DCUTOP_REPORT_DIFF_H
#define DCUTOP_REPORT_DIFF_H

#include <stdio.h>

#include "dcutop/diff.h"
#include "dcutop/report.h"

typedef struct DiffReportOpts_ {
    OutFormat format;
    int width;          /* text: line width */
    int top;            /* text: kernel rows shown (0 = all) */
    const char* filter; /* PCRE2 over kernel / category names (NULL: all) */
    const char* sort;   /* a column key of the table (NULL: largest |delta| first) */
    const char* a_title, *b_title; /* the paths of each side */
} DiffReportOpts;

/* gate: the CI gate's line (Diff_gate), written last; NULL when no gate was asked for.
 * gate_result: GATE_PASSED, GATE_FAILED or GATE_UNTRUSTED (the result column of CSV/JSON). */
DcuStatus ReportDiff_write(const Diff* d, const DiffReportOpts* o, const char* gate,
                           int gate_result, FILE* out, DcuError* err);
/* The A-B-B-A table with the kernel rows filtered by a PCRE2 over names (NULL: all) and
 * sorted by a column key (NULL: largest |effect| first); the totals stay on top. Times in ms,
 * or with ns in ns (--export). *out owned. */
DcuStatus ReportAbba_table(const Abba* a, const char* filter, const char* sort, int ns,
                           ResultSet** out, DcuError* err);
/* gate, gate_result: as ReportDiff_write's (Abba_gate). */
DcuStatus ReportAbba_write(const Abba* a, const char* const titles[4], const DiffReportOpts* o,
                           const char* gate, int gate_result, FILE* out, DcuError* err);

#endif
