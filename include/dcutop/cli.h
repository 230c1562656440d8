/* cli.h - command-line parsing. Returns a status; only main() exits (htop CommandLine.c). */
#ifndef DCUTOP_CLI_H
#define DCUTOP_CLI_H

#include <stdint.h>

#include "dcutop/amdahl.h"
#include "dcutop/roi.h"
#include "dcutop/error.h"
#include "dcutop/peaks.h"
#include "dcutop/report.h"
#include "dcutop/user_sql.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_GATE = 3, EXIT_GATE_UNTRUSTED = 4 };

typedef enum { MODE_DEFAULT, MODE_REPORT, MODE_EXPORT, MODE_SAVE_DB, MODE_DUMP_RULES, MODE_HELP,
               MODE_VERSION, MODE_SQL, MODE_SUMMARIZE } Mode;

#define CLI_MAX_PATHS 64
#define CLI_MAX_WHATIF 32

#define CLI_MAX_COLL_REFS 16

typedef struct Cli_ {
    Mode mode;
    int save_db_too;         /* --save-db given together with another mode */
    const char* paths[CLI_MAX_PATHS];
    int npaths;
    OutFormat format;
    const char* export_view; /* --export VIEW */
    const char* sql;         /* --sql QUERY (or .schema, .ddl) */
    const char* view;        /* --view VIEW (report) */
    const char* filter;
    const char* sort;
    const char* output;      /* -o FILE */
    const char* save_db;     /* --save-db FILE */
    int force;               /* --force: -o and --save-db may replace an existing file */
    const char* rules;
    int gemm_like;
    int strict;
    int64_t max_event_size;  /* --max-event-size, bytes; 0: the loader's default */
    int64_t db_memory;       /* --db-memory, bytes (TraceDb_open); 0: all in memory */
    int threads;             /* --threads (CsvReader_setThreads); 0: the CPUs available */
    UserSqlBudget sql_budget; /* DCUTOP_SQL_BUDGET, else the defaults of user_sql.h */
    int quiet;
    int top;                 /* --top N (default 20: the text report's hotspot rows) */
    int top_set;             /* --top given: every export and report table keeps N rows */
    const char* category;    /* --category NAME, or --group as "GEMM" / "non-GEMM"; NULL: all */
    int width;
    WhatIf what_if[CLI_MAX_WHATIF];
    int n_what_if;
    int tree_mode;           /* --tree calls|callers|callees (a StacksMode) */
    int fold;                /* --fold: hide runtime/library frames in stacks */
    int amdahl_basis;        /* --amdahl-basis kernel|wall: 0 kernel (default), 1 wall */
    const char* gap_buckets; /* --gap-buckets LIST (gap_buckets.h) */
    const char* roi;         /* --roi START..END | auto-top | trim | iteration:N | steady */
    const char* roi_from;    /* --roi-from REGEX */
    const char* roi_to;      /* --roi-to REGEX */
    RoiSpec roi_spec;        /* parsed from the three above; kind ROI_OFF when none */
    /* the interactive view */
    int headless;            /* --headless: replay --keys, print screens as text */
    int size_w, size_h;      /* --size WxH (headless; default 100x30) */
    const char* keys;        /* --keys FILE */
    const char* timing;      /* --timing FILE: per-key microseconds (headless) */
    const char* theme;       /* --theme NAME|PATH */
    int no_color;            /* --no-color (NO_COLOR does the same) */
    int no_mouse;            /* --no-mouse: the terminal keeps its own mouse (selection) */
    /* comparison (issue 8) */
    int diff;                /* --diff A B: paths[0] baseline, paths[1] candidate, each a
                              * comma-separated list of repeats */
    int abba;                /* --abba A1 B1 B2 A2 */
    int match_short;         /* --match short: kernels matched by short name (fuzzy) */
    int match_full;          /* --match full: by full kernel name even where ops are known */
    int gate_on;             /* --fail-above given */
    double fail_above;       /* --fail-above PCT */
    const char* gate;        /* --gate CATEGORY|REGEX: the part the gate looks at */
    const char* mark_a;      /* --baseline LABEL[,LABEL]: runs of the loaded paths marked A */
    const char* mark_b;      /* --candidate LABEL[,LABEL]: ... marked B (both or neither) */
    const char* run;         /* --run LABEL: the scope (one run); NULL = all runs */
    /* efficiency (efficiency.h) */
    const char* peaks;       /* --peaks FILE: device peaks ahead of the built-in table */
    int has_peak;            /* --peak TFLOPS,GBps given: peak replaces the table */
    PeakFigures peak;
    /* collectives (collectives.h) */
    const char* coll_refs[CLI_MAX_COLL_REFS]; /* --collective-ref [TYPE=]FILE, in order */
    int n_coll_refs;
} Cli;

DcuStatus Cli_parse(Cli* cli, int argc, char** argv, DcuError* err);
/* The ROI the options ask for (ROI_OFF when none); DCU_ERR_USAGE for a bad --roi. */
DcuStatus Cli_roi(const Cli* cli, RoiSpec* spec, DcuError* err);
const char* Cli_usage(void);

#endif
