/* main.c - the only place that exits. Loads the paths, then runs the chosen mode. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcutop/category.h"
#include "dcutop/cli.h"
#include "dcutop/export.h"
#include "dcutop/loader.h"
#include "dcutop/query.h"
#include "dcutop/report.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"

static void print_messages(TraceDb* db) {
    sqlite3_stmt* st = NULL;
    if (TraceDb_prepare(db,
                        "SELECT f.path, m.line, m.message FROM load_message m"
                        " JOIN source_file f ON f.id = m.file_id ORDER BY m.id",
                        &st, NULL) != DCU_OK) {
        return;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char* p = (const char*)sqlite3_column_text(st, 0);
        const char* m = (const char*)sqlite3_column_text(st, 2);
        if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
            fprintf(stderr, "dcutop: %s: %s\n", p, m);
        } else {
            fprintf(stderr, "dcutop: %s:%lld: %s\n", p, (long long)sqlite3_column_int64(st, 1), m);
        }
    }
    sqlite3_finalize(st);
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

static int fail(const DcuError* err, int code) {
    fprintf(stderr, "dcutop: %s\n", err->msg[0] ? err->msg : Error_statusText(err->code));
    return code;
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
    if (cli.view && (view = Query_viewByName(cli.view)) < 0) {
        fprintf(stderr, "dcutop: --view: unknown view '%s' (files, hotspots, categories, api, "
                        "copies)\n", cli.view);
        RuleSet_delete(rules);
        return EXIT_USAGE;
    }
    int export_view = -1;
    if (cli.mode == MODE_EXPORT && (export_view = Query_viewByName(cli.export_view)) < 0) {
        fprintf(stderr, "dcutop: --export: unknown view '%s' (hotspots, categories, api, copies, "
                        "files)\n", cli.export_view);
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
    LoadOptions lo = {0};
    lo.strict = cli.strict;
    loader = Loader_new(db, &lo);
    for (int i = 0; i < cli.npaths; i++) {
        if (Loader_addPath(loader, cli.paths[i], &err) != DCU_OK) {
            rc = fail(&err, EXIT_RUNTIME);
            goto done;
        }
    }
    DcuStatus ls = Loader_run(loader, &err);
    if (!cli.quiet) {
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
        DcuStatus s = Query_view(db, (ViewId)export_view, &q, &rs, &err);
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
    } else if (cli.mode == MODE_REPORT || cli.mode == MODE_DEFAULT) {
        ReportOpts ro = {cli.format, cli.width, cli.top, view, q, NULL};
        char title[1024] = "";
        for (int i = 0; i < cli.npaths; i++) {
            strncat(title, i ? " " : "", sizeof(title) - strlen(title) - 1);
            strncat(title, cli.paths[i], sizeof(title) - strlen(title) - 1);
        }
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
