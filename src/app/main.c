/* main.c - the only place that exits. Parses the command line, loads the paths, then hands
 * over to one function per mode: export, interactive (TUI or headless), report. */
#include <locale.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "dcutop/abba_evidence.h"
#include "dcutop/app.h"
#include "dcutop/category.h"
#include "dcutop/cli.h"
#include "dcutop/gap_buckets.h"
#include "dcutop/idle.h"
#include "dcutop/csv_reader.h"
#include "dcutop/diff.h"
#include "dcutop/coll_ref.h"
#include "dcutop/collectives.h"
#include "dcutop/compute_metrics.h"
#include "dcutop/device_state.h"
#include "dcutop/mem_alloc.h"
#include "dcutop/memory.h"
#include "dcutop/ops.h"
#include "dcutop/efficiency.h"
#include "dcutop/export.h"
#include "dcutop/repro.h"
#include "dcutop/kernel_query.h"
#include "dcutop/key_timing.h"
#include "dcutop/loader.h"
#include "dcutop/names.h"
#include "dcutop/out_file.h"
#include "dcutop/query.h"
#include "dcutop/ranks.h"
#include "dcutop/variab.h"
#include "dcutop/report.h"
#include "dcutop/report_diff.h"
#include "dcutop/runs.h"
#include "dcutop/stacks.h"
#include "dcutop/script.h"
#include "dcutop/sql_output.h"
#include "dcutop/sql_views.h"
#include "dcutop/user_sql.h"
#include "summarize.h"
#include "dcutop/term.h"
#include "compare_jobs.h"
#include "dcutop/theme.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"
#include "screen.h"
#include "compare_runs.h"

/* What every mode works on once the command line is understood and the traces are loaded. */
typedef struct Session_ {
    Cli cli;
    RuleSet* rules;      /* owned */
    Peaks* peaks;        /* owned; device peaks for the Efficiency figures */
    TraceDb* db;         /* owned */
    Loader* loader;      /* owned */
    Theme theme;         /* MODE_DEFAULT only */
    int tui;             /* 1: curses is running (or about to) */
    int view;            /* --view as a ViewId / REPORT_VIEW_*, -1 = all */
    int export_view;     /* --export as a ViewId, -1 when a tree or not exporting */
    int export_idle;     /* --export idle|launches|idle-gaps as an IdleView, else -1 */
    int export_tree;     /* --export stacks|ranges as a StacksSource, -1 otherwise */
    int export_eff;      /* --export efficiency */
    int export_compute;  /* --export compute (rocprof-compute metrics per kernel) */
    int export_alloc;    /* --export allocations (rocpd memory allocations) */
    int export_coll;     /* --export collectives (one row per collective instance) */
    CollRef coll_ref;    /* --collective-ref curves, stored in the database once loaded */
    int export_memory;   /* --export memory (every memory event with its totals) */
    int export_ops;      /* --export ops (ops.h) */
    int export_repro;    /* --export repro (a PyTorch microbenchmark script of the hot ops) */
    int export_device;   /* --export device-state (one row per device-state sample) */
    StacksOpts stacks;
    char title[1024];    /* the paths, for headers and report titles */
    CompareRuns cmp;     /* --diff, --abba, `dcutop A B`: each run in its own database */
    CompareJobs jobs;    /* --diff JOB_A JOB_B on the Diff screen: the critical ranks */
    int has_jobs;
    KeyTiming timing;    /* --timing: start_us and load_us set here, fp while it runs */
} Session;

static void print_messages(TraceDb* db) {
    sqlite3_stmt* st = NULL;
    Report_loadMessages(db, stderr, "dcutop: ", NULL);
    /* unreadable files are errors too */
    if (TraceDb_prepare(db, "SELECT path, note FROM source_file WHERE format = 'unreadable'", &st,
                        NULL) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            fprintf(stderr, "dcutop: %s: %s\n", sqlite3_column_text(st, 0),
                    sqlite3_column_text(st, 1));
        }
        sqlite3_finalize(st);
    }
}

/* Nothing loaded: say so, and list what was found and why each file gave nothing. */
static void print_empty(TraceDb* db, const DcuError* err) {
    fprintf(stderr, "dcutop: %s\n", err->msg);
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db, "SELECT path, format, coalesce(note, '') FROM source_file"
                            " WHERE format <> 'unreadable' ORDER BY id",
                        &st, NULL) == DCU_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            fprintf(stderr, "dcutop:   %s: %s%s%s\n", sqlite3_column_text(st, 0),
                    sqlite3_column_text(st, 1), *sqlite3_column_text(st, 2) ? ": " : "",
                    sqlite3_column_text(st, 2));
        }
        sqlite3_finalize(st);
    }
}

/* themes/ next to the binary (a build tree), else the installed share dir. */
static const char* themes_dir(void) {
    static char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 32);
    if (n > 0) {
        buf[n] = '\0';
        char* slash = strrchr(buf, '/');
        if (slash) {
            strcpy(slash, "/themes"); /* ./dcutop in the source tree */
            if (access(buf, R_OK) == 0) {
                return buf;
            }
            strcpy(slash, "/../themes"); /* build-asan/dcutop and other build dirs */
            if (access(buf, R_OK) == 0) {
                return buf;
            }
            strcpy(slash, "/../share/dcutop/themes"); /* make install PREFIX=...: bin/dcutop */
            if (access(buf, R_OK) == 0) {
                return buf;
            }
        }
    }
    return "/usr/share/dcutop/themes";
}

static int fail(const DcuError* err, int code) {
    fprintf(stderr, "dcutop: %s\n", err->msg[0] ? err->msg : Error_statusText(err->code));
    return code;
}

static int status_exit(DcuStatus s) {
    return s == DCU_ERR_USAGE || s == DCU_ERR_REGEX ? EXIT_USAGE : EXIT_RUNTIME;
}

/* What an output may replace: with --force, an existing file and a link's target outside its
 * folder; without, neither (exit 2). */
static int out_flags(const Cli* cli) {
    return cli->force ? OUT_FORCE_ALL : 0;
}

/* -o FILE (or stdout for none or "-"): every output goes through one writer, OutFile (a temp
 * file beside FILE, fsync'ed and moved into place at the end without replacing what appeared
 * meanwhile, unless --force). */
typedef struct Output_ {
    OutFile of;
    FILE* fp;  /* borrowed: where the mode writes */
    int file;  /* 1: of is open */
} Output;

static DcuStatus output_open(Output* o, const char* path, int flags, DcuError* err) {
    memset(o, 0, sizeof(*o));
    o->file = path && strcmp(path, "-") != 0;
    if (!o->file) {
        o->fp = stdout;
        return DCU_OK;
    }
    DcuStatus s = OutFile_open(&o->of, path, flags, err);
    if (s != DCU_OK) {
        o->file = 0;
    }
    o->fp = o->of.fp;
    return s;
}

