/* main.c - the only place that exits. Loads the paths, then runs the chosen mode. */
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
#include "dcutop/names.h"
#include "dcutop/query.h"
#include "dcutop/report.h"
#include "dcutop/stacks.h"
#include "dcutop/script.h"
#include "dcutop/term.h"
#include "dcutop/theme.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"

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

/* The paths as given, joined by spaces, as the report and view title: a path is text from
 * the user's disk, so control and bidi characters are escaped like trace names. */
static void build_title(const Cli* cli, char* title, size_t size) {
    title[0] = '\0';
    for (int i = 0; i < cli->npaths; i++) {
        char* shown = Names_sanitize(cli->paths[i], strlen(cli->paths[i]));
        strncat(title, i ? " " : "", size - strlen(title) - 1);
        strncat(title, shown, size - strlen(title) - 1);
        free(shown);
    }
}

int main(int argc, char** argv) {
    setlocale(LC_ALL, "");
    Cli cli;
    DcuError err;
    Error_clear(&err);
    if (Cli_parse(&cli, argc, argv, &err) != DCU_OK) {
        fprintf(stderr, "dcutop: %s\n", err.msg);
        return EXIT_USAGE;
    }
    if (cli.mode == MODE_HELP) {
        fputs(Cli_usage(), stdout);
        return EXIT_OK;
    }
    if (cli.mode == MODE_VERSION) {
        printf("dcutop %s\n", DCUTOP_VERSION);
        return EXIT_OK;
    }
    RuleSet* rules = RuleSet_new(cli.gemm_like);
    if (RuleSet_loadDefault(rules, cli.rules, &err) != DCU_OK) {
        RuleSet_delete(rules);
        return fail(&err, err.code == DCU_ERR_RULES || err.code == DCU_ERR_IO ? EXIT_USAGE
                                                                              : EXIT_RUNTIME);
    }
    if (cli.mode == MODE_DUMP_RULES) {
        char* d = RuleSet_dump(rules);
        fputs(d, stdout);
        free(d);
        RuleSet_delete(rules);
        return EXIT_OK;
    }
    int view = -1;
    if (cli.view && strcmp(cli.view, "timeline") == 0) {
        view = REPORT_VIEW_TIMELINE;
    } else if (cli.view && Stacks_sourceByName(cli.view) >= 0) {
        view = REPORT_VIEW_STACKS + Stacks_sourceByName(cli.view);
    } else if (cli.view && (view = Query_viewByName(cli.view)) < 0) {
        fprintf(stderr, "dcutop: --view: unknown view '%s' (files, hotspots, categories, api, "
                        "copies, timeline, stacks, ranges)\n", cli.view);
        RuleSet_delete(rules);
        return EXIT_USAGE;
    }
    int export_view = -1;
    int export_tree = cli.mode == MODE_EXPORT ? Stacks_sourceByName(cli.export_view) : -1;
    StacksOpts so = {(StacksMode)cli.tree_mode, cli.fold, cli.filter};
    if (cli.mode == MODE_EXPORT && export_tree < 0 &&
        (export_view = Query_viewByName(cli.export_view)) < 0) {
        fprintf(stderr, "dcutop: --export: unknown view '%s' (hotspots, categories, api, copies, "
                        "files, stacks, ranges)\n", cli.export_view);
        RuleSet_delete(rules);
        return EXIT_USAGE;
    }

    TraceDb* db = NULL;
    int rc = EXIT_OK;
    Loader* loader = NULL;
    if (TraceDb_open(&db, &err) != DCU_OK) {
        rc = fail(&err, EXIT_RUNTIME);
        goto done;
    }
    /* the interactive view: a terminal on both ends, else the report (for pipes) */
    int tui = cli.mode == MODE_DEFAULT && !cli.headless && isatty(0) && isatty(1);
    Theme theme;
    if (cli.mode == MODE_DEFAULT) {
        const char* nc = getenv("NO_COLOR");
        int mono = cli.no_color || (nc && *nc);
        if (Theme_load(&theme, mono && !cli.theme ? "mono" : (cli.theme ? cli.theme : "default"),
                       themes_dir(), &err) != DCU_OK) {
            rc = fail(&err, EXIT_USAGE);
            goto done;
        }
        if (mono) {
            theme.mono = 1;
        }
    }
    if (tui && Term_init(&theme, &err) != DCU_OK) {
        rc = fail(&err, EXIT_RUNTIME);
        goto done;
    }
    LoadOptions lo = {0};
    lo.strict = cli.strict;
    lo.max_event_size = cli.max_event_size;
    if (tui) {
        lo.progress = Term_progress;
    }
    loader = Loader_new(db, &lo);
    for (int i = 0; i < cli.npaths; i++) {
        if (Loader_addPath(loader, cli.paths[i], &err) != DCU_OK) {
            rc = fail(&err, EXIT_RUNTIME);
            goto done;
        }
    }
    DcuStatus ls = Loader_run(loader, &err);
    if (tui && ls != DCU_OK) {
        Term_end();
        tui = 0;
    }
    if (!cli.quiet && !tui) { /* the interactive view prints them when it ends */
        print_messages(db);
    }
    if (ls != DCU_OK) {
        if (ls == DCU_ERR_EMPTY) {
            fprintf(stderr, "dcutop: %s\n", err.msg);
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
            rc = EXIT_RUNTIME;
            goto done;
        }
        rc = fail(&err, EXIT_RUNTIME);
        goto done;
    }
    if (RuleSet_apply(rules, db, &err) != DCU_OK) {
        rc = fail(&err, EXIT_RUNTIME);
        goto done;
    }
    if (cli.amdahl_basis && Query_setAmdahlBasis(db, cli.amdahl_basis, &err) != DCU_OK) {
        rc = fail(&err, EXIT_RUNTIME);
        goto done;
    }
    if (cli.save_db && TraceDb_save(db, cli.save_db, &err) != DCU_OK) {
        rc = fail(&err, EXIT_RUNTIME);
        goto done;
    }
    QueryOpts q = {cli.filter, cli.sort, cli.what_if, cli.n_what_if, NULL};
    if (cli.n_what_if > 0) { /* check the names before anything is written */
        double sp;
        if (Query_projection(db, cli.what_if, cli.n_what_if, &sp, &err) != DCU_OK) {
            rc = fail(&err, EXIT_USAGE);
            goto done;
        }
    }
    if (cli.mode == MODE_EXPORT) {
        ResultSet* rs = NULL;
        DcuStatus s = export_tree >= 0
                          ? Stacks_query(db, (StacksSource)export_tree, &so, cli.sort, &rs, &err)
                          : Query_view(db, (ViewId)export_view, &q, &rs, &err);
        if (s == DCU_OK) {
            if (cli.output && strcmp(cli.output, "-") != 0) {
                s = Export_csvFile(rs, cli.output, 1, &err);
            } else {
                s = Export_csv(rs, stdout, &err);
            }
        }
        ResultSet_delete(rs);
        if (s != DCU_OK) {
            rc = fail(&err, s == DCU_ERR_USAGE || s == DCU_ERR_REGEX ? EXIT_USAGE : EXIT_RUNTIME);
        }
    } else if (cli.mode == MODE_DEFAULT && (tui || cli.headless)) {
        char title[1024];
        build_title(&cli, title, sizeof(title));
        /* drill-down reads dispatches by kernel: index them now, while loading shows */
        if (KernelQuery_ensureIndex(db, &err) != DCU_OK) {
            Term_end();
            rc = fail(&err, EXIT_RUNTIME);
            goto done;
        }
        Keymap* km = Keymap_new();
        if (Keymap_loadRc(km, NULL, &err) != DCU_OK) {
            Keymap_delete(km);
            Term_end();
            rc = fail(&err, EXIT_USAGE);
            goto done;
        }
        AppOptions ao = {title, cli.gemm_like, NULL};
        int w = cli.size_w, h = cli.size_h;
        if (tui) {
            Term_size(&w, &h);
        }
        App* app = App_new(db, km, &ao, w, h);
        if (tui) {
            Term_loop(app);
            Term_end();
            if (!cli.quiet) {
                print_messages(db);
            }
        } else {
            FILE* timing = cli.timing ? fopen(cli.timing, "w") : NULL;
            if (cli.timing && !timing) {
                Error_set(&err, DCU_ERR_IO, "%s: cannot create", cli.timing);
                rc = fail(&err, EXIT_RUNTIME);
            } else if (Script_run(app, cli.keys, stdout, timing, &err) != DCU_OK) {
                rc = fail(&err, err.code == DCU_ERR_IO ? EXIT_RUNTIME : EXIT_USAGE);
            }
            if (timing) {
                fclose(timing);
            }
        }
        App_delete(app);
        Keymap_delete(km);
    } else if (cli.mode == MODE_REPORT || cli.mode == MODE_DEFAULT) {
        ReportOpts ro = {cli.format, cli.width, cli.top, view, q, NULL, so};
        char title[1024];
        build_title(&cli, title, sizeof(title));
        ro.title = title;
        FILE* out = stdout;
        if (cli.output && strcmp(cli.output, "-") != 0 && !(out = fopen(cli.output, "w"))) {
            Error_set(&err, DCU_ERR_IO, "%s: cannot create", cli.output);
            rc = fail(&err, EXIT_RUNTIME);
            goto done;
        }
        DcuStatus s = Report_write(db, &ro, out, &err);
        if (out != stdout && fclose(out) != 0 && s == DCU_OK) {
            s = Error_set(&err, DCU_ERR_IO, "%s: write error", cli.output);
        }
        if (s != DCU_OK) {
            rc = fail(&err, s == DCU_ERR_USAGE || s == DCU_ERR_REGEX ? EXIT_USAGE : EXIT_RUNTIME);
        }
    }
    if (fflush(stdout) != 0 && rc == EXIT_OK) {
        rc = EXIT_RUNTIME;
    }
done:
    Loader_delete(loader);
    TraceDb_delete(db);
    RuleSet_delete(rules);
    return rc;
}
