/* summarize.c - see summarize.h. */
#include "summarize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dcutop/job_summary.h"
#include "dcutop/loader.h"
#include "dcutop/trace_db.h"

/* One PATH: loaded into its own database, summarized, the database dropped. */
static DcuStatus summarize_one(const Cli* cli, RuleSet* rules, const char* path, int* written,
                               DcuError* err) {
    TraceDb* db = NULL;
    DcuStatus s = TraceDb_open(&db, cli->db_memory, err);
    if (s != DCU_OK) {
        return s;
    }
    LoadOptions lo = {0};
    lo.strict = cli->strict;
    lo.max_event_size = cli->max_event_size;
    Loader* ld = Loader_new(db, &lo);
    s = Loader_addPath(ld, path, err);
    if (s == DCU_OK) {
        s = Loader_run(ld, err);
    }
    if (s == DCU_OK) {
        s = RuleSet_apply(rules, db, err);
    }
    if (s == DCU_OK) {
        s = JobSummary_write(db, cli->output, path, cli->force, written, err);
    }
    Loader_delete(ld);
    TraceDb_delete(db);
    return s;
}

int Summarize_run(const Cli* cli, RuleSet* rules) {
    if (mkdir(cli->output, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dcutop: %s: cannot create the folder: %s\n", cli->output,
                strerror(errno));
        return EXIT_RUNTIME;
    }
    int rc = EXIT_OK, total = 0;
    for (int i = 0; i < cli->npaths; i++) {
        DcuError err;
        Error_clear(&err);
        int written = 0;
        /* absolute: the summary records where the rank's trace is, for Enter on the Ranks
         * screen of the reduce, which may run in another folder */
        char* abs = realpath(cli->paths[i], NULL);
        DcuStatus s = summarize_one(cli, rules, abs ? abs : cli->paths[i], &written, &err);
        free(abs);
        total += written;
        if (s != DCU_OK) {
            const char* why = err.msg[0] ? err.msg : Error_statusText(s);
            if (strstr(why, cli->paths[i])) { /* the message names the file already */
                fprintf(stderr, "dcutop: %s\n", why);
            } else {
                fprintf(stderr, "dcutop: %s: %s\n", cli->paths[i], why);
            }
            if (s == DCU_ERR_USAGE) {
                return EXIT_USAGE; /* an existing summary: the same for every PATH */
            }
            rc = EXIT_RUNTIME;
        } else if (!cli->quiet) {
            fprintf(stderr, "dcutop: %s: %d summar%s written to %s\n", cli->paths[i], written,
                    written == 1 ? "y" : "ies", cli->output);
        }
    }
    if (!cli->quiet) {
        fprintf(stderr, "dcutop: %d summar%s in %s; open the job with: dcutop %s\n", total,
                total == 1 ? "y" : "ies", cli->output, cli->output);
    }
    return rc;
}