/* Commits the file when written is DCU_OK, else removes it; the status of the whole. */
static DcuStatus output_close(Output* o, DcuStatus written, DcuError* err) {
    if (!o->file) {
        return written;
    }
    o->file = 0;
    return OutFile_finish(&o->of, written, err);
}

/* The exit code of a mode that wrote through output_open(): 2 for an existing file. */
static int output_exit(Output* o, DcuStatus written, DcuError* err) {
    DcuStatus s = output_close(o, written, err);
    return s == DCU_OK ? EXIT_OK : fail(err, status_exit(s));
}

/* --view and --export names to ids, before anything is loaded. */
static int resolve_views(Session* ss) {
    const Cli* cli = &ss->cli;
    ss->view = -1;
    ss->export_view = -1;
    ss->export_tree = cli->mode == MODE_EXPORT ? Stacks_sourceByName(cli->export_view) : -1;
    ss->stacks = (StacksOpts){(StacksMode)cli->tree_mode, cli->fold, cli->filter};
    if (cli->view && strcmp(cli->view, "timeline") == 0) {
        ss->view = REPORT_VIEW_TIMELINE;
    } else if (cli->view && strcmp(cli->view, "trace") == 0) {
        ss->view = REPORT_VIEW_TRACE;
    } else if (cli->view && strcmp(cli->view, "efficiency") == 0) {
        ss->view = REPORT_VIEW_EFFICIENCY;
    } else if (cli->view && strcmp(cli->view, "advice") == 0) {
        ss->view = REPORT_VIEW_ADVICE;
    } else if (cli->view && strcmp(cli->view, "ranks") == 0) {
        ss->view = REPORT_VIEW_RANKS;
    } else if (cli->view && strcmp(cli->view, "idle") == 0) {
        ss->view = REPORT_VIEW_IDLE;
    } else if (cli->view && strcmp(cli->view, "collectives") == 0) {
        ss->view = REPORT_VIEW_COLLECTIVES;
    } else if (cli->view && strcmp(cli->view, "memory") == 0) {
        ss->view = REPORT_VIEW_MEMORY;
    } else if (cli->view && strcmp(cli->view, "ops") == 0) {
        ss->view = REPORT_VIEW_OPS;
    } else if (cli->view && strcmp(cli->view, "device") == 0) {
        ss->view = REPORT_VIEW_DEVICE;
    } else if (cli->view && Stacks_sourceByName(cli->view) >= 0) {
        ss->view = REPORT_VIEW_STACKS + Stacks_sourceByName(cli->view);
    } else if (cli->view && (ss->view = Query_viewByName(cli->view)) < 0) {
        fprintf(stderr, "dcutop: --view: unknown view '%s' (advice, efficiency, files, "
                        "hotspots, categories, api, copies, timeline, trace, stacks, ranges, "
                        "memory, device, collectives, ops, ranks, idle)\n",
                cli->view);
        return EXIT_USAGE;
    }
    ss->export_eff = cli->mode == MODE_EXPORT && strcmp(cli->export_view, "efficiency") == 0;
    ss->export_compute = cli->mode == MODE_EXPORT && strcmp(cli->export_view, "compute") == 0;
    ss->export_alloc = cli->mode == MODE_EXPORT && strcmp(cli->export_view, "allocations") == 0;
    ss->export_coll = cli->mode == MODE_EXPORT && strcmp(cli->export_view, "collectives") == 0;
    ss->export_memory = cli->mode == MODE_EXPORT && Memory_viewByName(cli->export_view) >= 0;
    ss->export_ops = cli->mode == MODE_EXPORT && strcmp(cli->export_view, "ops") == 0;
    ss->export_repro = cli->mode == MODE_EXPORT && strcmp(cli->export_view, "repro") == 0;
    ss->export_device = cli->mode == MODE_EXPORT && strcmp(cli->export_view, "device-state") == 0;
    ss->export_idle = cli->mode == MODE_EXPORT ? Idle_viewByName(cli->export_view) : -1;
    if (ss->export_idle > IDLE_GAPS) {
        ss->export_idle = -1; /* the report's own tables */
    }
    if (cli->mode == MODE_EXPORT && ss->export_tree < 0 && !ss->export_eff &&
        !ss->export_compute && !ss->export_alloc && !ss->export_coll && !ss->export_memory &&
        !ss->export_ops && !ss->export_repro && !ss->export_device && ss->export_idle < 0 &&
        !cli->mark_a && /* marks: diff or abba (Cli_parse) */
        (ss->export_view = Query_viewByName(cli->export_view)) < 0) {
        fprintf(stderr, "dcutop: --export: unknown view '%s' (efficiency, hotspots, categories, "
                        "api, copies, files, stacks, ranges, idle, launches, idle-gaps, compute, "
                        "allocations, collectives, memory, ops, repro, device-state)\n",
                cli->export_view);
        return EXIT_USAGE;
    }
    /* a path is text from the user's disk: control and bidi characters are escaped like
     * trace names */
    for (int i = 0; i < cli->npaths; i++) {
        char* shown = Names_sanitize(cli->paths[i], strlen(cli->paths[i]));
        strncat(ss->title, i ? " " : "", sizeof(ss->title) - strlen(ss->title) - 1);
        strncat(ss->title, shown, sizeof(ss->title) - strlen(ss->title) - 1);
        free(shown);
    }
    return EXIT_OK;
}

/* The interactive view needs its theme and terminal before loading: the progress bar. */
static int start_terminal(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    ss->tui = cli->mode == MODE_DEFAULT && !cli->headless && !cli->output && isatty(0) &&
              isatty(1);
    if (cli->mode != MODE_DEFAULT) {
        return EXIT_OK;
    }
    const char* nc = getenv("NO_COLOR");
    int mono = cli->no_color || (nc && *nc);
    if (Theme_load(&ss->theme,
                   mono && !cli->theme ? "mono" : (cli->theme ? cli->theme : "default"),
                   themes_dir(), err) != DCU_OK) {
        return fail(err, EXIT_USAGE);
    }
    if (mono) {
        ss->theme.mono = 1;
    }
    if (ss->tui && Term_init(&ss->theme, !ss->cli.no_mouse, err) != DCU_OK) {
        ss->tui = 0;
        return fail(err, EXIT_RUNTIME);
    }
    return EXIT_OK;
}

static void stop_terminal(Session* ss) {
    if (ss->tui) {
        Term_end();
        ss->tui = 0;
    }
}

/* --run LABEL: the scope every mode shows; "all" (unless a run has that label): every run
 * added together. Without --run, the default scope: one run of a program, never its repeats
 * added (runs.h Runs_choice). An unknown label is a usage error that lists the labels. */
