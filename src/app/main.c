/* main.c - the only place that exits. Parses the command line, loads the paths, then hands
 * over to one function per mode: export, interactive (TUI or headless), report. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcutop/app.h"
#include "dcutop/category.h"
#include "dcutop/cli.h"
#include "dcutop/export.h"
#include "dcutop/kernel_query.h"
#include "dcutop/loader.h"
#include "dcutop/out_file.h"
#include "dcutop/query.h"
#include "dcutop/report.h"
#include "dcutop/stacks.h"
#include "dcutop/script.h"
#include "dcutop/term.h"
#include "dcutop/theme.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"

/* What every mode works on once the command line is understood and the traces are loaded. */
typedef struct Session_ {
    Cli cli;
    RuleSet* rules;      /* owned */
    TraceDb* db;         /* owned */
    Loader* loader;      /* owned */
    Theme theme;         /* MODE_DEFAULT only */
    int tui;             /* 1: curses is running (or about to) */
    int view;            /* --view as a ViewId / REPORT_VIEW_*, -1 = all */
    int export_view;     /* --export as a ViewId, -1 when a tree or not exporting */
    int export_tree;     /* --export stacks|ranges as a StacksSource, -1 otherwise */
    StacksOpts stacks;
    char title[1024];    /* the paths, for headers and report titles */
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
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 16);
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

/* --view and --export names to ids, before anything is loaded. */
static int resolve_views(Session* ss) {
    const Cli* cli = &ss->cli;
    ss->view = -1;
    ss->export_view = -1;
    ss->export_tree = cli->mode == MODE_EXPORT ? Stacks_sourceByName(cli->export_view) : -1;
    ss->stacks = (StacksOpts){(StacksMode)cli->tree_mode, cli->fold, cli->filter};
    if (cli->view && strcmp(cli->view, "timeline") == 0) {
        ss->view = REPORT_VIEW_TIMELINE;
    } else if (cli->view && strcmp(cli->view, "advice") == 0) {
        ss->view = REPORT_VIEW_ADVICE;
    } else if (cli->view && Stacks_sourceByName(cli->view) >= 0) {
        ss->view = REPORT_VIEW_STACKS + Stacks_sourceByName(cli->view);
    } else if (cli->view && (ss->view = Query_viewByName(cli->view)) < 0) {
        fprintf(stderr, "dcutop: --view: unknown view '%s' (files, hotspots, categories, api, "
                        "copies, timeline, advice, stacks, ranges)\n", cli->view);
        return EXIT_USAGE;
    }
    if (cli->mode == MODE_EXPORT && ss->export_tree < 0 &&
        (ss->export_view = Query_viewByName(cli->export_view)) < 0) {
        fprintf(stderr, "dcutop: --export: unknown view '%s' (hotspots, categories, api, copies, "
                        "files, stacks, ranges)\n", cli->export_view);
        return EXIT_USAGE;
    }
    for (int i = 0; i < cli->npaths; i++) {
        strncat(ss->title, i ? " " : "", sizeof(ss->title) - strlen(ss->title) - 1);
        strncat(ss->title, cli->paths[i], sizeof(ss->title) - strlen(ss->title) - 1);
    }
    return EXIT_OK;
}