static int apply_run_scope(Session* ss, DcuError* err) {
    const char* label = ss->cli.run;
    if (!label) {
        return Runs_applyDefault(ss->db, err) == DCU_OK ? EXIT_OK : fail(err, EXIT_RUNTIME);
    }
    int64_t id = Runs_byLabel(ss->db, label);
    if (id == 0 && strcmp(label, "all") == 0) {
        id = RUNS_ALL;
    }
    if (id == 0) {
        char* all = Runs_labels(ss->db);
        fprintf(stderr, "dcutop: --run: no run labelled '%s'; the runs are: %s (all: every run added together)\n",
                label, all);
        free(all);
        return EXIT_USAGE;
    }
    return Runs_setScope(ss->db, &id, 1, err) == DCU_OK ? EXIT_OK : fail(err, EXIT_RUNTIME);
}

/* Loads every path, then applies the rules, the Amdahl basis, --save-db (the whole data)
 * and the region of interest. */
static int load_traces(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    if (TraceDb_open(&ss->db, cli->db_memory, err) != DCU_OK) {
        return fail(err, EXIT_RUNTIME);
    }
    int rc = start_terminal(ss, err);
    if (rc != EXIT_OK) {
        return rc;
    }
    LoadOptions lo = {0};
    lo.strict = cli->strict;
    lo.max_event_size = cli->max_event_size;
    if (ss->tui) {
        lo.progress = Term_progress;
    }
    ss->loader = Loader_new(ss->db, &lo);
    for (int i = 0; i < cli->npaths; i++) {
        if (Loader_addPath(ss->loader, cli->paths[i], err) != DCU_OK) {
            stop_terminal(ss);
            return fail(err, EXIT_RUNTIME);
        }
    }
    DcuStatus ls = Loader_run(ss->loader, err);
    ss->timing.load_us = KeyTiming_nowUs();
    if (ls != DCU_OK) {
        stop_terminal(ss);
    }
    if (!cli->quiet && !ss->tui) { /* the interactive view prints them when it ends */
        print_messages(ss->db);
    }
    if (ls == DCU_ERR_EMPTY) {
        print_empty(ss->db, err);
        return EXIT_RUNTIME;
    }
    if (ls == DCU_OK && (rc = apply_run_scope(ss, err)) != EXIT_OK) {
        stop_terminal(ss);
        return rc;
    }
    if (ls != DCU_OK || RuleSet_apply(ss->rules, ss->db, err) != DCU_OK ||
        Variab_leaveOutCollectives(ss->db, err) != DCU_OK || /* comm known now */
        Ranks_storeWaiting(ss->db, err) != DCU_OK || /* a straggler's wait is not work */
        CollRef_store(ss->db, &ss->coll_ref, err) != DCU_OK ||
        Efficiency_build(ss->db, ss->peaks, cli->has_peak ? &cli->peak : NULL, err) != DCU_OK ||
        (cli->amdahl_basis && Query_setAmdahlBasis(ss->db, cli->amdahl_basis, err) != DCU_OK) ||
        (cli->gap_buckets && GapBuckets_store(ss->db, cli->gap_buckets, err) != DCU_OK)) {
        stop_terminal(ss);
        return fail(err, EXIT_RUNTIME);
    }
    if (cli->amdahl_basis && !Query_wallAvailable(ss->db)) {
        stop_terminal(ss);
        Error_set(err, DCU_ERR_USAGE,
                  "--amdahl-basis wall: this data has no per-dispatch timestamps (aggregated "
                  "stats only), so there is no wall time; use the kernel basis");
        return fail(err, EXIT_USAGE);
    }
    if (cli->save_db && TraceDb_save(ss->db, cli->save_db, cli->force, err) != DCU_OK) {
        stop_terminal(ss);
        return fail(err, status_exit(err->code)); /* 2: an existing file without --force */
    }
    if (cli->roi_spec.kind != ROI_OFF && Roi_apply(ss->db, &cli->roi_spec, err) != DCU_OK) {
        if (err->code == DCU_ERR_EMPTY) { /* stats only: said, and the data stays whole */
            fail(err, EXIT_OK);
            return EXIT_OK;
        }
        stop_terminal(ss);
        return fail(err, err->code == DCU_ERR_REGEX ? EXIT_USAGE : EXIT_RUNTIME);
    }
    return EXIT_OK;
}

/* --report and --export: hotspots with its launch columns (when the trace has them) */
static QueryOpts query_opts(const Cli* cli) {
    return (QueryOpts){cli->filter, cli->sort, cli->what_if, cli->n_what_if, cli->category, 0, 1};
}

static DcuStatus export_collectives(TraceDb* db, const char* sort, ResultSet** rs,
                                    DcuError* err) {
    Collectives* c = NULL;
    DcuStatus s = Collectives_new(db, &c, err);
    if (s == DCU_OK) {
        *rs = Collectives_instances(c);
        s = sort ? Query_sort(*rs, sort, err) : DCU_OK; /* --sort skew_ns:desc */
    }
    Collectives_delete(c);
    return s;
}

static int run_export(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    QueryOpts q = query_opts(cli);
    ResultSet* rs = NULL;
    DcuStatus s = ss->export_idle >= 0   ? Idle_view(ss->db, (IdleView)ss->export_idle, &rs, err)
                  : ss->export_eff        ? Efficiency_query(ss->db, &q, 1, &rs, err)
                  : ss->export_compute    ? ComputeMetrics_export(ss->db, &q, &rs, err)
                  : ss->export_alloc      ? MemAlloc_list(ss->db, &rs, err)
                  : ss->export_coll       ? export_collectives(ss->db, cli->sort, &rs, err)
                  : ss->export_memory     ? Memory_view(ss->db, MEM_VIEW_EVENTS, 0, &rs, err)
                  : ss->export_ops        ? Ops_export(ss->db, &q, &rs, err)
                  : ss->export_device     ? DeviceState_samples(ss->db, &rs, err)
                  : ss->export_tree >= 0 ? Stacks_query(ss->db, (StacksSource)ss->export_tree,
                                                        &ss->stacks, cli->sort, &rs, err)
                                         : Query_view(ss->db, (ViewId)ss->export_view, &q, &rs,
                                                      err);
    if (s == DCU_OK && cli->top_set) {
        ResultSet_keepTop(rs, cli->top); /* the user's --top, in every view */
    }
    if (s == DCU_OK && ss->export_eff && !cli->quiet && !Efficiency_hasShapes(ss->db)) {
        fprintf(stderr, "dcutop: %s\n", Efficiency_noShapesText());
    }
    if (s == DCU_OK) {
        s = cli->output && strcmp(cli->output, "-") != 0
                ? Export_csvFile(rs, cli->output, out_flags(cli), err)
                : Export_csv(rs, stdout, err);
    }
    ResultSet_delete(rs);
    return s == DCU_OK ? EXIT_OK : fail(err, status_exit(s));
}

/* --export repro: the microbenchmark script of the top ops (--top, default 10) or of those
 * matching --filter, to -o FILE or stdout; the ops it cannot rebuild are said on stderr. */
static int run_export_repro(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    ReproOpts o = {cli->filter, NULL, NULL, NULL, cli->top_set ? cli->top : REPRO_TOP_DEFAULT,
                   ss->title};
    ReproStats st;
    Output out;
    DcuStatus s = output_open(&out, cli->output, out_flags(cli), err);
    if (s == DCU_OK) {
        s = Repro_write(ss->db, &o, out.fp, cli->quiet ? NULL : stderr, &st, err);
        int rc = output_exit(&out, s, err);
        if (rc == EXIT_OK && !cli->quiet) {
            fprintf(stderr, "dcutop: repro: %d ops, %d rebuilt, %d not rebuilt\n", st.ops,
                    st.rebuilt, st.not_rebuilt);
        }
        return rc;
    }
    return fail(err, status_exit(s));
}

/* Headless: replays --keys and prints each screen (timing: --timing's lines). */
static int run_headless(App* app, const Cli* cli, KeyTiming* timing, DcuError* err) {
    if (Script_run(app, cli->keys, stdout, timing, err) != DCU_OK) {
        return fail(err, err->code == DCU_ERR_IO ? EXIT_RUNTIME : EXIT_USAGE);
    }
    return EXIT_OK;
}

/* --match: op identity unless full or short is asked for (op falls back to full names). */
static DiffMatch cli_match(const Cli* cli) {
    return cli->match_short ? DIFF_MATCH_SHORT
                            : (cli->match_full ? DIFF_MATCH_FULL : DIFF_MATCH_OP);
}

/* --baseline / --candidate on a terminal: the runs marked on the Runs screen, and the Diff
 * screen open on them; an unknown label goes to the status line. */
static void premark(App* app, TraceDb* db, const Cli* cli) {
    int64_t ids[2][COMPARE_MAX_RUNS];
    int n[2] = {0, 0};
    for (int side = 0; side < 2; side++) {
        char* copy = xstrdup(side ? cli->mark_b : cli->mark_a);
        char* save = NULL;
        for (char* l = strtok_r(copy, ",", &save); l; l = strtok_r(NULL, ",", &save)) {
            int64_t id = Runs_byLabel(db, l);
            if (id && n[side] < COMPARE_MAX_RUNS) {
                ids[side][n[side]++] = id;
                App_toggleRunMark(app, side ? 'b' : 'a', id);
            }
        }
        free(copy);
    }
    App_openDiff(app, ids[0], n[0], ids[1], n[1]);
}

static int run_interactive(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    /* a comparison shows the candidate's first run on the other screens */
    TraceDb* db = ss->cmp.n[1] > 0 ? ss->cmp.db[1][0] : ss->db;
    /* the drill-down index is built once the first screen shows (App_idle) */
    Keymap* km = Keymap_new();
    /* a typo in the rc file warns on the status line; its other lines are loaded */
    DcuError rc_err;
    Error_clear(&rc_err);
    int rc_bad = Keymap_loadRc(km, NULL, &rc_err) != DCU_OK;
    AppOptions ao = {ss->title,  cli->gemm_like,
                     NULL,       ss->tui ? Term_pollCancel : NULL,
                     ss->tui ? Term_drawNow : NULL, rc_bad ? rc_err.msg : NULL,
                     ss->tui ? Term_runChild : NULL, (int)cli_match(cli)};
    int w = cli->size_w, h = cli->size_h;
    if (ss->tui) {
        Term_size(&w, &h);
    }
    App* app = App_new(db, km, &ao, w, h);
    if (ss->cmp.n[1] == 0 && Runs_count(db) >= 2 && Ranks_isJobDb(db)) {
        App_openRanks(app); /* a job opens on its ranks, however its files were given */
    }
    if (ss->cmp.n[1] == 0 && cli->category) { /* --group / --category: its kernels first */
        App_open(app, &HotspotsScreen, NULL, cli->category,
                 xasprintf("%s kernels (--%s)", cli->category,
                           strcmp(cli->category, "GEMM") == 0 ||
                                   strcmp(cli->category, "non-GEMM") == 0
                               ? "group"
                               : "category"));
    }
    if (cli->mark_a) {
        premark(app, db, cli);
    }
    if (ss->has_jobs) { /* two jobs: their critical ranks, as the report compares them */
        App_setDiffSides(app, (const DiffSide* const*)&ss->jobs.crit[0], 1,
                         (const DiffSide* const*)&ss->jobs.crit[1], 1, 0,
                         cli_match(cli));
    } else if (ss->cmp.n[1] > 0) {
        App_setDiffSides(app, (const DiffSide* const*)ss->cmp.side[0], ss->cmp.n[0],
                         (const DiffSide* const*)ss->cmp.side[1], ss->cmp.n[1], cli->abba,
                         cli_match(cli));
    }
    if (ss->cmp.n[1] > 0) {
        App_setDiffBaselineDb(app, ss->cmp.db[0][0]);
        AbbaEvidence* ev = NULL; /* what --abba judges beside time, as the report does */
        if (cli->abba && !ss->has_jobs && CompareRuns_evidence(&ss->cmp, NULL, NULL, &ev, err) ==
                                              DCU_OK) {
            App_setDiffEvidence(app, ev);
        }
        App_openDiff(app, NULL, 0, NULL, 0);
    }
    int rc = EXIT_OK;
    Output timing; /* written like -o: a temp file moved into place */
    if (cli->timing && output_open(&timing, cli->timing, out_flags(cli), err) != DCU_OK) {
        stop_terminal(ss);
        rc = fail(err, status_exit(err->code));
    } else {
        ss->timing.fp = cli->timing ? timing.fp : NULL;
        if (ss->tui) {
            Term_loop(app, &ss->timing);
            stop_terminal(ss);
            if (!cli->quiet) {
                print_messages(db);
            }
        } else {
            rc = run_headless(app, cli, &ss->timing, err);
        }
        if (cli->timing) { /* a failed script leaves no file */
            rc = rc == EXIT_OK ? output_exit(&timing, DCU_OK, err)
                               : (output_close(&timing, DCU_ERR_USAGE, NULL), rc);
        }
    }
    App_delete(app);
    Keymap_delete(km);
    return rc;
}

static int run_report(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    ReportOpts ro = {cli->format, cli->width, cli->top, ss->view, query_opts(cli), ss->title,
                     ss->stacks, cli->top_set ? cli->top : 0};
    Output o;
    if (output_open(&o, cli->output, out_flags(cli), err) != DCU_OK) {
        return fail(err, status_exit(err->code));
    }
    return output_exit(&o, Report_write(ss->db, &ro, o.fp, err), err);
}

/* ---- comparison ------------------------------------------------------------------------ */

/* Loads one run of a comparison. probe: say nothing, whatever happens (`dcutop A B`). */
static int load_run(Session* ss, const char* path, int side, int probe, DcuError* err) {
    TraceDb* db = NULL;
    DcuStatus s = CompareRuns_add(&ss->cmp, side, path, ss->rules, ss->cli.strict,
                                  ss->cli.db_memory, &db, err);
    ss->timing.load_us = KeyTiming_nowUs(); /* the last run loaded ends the load */
    if (probe) {
        return s == DCU_OK ? EXIT_OK : EXIT_RUNTIME;
    }
    if (db && !ss->cli.quiet && !ss->tui) {
        print_messages(db);
    }
    if (s == DCU_OK) {
        return EXIT_OK;
    }
    stop_terminal(ss);
    if (s == DCU_ERR_EMPTY) {
        print_empty(db, err);
        return EXIT_RUNTIME;
    }
    return fail(err, s == DCU_ERR_USAGE ? EXIT_USAGE : EXIT_RUNTIME);
}