/* The interactive view needs its theme and terminal before loading: the progress bar. */
static int start_terminal(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    ss->tui = cli->mode == MODE_DEFAULT && !cli->headless && isatty(0) && isatty(1);
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
    if (ss->tui && Term_init(&ss->theme, err) != DCU_OK) {
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

/* Loads every path, then applies the rules, the Amdahl basis and --save-db. */
static int load_traces(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    if (TraceDb_open(&ss->db, err) != DCU_OK) {
        return fail(err, EXIT_RUNTIME);
    }
    int rc = start_terminal(ss, err);
    if (rc != EXIT_OK) {
        return rc;
    }
    LoadOptions lo = {0};
    lo.strict = cli->strict;
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
    if (ls != DCU_OK || RuleSet_apply(ss->rules, ss->db, err) != DCU_OK ||
        (cli->amdahl_basis && Query_setAmdahlBasis(ss->db, cli->amdahl_basis, err) != DCU_OK)) {
        stop_terminal(ss);
        return fail(err, EXIT_RUNTIME);
    }
    if (cli->save_db && TraceDb_save(ss->db, cli->save_db, cli->force, err) != DCU_OK) {
        stop_terminal(ss);
        return fail(err, status_exit(err->code)); /* 2: an existing file without --force */
    }
    return EXIT_OK;
}

static QueryOpts query_opts(const Cli* cli) {
    return (QueryOpts){cli->filter, cli->sort, cli->what_if, cli->n_what_if, NULL};
}

static int run_export(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    QueryOpts q = query_opts(cli);
    ResultSet* rs = NULL;
    DcuStatus s = ss->export_tree >= 0 ? Stacks_query(ss->db, (StacksSource)ss->export_tree,
                                                      &ss->stacks, cli->sort, &rs, err)
                                       : Query_view(ss->db, (ViewId)ss->export_view, &q, &rs, err);
    if (s == DCU_OK) {
        s = cli->output && strcmp(cli->output, "-") != 0
                ? Export_csvFile(rs, cli->output, cli->force, err)
                : Export_csv(rs, stdout, err);
    }
    ResultSet_delete(rs);
    return s == DCU_OK ? EXIT_OK : fail(err, status_exit(s));
}

/* Headless: replays --keys and prints each screen; --timing records per-key times. */
static int run_headless(App* app, const Cli* cli, DcuError* err) {
    FILE* timing = cli->timing ? fopen(cli->timing, "w") : NULL;
    int rc = EXIT_OK;
    if (cli->timing && !timing) {
        Error_set(err, DCU_ERR_IO, "%s: cannot create", cli->timing);
        return fail(err, EXIT_RUNTIME);
    }
    if (Script_run(app, cli->keys, stdout, timing, err) != DCU_OK) {
        rc = fail(err, err->code == DCU_ERR_IO ? EXIT_RUNTIME : EXIT_USAGE);
    }
    if (timing) {
        fclose(timing);
    }
    return rc;
}

static int run_interactive(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    /* drill-down reads dispatches by kernel: index them now, while loading shows */
    if (KernelQuery_ensureIndex(ss->db, err) != DCU_OK) {
        stop_terminal(ss);
        return fail(err, EXIT_RUNTIME);
    }
    Keymap* km = Keymap_new();
    if (Keymap_loadRc(km, NULL, err) != DCU_OK) {
        Keymap_delete(km);
        stop_terminal(ss);
        return fail(err, EXIT_USAGE);
    }
    AppOptions ao = {ss->title, cli->gemm_like, NULL};
    int w = cli->size_w, h = cli->size_h;
    if (ss->tui) {
        Term_size(&w, &h);
    }
    App* app = App_new(ss->db, km, &ao, w, h);
    int rc = EXIT_OK;
    if (ss->tui) {
        Term_loop(app);
        stop_terminal(ss);
        if (!cli->quiet) {
            print_messages(ss->db);
        }
    } else {
        rc = run_headless(app, cli, err);
    }
    App_delete(app);
    Keymap_delete(km);
    return rc;
}

static int run_report(Session* ss, DcuError* err) {
    const Cli* cli = &ss->cli;
    ReportOpts ro = {cli->format, cli->width, cli->top, ss->view, query_opts(cli), ss->title,
                     ss->stacks};
    if (!cli->output || strcmp(cli->output, "-") == 0) {
        DcuStatus s = Report_write(ss->db, &ro, stdout, err);
        return s == DCU_OK ? EXIT_OK : fail(err, status_exit(s));
    }
    OutFile of; /* a temp file renamed into place, like --export */
    DcuStatus s = OutFile_open(&of, cli->output, cli->force ? OUT_FORCE : 0, err);
    if (s == DCU_OK) {
        s = OutFile_finish(&of, Report_write(ss->db, &ro, of.fp, err), err);
    }
    return s == DCU_OK ? EXIT_OK : fail(err, status_exit(s));
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
    if (cli->mode == MODE_DUMP_RULES) {
        char* d = RuleSet_dump(ss->rules);
        fputs(d, stdout);
        free(d);
        return EXIT_OK;
    }
    return -1;
}

/* -o and --save-db refuse an existing file (no --force) before a long load, not after. */
static int check_outputs(const Cli* cli, DcuError* err) {
    int flags = cli->force ? OUT_FORCE : 0;
    if ((cli->output && strcmp(cli->output, "-") != 0 &&
         OutFile_check(cli->output, flags, err) != DCU_OK) ||
        (cli->save_db && OutFile_check(cli->save_db, flags, err) != DCU_OK)) {
        return fail(err, status_exit(err->code));
    }
    return EXIT_OK;
}

/* Checks the what-if names before anything is written. */
static int check_what_if(Session* ss, DcuError* err) {
    double sp;
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
    if ((rc = resolve_views(ss)) != EXIT_OK || (rc = check_outputs(&ss->cli, err)) != EXIT_OK ||
        (rc = load_traces(ss, err)) != EXIT_OK ||
        (rc = check_what_if(ss, err)) != EXIT_OK) {
        stop_terminal(ss);
        return rc;
    }
    const Cli* cli = &ss->cli;
    if (cli->mode == MODE_EXPORT) {
        return run_export(ss, err);
    }
    if (cli->mode == MODE_DEFAULT && (ss->tui || cli->headless)) {
        return run_interactive(ss, err);
    }
    if (cli->mode == MODE_REPORT || cli->mode == MODE_DEFAULT) {
        return run_report(ss, err);
    }
    return EXIT_OK; /* MODE_SAVE_DB: done while loading */
}

int main(int argc, char** argv) {
    setlocale(LC_ALL, "");
    static Session ss;
    DcuError err;
    Error_clear(&err);
    if (Cli_parse(&ss.cli, argc, argv, &err) != DCU_OK) {
        fprintf(stderr, "dcutop: %s\n", err.msg);
        return EXIT_USAGE;
    }
    int rc = run_mode(&ss, &err);
    if (fflush(stdout) != 0 && rc == EXIT_OK) {
        rc = EXIT_RUNTIME;
    }
    Loader_delete(ss.loader);
    TraceDb_delete(ss.db);
    RuleSet_delete(ss.rules);
    return rc;
}