/* One side: a path or a comma-separated list of paths (repeats). */
static int load_side(Session* ss, const char* spec, int side, DcuError* err) {
    char* copy = xstrdup(spec);
    int rc = EXIT_OK;
    char* save = NULL;
    for (char* p = strtok_r(copy, ",", &save); p && rc == EXIT_OK; p = strtok_r(NULL, ",", &save)) {
        rc = load_run(ss, p, side, 0, err);
    }
    free(copy);
    if (rc == EXIT_OK && ss->cmp.n[side] == 0) {
        Error_set(err, DCU_ERR_USAGE, "'%s': no path", spec);
        return fail(err, EXIT_USAGE);
    }
    return rc;
}

static DiffReportOpts diff_report_opts(const Cli* cli, const char* a, const char* b) {
    return (DiffReportOpts){cli->format, cli->width, cli->top, cli->filter, cli->sort, a, b};
}

/* Writes a ResultSet as --export does: CSV to -o FILE (through a temp file) or stdout. */
static int export_table(const Cli* cli, ResultSet* rs, DcuError* err) {
    if (cli->top_set) {
        ResultSet_keepTop(rs, cli->top); /* --top N: in every export */
    }
    DcuStatus s = cli->output && strcmp(cli->output, "-") != 0
                      ? Export_csvFile(rs, cli->output, out_flags(cli), err)
                      : Export_csv(rs, stdout, err);
    return s == DCU_OK ? EXIT_OK : fail(err, status_exit(s));
}

/* The gate's exit code (GATE_* from Diff_gate / Abba_gate), and its line finished: an untrusted
 * regression beyond the limit is a warning that passes, or with --strict exits 4. */
static int gate_exit(const Cli* cli, int result, char* why, size_t cap) {
    if (result == GATE_FAILED) {
        return EXIT_GATE;
    }
    if (result != GATE_UNTRUSTED && result != GATE_INCONCLUSIVE) {
        return EXIT_OK;
    }
    const char* body = why + strlen("gate WARNING: ");
    char tmp[1024];
    snprintf(tmp, sizeof(tmp), "%s", strncmp(why, "gate WARNING: ", 14) == 0 ? body : why);
    if (cli->strict) {
        snprintf(why, cap, "gate FAILED (--strict: untrusted counts): %.900s (exit 4)", tmp);
        return EXIT_GATE_UNTRUSTED;
    }
    snprintf(why, cap, "gate passed with a WARNING: %.900s, not counted (exit 0; --strict exits 4)",
             tmp);
    return EXIT_OK;
}

/* The sides of a comparison: the runs a side holds, and what the title calls it. */
typedef struct {
    const DiffSide* const* runs;
    int n;
    const char* title;
} Side;

/* The report (or --export diff) of sides a and b; with --fail-above the exit code is the
 * gate. preface: text the text report starts with (NULL: none). */
static int report_diff(Session* ss, Side a, Side b, const char* preface, DcuError* err) {
    const Cli* cli = &ss->cli;
    int rc = EXIT_OK;
    Diff* d = NULL;
    if (Diff_compute(a.runs, a.n, b.runs, b.n,
                     cli_match(cli), &d, err) != DCU_OK) {
        return fail(err, EXIT_RUNTIME);
    }
    char why[1024] = "";
    int failed = 0;
    if (cli->gate_on && (failed = Diff_gate(d, cli->fail_above, cli->gate, why, sizeof(why),
                                            err)) < 0) {
        Diff_delete(d);
        return fail(err, EXIT_USAGE);
    }
    int gate_rc = cli->gate_on ? gate_exit(cli, failed, why, sizeof(why)) : EXIT_OK;
    DcuStatus s;
    if (cli->mode == MODE_EXPORT) {
        ResultSet* rs = NULL; /* matched by op: the ops; else the kernels */
        s = d->by_op ? Diff_opTable(d, cli->filter, &rs, err)
                     : Diff_kernelTable(d, cli->filter, &rs, err);
        if (s == DCU_OK && cli->sort) {
            s = Query_sort(rs, cli->sort, err);
        }
        rc = s == DCU_OK ? export_table(cli, rs, err) : fail(err, status_exit(s));
        ResultSet_delete(rs);
    } else {
        Output out;
        if (output_open(&out, cli->output, out_flags(cli), err) != DCU_OK) {
            Diff_delete(d);
            return fail(err, status_exit(err->code));
        }
        DiffReportOpts o = diff_report_opts(cli, a.title, b.title);
        if (preface && cli->format == FMT_TEXT) {
            fputs(preface, out.fp);
        }
        s = ReportDiff_write(d, &o, cli->gate_on ? why : NULL, failed, out.fp, err);
        rc = output_exit(&out, s, err);
    }
    if (rc == EXIT_OK && cli->gate_on && (cli->format != FMT_TEXT || cli->mode == MODE_EXPORT)) {
        fprintf(stderr, "dcutop: %s\n", why); /* CSV/JSON stay parseable: the verdict also here */
    }
    Diff_delete(d);
    return rc == EXIT_OK ? gate_rc : rc;
}

/* --diff A B */
static int run_diff(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    int rc = load_side(ss, cli->paths[0], 0, err);
    if (rc == EXIT_OK) {
        rc = load_side(ss, cli->paths[1], 1, err);
    }
    if (rc != EXIT_OK) {
        return rc;
    }
    Side a = {(const DiffSide* const*)ss->cmp.side[0], ss->cmp.n[0], cli->paths[0]};
    Side b = {(const DiffSide* const*)ss->cmp.side[1], ss->cmp.n[1], cli->paths[1]};
    if (!CompareJobs_applies(&ss->cmp)) {
        return report_diff(ss, a, b, NULL, err);
    }
    /* two jobs: rank by rank, then their critical ranks (the job's time) */
    CompareJobs j;
    if (CompareJobs_build(&ss->cmp, cli_match(cli), &j,
                          err) != DCU_OK) {
        return fail(err, EXIT_RUNTIME);
    }
    char ta[1100], tb[1100];
    snprintf(ta, sizeof(ta), "%s, rank %d", cli->paths[0], j.crit_rank[0]);
    snprintf(tb, sizeof(tb), "%s, rank %d", cli->paths[1], j.crit_rank[1]);
    const DiffSide* const ca[1] = {j.crit[0]};
    const DiffSide* const cb[1] = {j.crit[1]};
    rc = report_diff(ss, (Side){ca, 1, ta}, (Side){cb, 1, tb}, j.text, err);
    CompareJobs_done(&j);
    return rc;
}

/* The A-B-B-A of the four runs loaded (A1 A2 on side 0, B1 B2 on side 1), titled A1 B1 B2 A2,
 * on time, memory, numerics and environment. ids: the runs' ids in ss->db when they are marked
 * runs of one database (NULL: each run has its own). */
static int report_abba(Session* ss, const char* const titles[4], const int64_t* ids[2],
                       DcuError* err) {
    const Cli* cli = &ss->cli;
    int rc = EXIT_OK;
    const CompareRuns* c = &ss->cmp;
    const DiffSide* const runs[4] = {c->side[0][0], c->side[1][0], c->side[1][1], c->side[0][1]};
    Abba* a = NULL;
    if (Abba_compute(runs, cli_match(cli), &a, err) !=
        DCU_OK) {
        return fail(err, EXIT_RUNTIME);
    }
    AbbaEvidence* ev = NULL;
    if (CompareRuns_evidence(c, ids ? ss->db : NULL, ids, &ev, err) != DCU_OK) {
        Abba_delete(a);
        return fail(err, EXIT_RUNTIME);
    }
    Abba_setEvidence(a, ev);
    char why[1024] = "";
    int result = 0;
    if (cli->gate_on && (result = Abba_gate(a, cli->fail_above, cli->gate, why, sizeof(why),
                                            err)) < 0) {
        Abba_delete(a);
        return fail(err, EXIT_USAGE);
    }
    int gate_rc = cli->gate_on ? gate_exit(cli, result, why, sizeof(why)) : EXIT_OK;
    if (cli->mode == MODE_EXPORT) {
        ResultSet* rs = NULL;
        DcuStatus s = ReportAbba_table(a, cli->filter, cli->sort, 1, &rs, err);
        rc = s == DCU_OK ? export_table(cli, rs, err) : fail(err, status_exit(s));
        ResultSet_delete(rs);
    } else {
        Output out;
        if (output_open(&out, cli->output, out_flags(cli), err) != DCU_OK) {
            Abba_delete(a);
            return fail(err, status_exit(err->code));
        }
        DiffReportOpts o = diff_report_opts(cli, titles[0], titles[1]);
        rc = output_exit(&out,
                         ReportAbba_write(a, titles, &o, cli->gate_on ? why : NULL, result,
                                          out.fp, err),
                         err);
    }
    if (rc == EXIT_OK && cli->gate_on && (cli->format != FMT_TEXT || cli->mode == MODE_EXPORT)) {
        fprintf(stderr, "dcutop: %s\n", why); /* CSV/JSON stay parseable: the verdict also here */
    }
    Abba_delete(a);
    return rc == EXIT_OK ? gate_rc : rc;
}

/* --abba A1 B1 B2 A2 */
static int run_abba(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    static const int side_of[4] = {0, 1, 1, 0};
    int rc = EXIT_OK;
    for (int i = 0; i < 4 && rc == EXIT_OK; i++) {
        rc = load_run(ss, cli->paths[i], side_of[i], 0, err);
    }
    const char* const titles[4] = {cli->paths[0], cli->paths[1], cli->paths[2], cli->paths[3]};
    return rc != EXIT_OK ? rc : report_abba(ss, titles, NULL, err);
}

/* --baseline / --candidate: the runs of ss->db with these labels (comma-separated) as the
 * runs of side (0: A, 1: B), each read with that run alone in scope, as the Runs screen's
 * marks are. ids gets their run ids. An unknown label is a usage error listing the runs. */
static int marked_side(Session* ss, const char* spec, int side, int64_t* ids, DcuError* err) {
    char* copy = xstrdup(spec);
    int rc = EXIT_OK;
    for (char* p = copy; *p && rc == EXIT_OK;) {
        char* l = NULL;
        int64_t id = CompareRuns_nextLabel(ss->db, &p, &l);
        int twice = 0;
        for (int j = 0; j < ss->cmp.n[side]; j++) {
            twice |= ids[j] == id;
        }
        if (!id) {
            char* all = Runs_labels(ss->db);
            Error_set(err, DCU_ERR_USAGE, "--%s: no run labelled '%s'; the runs are: %s",
                      side ? "candidate" : "baseline", l, all && *all ? all : "none");
            free(all);
            rc = fail(err, EXIT_USAGE);
        } else if (twice) {
            Error_set(err, DCU_ERR_USAGE, "--%s: run '%s' is given twice: a run repeated "
                      "measures no noise (its drift or repeats would be exactly 0, and every "
                      "verdict would look trusted); give separate runs",
                      side ? "candidate" : "baseline", l);
            rc = fail(err, EXIT_USAGE);
        } else if (ss->cmp.n[side] == COMPARE_MAX_RUNS) {
            Error_set(err, DCU_ERR_USAGE, "too many runs on one side");
            rc = fail(err, EXIT_USAGE);
        } else if (Runs_setScope(ss->db, &id, 1, err) != DCU_OK ||
                   DiffSide_fromDb(ss->db, l, &ss->cmp.side[side][ss->cmp.n[side]], err) !=
                       DCU_OK) {
            rc = fail(err, EXIT_RUNTIME);
        } else {
            ids[ss->cmp.n[side]++] = id;
        }
    }
    free(copy);
    if (rc == EXIT_OK && ss->cmp.n[side] == 0) {
        Error_set(err, DCU_ERR_USAGE, "--baseline and --candidate need run labels");
        rc = fail(err, EXIT_USAGE);
    }
    return rc;
}

/* Marks in batch: the runs given by --baseline / --candidate compared as the Runs screen's
 * a / b marks compare them (two and two: an A-B-B-A in the order given, A1 B1 B2 A2). */
static int run_marked(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    int64_t ids[2][COMPARE_MAX_RUNS];
    int64_t scope = Runs_scopeRun(ss->db);
    int rc = marked_side(ss, cli->mark_a, 0, ids[0], err);
    if (rc == EXIT_OK) {
        rc = marked_side(ss, cli->mark_b, 1, ids[1], err);
    }
    DcuError e2;
    Runs_setScope(ss->db, scope ? &scope : NULL, scope ? 1 : 0, &e2);
    if (rc != EXIT_OK) {
        return rc;
    }
    const CompareRuns* c = &ss->cmp;
    if (c->n[0] == 2 && c->n[1] == 2) {
        const char* const titles[4] = {c->side[0][0]->label, c->side[1][0]->label,
                                       c->side[1][1]->label, c->side[0][1]->label};
        const int64_t* marked[2] = {ids[0], ids[1]};
        return report_abba(ss, titles, marked, err);
    }
    if (cli->mode == MODE_EXPORT && strcmp(cli->export_view, "abba") == 0) {
        Error_set(err, DCU_ERR_USAGE, "--export abba needs two runs a side");
        return fail(err, EXIT_USAGE);
    }
    Side a = {(const DiffSide* const*)c->side[0], c->n[0], cli->mark_a};
    Side b = {(const DiffSide* const*)c->side[1], c->n[1], cli->mark_b};
    return report_diff(ss, a, b, NULL, err);
}

static int interactive(const Cli* cli) {
    return cli->mode == MODE_DEFAULT && !cli->output && (cli->headless || (isatty(0) && isatty(1)));
}

/* `dcutop A B`, interactive: two paths that each hold one run open on the Diff screen. The
 * sides are loaded here; when either holds several runs they are dropped again. */
static int two_runs(Session* ss) {
    const Cli* cli = &ss->cli;
    if (cli->npaths != 2 || cli->diff || cli->abba || !interactive(cli) ||
        strchr(cli->paths[0], ',') || strchr(cli->paths[1], ',')) {
        return 0;
    }
    DcuError e; /* the normal load says it all when this is not a comparison */
    Error_clear(&e);
    int ok = load_run(ss, cli->paths[0], 0, 1, &e) == EXIT_OK &&
             load_run(ss, cli->paths[1], 1, 1, &e) == EXIT_OK &&
             CompareRuns_isOneRun(&ss->cmp, 0, 0) && CompareRuns_isOneRun(&ss->cmp, 1, 0) &&
             !CompareRuns_areRanks(&ss->cmp); /* two ranks of one job: the job, not a diff */
    if (!ok) {
        CompareRuns_done(&ss->cmp);
    }
    return ok;
}

/* The Diff screen: --diff / --abba / `dcutop A B` on a terminal or --headless. */
static int run_compare_interactive(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    int rc = EXIT_OK;
    if (ss->cmp.n[0] == 0) { /* not loaded by two_runs() */
        if (cli->abba) {
            static const int side_of[4] = {0, 1, 1, 0};
            for (int i = 0; i < 4 && rc == EXIT_OK; i++) {
                rc = load_run(ss, cli->paths[i], side_of[i], 0, err);
            }
        } else {
            rc = load_side(ss, cli->paths[0], 0, err);
            if (rc == EXIT_OK) {
                rc = load_side(ss, cli->paths[1], 1, err);
            }
        }
    }
    if (rc != EXIT_OK || (rc = resolve_views(ss)) != EXIT_OK ||
        (rc = start_terminal(ss, err)) != EXIT_OK) {
        return rc;
    }
    /* the other screens show the candidate's first run: the header says so */
    snprintf(ss->title, sizeof(ss->title), "B (candidate): %s", ss->cmp.side[1][0]->label);
    if (cli->diff && CompareJobs_applies(&ss->cmp) &&
        CompareJobs_build(&ss->cmp, cli_match(cli),
                          &ss->jobs, err) == DCU_OK) {
        ss->has_jobs = 1;
        snprintf(ss->title, sizeof(ss->title), "critical ranks A %d, B %d (--report: every "
                 "rank) | B: %s", ss->jobs.crit_rank[0], ss->jobs.crit_rank[1],
                 ss->cmp.side[1][0]->label);
    }
    return run_interactive(ss, err);
}

/* --sql: SIGINT stops the query, not dcutop. The flag keeps a SIGINT that comes before the
 * statement runs (while -o opens, the views are made, the query is prepared), when
 * sqlite3_interrupt() alone would be a no-op: the first progress poll stops the query. */
static TraceDb* sql_db;
static volatile sig_atomic_t sql_stop;
static void interrupt_sql(int sig) {
    (void)sig;
    sql_stop = 1;
    if (sql_db) {
        UserSql_interrupt(sql_db);
    }
}
static int sql_stopped(void* ctx) {
    (void)ctx;
    return sql_stop;
}

/* The query; SIGINT is caught by run_sql around it. */
static DcuStatus sql_query(Session* ss, SqlOutput* sink, int* interrupted, DcuError* err) {
    UserSqlOpts uo = {0};
    uo.sink = SqlOutput_rows; /* rows go out as they come: memory stays bounded */
    uo.sink_ctx = sink;
    uo.poll = sql_stopped;
    ResultSet* none = NULL;
    DcuStatus s = UserSql_run(ss->db, ss->cli.sql, &uo, &none, err);
    *interrupted = uo.interrupted;
    return s;
}

static int run_sql_output(Session* ss, DcuError* err);

/* --sql: exit 2 on an SQL error (SQLite's message), 1 when interrupted or on a write error. */
static int run_sql(Session* ss, DcuError* err) {
    DcuStatus s = SqlViews_create(ss->db, err);
    if (s != DCU_OK) {
        return fail(err, EXIT_RUNTIME);
    }
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = interrupt_sql;
    sigemptyset(&sa.sa_mask);
    sql_stop = 0;
    sql_db = ss->db;
    sigaction(SIGINT, &sa, &old); /* from before -o's temp file exists to the query's end */
    int rc = run_sql_output(ss, err);
    sigaction(SIGINT, &old, NULL);
    sql_db = NULL;
    return rc;
}

/* --sql's output: -o opened, the rows written, -o closed (kept only when all went well). */
static int run_sql_output(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    DcuStatus s = DCU_OK;
    Output o;
    if (output_open(&o, cli->output, out_flags(cli), err) != DCU_OK) {
        return fail(err, status_exit(err->code));
    }
    FILE* out = o.fp;
    if (strcmp(cli->sql, ".ddl") == 0) {
        char* ddl = SqlViews_ddl(ss->db);
        fputs(ddl, out);
        free(ddl);
    } else {
        SqlOutput* so = SqlOutput_new(cli->format, out);
        int interrupted = 0;
        s = sql_query(ss, so, &interrupted, err);
        SqlOutput_delete(so);
        if (s == DCU_ERR_IO) { /* the sink's: the rows could not be written */
            Error_set(err, DCU_ERR_IO, "--sql: write error: %s", strerror(errno));
        } else if (s != DCU_OK && interrupted) {
            Error_set(err, DCU_ERR_SQL, "--sql: query interrupted");
            s = DCU_ERR_IO; /* exit 1: not the query's fault */
        } else if (s != DCU_OK) {
            char msg[sizeof(err->msg)];
            snprintf(msg, sizeof(msg), "%s", err->msg);
            Error_set(err, DCU_ERR_SQL, "--sql: %s", msg);
            s = DCU_ERR_USAGE;
        }
    }
    DcuStatus w = output_close(&o, s, err);
    s = s == DCU_OK ? w : s;
    return s == DCU_OK ? EXIT_OK : fail(err, s == DCU_ERR_USAGE ? EXIT_USAGE : EXIT_RUNTIME);
}

/* Modes that need no trace: help, version, the rules. -1: not one of them. */
static int run_without_traces(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    if (cli->mode == MODE_HELP) {
        fputs(Cli_usage(), stdout);
        return EXIT_OK;
    }
    if (cli->mode == MODE_VERSION) {
        printf("dcutop %s\n", DCUTOP_VERSION);
        return EXIT_OK;
    }
    ss->rules = RuleSet_new(cli->gemm_like);
    if (RuleSet_loadDefault(ss->rules, cli->rules, err) != DCU_OK) {
        return fail(err, err->code == DCU_ERR_RULES || err->code == DCU_ERR_IO ? EXIT_USAGE
                                                                                : EXIT_RUNTIME);
    }
    ss->peaks = Peaks_new();
    if (Peaks_loadDefault(ss->peaks, cli->peaks, err) != DCU_OK) {
        return fail(err, EXIT_USAGE);
    }
    for (int i = 0; i < cli->n_coll_refs; i++) { /* before a long load, as the rules */
        if (CollRef_load(&ss->coll_ref, cli->coll_refs[i], err) != DCU_OK) {
            return fail(err, EXIT_USAGE);
        }
    }
    if (ss->coll_ref.warning && !cli->quiet) {
        fprintf(stderr, "dcutop: --collective-ref: %s\n", ss->coll_ref.warning);
    }
    if (cli->mode == MODE_DUMP_RULES) {
        char* d = RuleSet_dump(ss->rules);
        fputs(d, stdout);
        free(d);
        return EXIT_OK;
    }
    return -1;
}

/* -o, --save-db and --timing refuse an existing file (no --force) before a long load, not
 * after (and again at the end: OutFile moves the file into place only if none appeared). */
static int check_outputs(const Cli* cli, DcuError* err) {
    int flags = out_flags(cli);
    if (cli->timing && strcmp(cli->timing, "-") == 0 && cli->mode == MODE_DEFAULT &&
        !cli->headless && isatty(0) && isatty(1)) { /* the terminal view draws there */
        Error_set(err, DCU_ERR_USAGE, "--timing -: standard output is the screen; name a file");
        return fail(err, EXIT_USAGE);
    }
    if ((cli->output && strcmp(cli->output, "-") != 0 &&
         OutFile_check(cli->output, flags, err) != DCU_OK) ||
        (cli->save_db && OutFile_check(cli->save_db, flags, err) != DCU_OK) ||
        (cli->timing && OutFile_check(cli->timing, flags, err) != DCU_OK)) {
        return fail(err, status_exit(err->code));
    }
    return EXIT_OK;
}

/* Checks the what-if and --category names before anything is written. */
static int check_what_if(Session* ss, DcuError* err) {
    double sp;
    if (Query_checkCategory(ss->db, ss->cli.category, err) != DCU_OK) {
        return fail(err, EXIT_USAGE);
    }
    if (ss->cli.n_what_if > 0 &&
        Query_projection(ss->db, ss->cli.what_if, ss->cli.n_what_if, &sp, err) != DCU_OK) {
        return fail(err, EXIT_USAGE);
    }
    return EXIT_OK;
}

static int run_mode(Session* ss, DcuError* err) {
    int rc = run_without_traces(ss, err);
    if (rc >= 0) {
        return rc;
    }
    const Cli* cli = &ss->cli;
    if (cli->mode == MODE_SUMMARIZE) {
        return Summarize_run(cli, ss->rules);
    }
    if ((cli->diff || cli->abba || two_runs(ss)) && interactive(cli)) {
        return (rc = check_outputs(&ss->cli, err)) != EXIT_OK ? rc
                                                               : run_compare_interactive(ss, err);
    }
    if (cli->diff || cli->abba) {
        if ((rc = check_outputs(&ss->cli, err)) != EXIT_OK) {
            return rc;
        }
        return cli->diff ? run_diff(ss, err) : run_abba(ss, err);
    }
    if ((rc = resolve_views(ss)) != EXIT_OK || (rc = check_outputs(&ss->cli, err)) != EXIT_OK ||
        (rc = load_traces(ss, err)) != EXIT_OK ||
        (rc = check_what_if(ss, err)) != EXIT_OK) {
        stop_terminal(ss);
        return rc;
    }
    if (cli->mark_a && !(cli->mode == MODE_DEFAULT && (ss->tui || cli->headless))) {
        return run_marked(ss, err);
    }
    if (cli->mode == MODE_EXPORT) {
        return ss->export_repro ? run_export_repro(ss, err) : run_export(ss, err);
    }
    if (cli->mode == MODE_SQL) {
        return run_sql(ss, err);
    }
    if (cli->mode == MODE_DEFAULT && (ss->tui || cli->headless)) {
        return run_interactive(ss, err);
    }
    if (cli->mode == MODE_REPORT || cli->mode == MODE_DEFAULT) {
        return run_report(ss, err);
    }
    return EXIT_OK; /* MODE_SAVE_DB: done while loading */
}

/* Signals that end dcutop. The handler removes the temp files of the outputs being written
 * (OutFile) and restores the terminal, then the signal's default action runs (the exit status
 * a shell sees, the core dump) as if dcutop had not caught it. Installed first thing, before
 * any output is opened or any screen drawn. A signal ignored when dcutop started (nohup,
 * `trap '' XFSZ`) stays ignored; the TUI ignores SIGPIPE (Term_init): a FIFO reader that
 * leaves is a write error, not the end. */
static const int ending_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ,
                                     SIGSEGV, SIGBUS,  SIGFPE, SIGILL,  SIGABRT};

static void on_ending_signal(int sig) {
    OutFile_removeTemps(); /* unlink() only */
    /* not async-signal-safe in theory; htop does the same so that the terminal survives */
    Term_end();
    raise(sig); /* SA_RESETHAND put the default back; SA_NODEFER lets it act at once */
}

static void catch_ending_signals(void) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_ending_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (size_t i = 0; i < sizeof(ending_signals) / sizeof(ending_signals[0]); i++) {
        if (sigaction(ending_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN) {
            sigaction(ending_signals[i], &sa, NULL);
        }
    }
}

/* A load builds and frees many arrays and hash tables of tens of MB. glibc serves those
 * from fresh mmaps and gives them back at once, so each one is page-faulted in again: a
 * tenth of a Kineto report's CPU (issue 23). Kept in the heap (up to 32 MiB a block, 64 MiB
 * of free top) they are reused; the peak grows by a few percent. */
static void keep_freed_memory(void) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

int main(int argc, char** argv) {
    double start_us = KeyTiming_nowUs();
    keep_freed_memory();
    setlocale(LC_ALL, "");
    catch_ending_signals();
    static Session ss;
    ss.timing.start_us = start_us;
    DcuError err;
    Error_clear(&err);
    if (Cli_parse(&ss.cli, argc, argv, &err) != DCU_OK) {
        fprintf(stderr, "dcutop: %s\n", err.msg);
        return EXIT_USAGE;
    }
    UserSql_setBudget(&ss.cli.sql_budget);
    CsvReader_setThreads(ss.cli.threads);
    int rc = run_mode(&ss, &err);
    if (fflush(stdout) != 0 && rc == EXIT_OK) {
        rc = EXIT_RUNTIME;
    }
    Loader_delete(ss.loader);
    TraceDb_delete(ss.db);
    RuleSet_delete(ss.rules);
    CompareJobs_done(&ss.jobs);
    CompareRuns_done(&ss.cmp);
    Peaks_delete(ss.peaks);
    CollRef_done(&ss.coll_ref);
    return rc;
}
