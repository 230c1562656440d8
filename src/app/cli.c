/* cli.c - argument parsing with getopt_long. */
#include "dcutop/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dcutop/gap_buckets.h"
#include "dcutop/script.h"
#include "dcutop/stacks.h"
#include "dcutop/trace_db.h"
#include "dcutop/user_sql.h"

static const char usage[] =
    "Usage: dcutop [OPTIONS] PATH...\n"
    "Open GPU profiler output and show where device time goes.\n"
    "PATH is a trace folder (searched recursively) or a single file.\n"
    "\n"
    "Inputs (recognised by content; see doc/formats.md):\n"
    "  CSV                    hipprof (*.hipkernel.csv, *.hiptrace.csv, *.hsatrace.csv),\n"
    "                         rocprof v1 (results*.csv), rocprofv2 (results_<pid>.csv, *_trace),\n"
    "                         rocprofv3 (*_kernel_trace.csv, *_stats.csv, *_api_trace.csv, ...)\n"
    "  databases              hipprof *.db, rocprof v1 results.db, rocprofv3 rocpd\n"
    "                         <pid>_results.db, rocmProfileData (RPD) *.rpd (read-only)\n"
    "  JSON                   chrome-trace results.json (rocprof v1, hipprof)\n"
    "  Kineto                 PyTorch profiler traces *.json, *.json.gz (ROCm and CUDA)\n"
    "  stacks                 hipprof --kernel-stack dumps, folded stacks (frame;...;leaf N)\n"
    "  step times             step-times.json (step_ms_events) or a one-column CSV of ms\n"
    "  device state           nvidia-smi query CSV (-lms) and dmon, rocm-smi / hy-smi CSV,\n"
    "                         JSON and text, amd-smi metric CSV and JSON (in a date loop too)\n"
    "\n"
    "Modes:\n"
    "  (none)                 the interactive view (the report when not on a terminal)\n"
    "  --report               print files, hotspots, categories, API and copies as text\n"
    "  --export VIEW          write one view as CSV: hotspots|categories|api|copies|files\n"
    "                         stacks|ranges (one row per call path, self and inclusive time)\n"
    "                         diff (with two paths: the per-kernel comparison), abba\n"
    "                         efficiency (one row per op and shape, against peak)\n"
    "                         idle (per device and cause), idle-gaps (per gap and host\n"
    "                         activity), launches (launch delay per dispatch)\n"
    "                         compute (rocprof-compute Speed-of-Light metrics and\n"
    "                         roofline point per kernel)\n"
    "                         allocations (device memory operations with each block's\n"
    "                         lifetime and the bytes live after it)\n"
    "                         collectives (one row per collective of a multi-rank job:\n"
    "                         bytes, arrivals, skew, last rank, latency, algbw, busbw)\n"
    "                         memory (every PyTorch [memory] event or rocpd allocation with\n"
    "                         the allocated and reserved bytes after it, op and module)\n"
    "                         ops (PyTorch: one row per step, module, op and pass, backward\n"
    "                         kernels under their forward op)\n"
    "                         repro (a PyTorch script that times each hot op alone with\n"
    "                         the shapes, dtypes and strides the trace recorded: the\n"
    "                         --top N ops (default 10), or those --filter names)\n"
    "                         device-state (every sample of the device-state logs)\n"
    "  --save-db FILE         write the loaded SQLite database to FILE\n"
    "  --summarize PATH... -o DIR\n"
    "                         the map of a large job: each PATH (one rank's trace, or a\n"
    "                         folder of ranks) loaded alone and written as a compact\n"
    "                         summary DIR/<rank>.dcusum; `dcutop DIR` opens the job from\n"
    "                         the summaries (Ranks, straggler, hotspots, categories)\n"
    "  --sql QUERY            run one read-only SQL query over the views of SCHEMA.md and\n"
    "                         print its rows (--format text|csv|json, -o FILE); .schema\n"
    "                         lists the views and columns, .ddl prints their definitions.\n"
    "                         Rows are written as they come; each statement (here and at\n"
    "                         the ; prompt, which keeps the first 10000 rows) stops past\n"
    "                         60 s, 1G of memory or 4G of temporary files (change with\n"
    "                         DCUTOP_SQL_BUDGET=TIME,MEMORY,TEMP, e.g. 300s,4G,20G; 0: none)\n"
    "  --dump-rules           print the category rules in effect and exit\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE      output file of every batch mode: --export, --report, --sql,\n"
    "                         --diff, --abba, the marks (default: standard output)\n"
    "      --force            let -o, --save-db and --timing replace an existing file or\n"
    "                         follow a link out of its folder\n"
    "      --format FMT       report format: text (default), csv, json\n"
    "      --view VIEW        report only one view (files, hotspots, categories, api, copies,\n"
    "                         timeline, trace: every dispatch and copy per GPU/queue,\n"
    "                         efficiency, advice: what to optimise first, ranks: the runs\n"
    "                         as ranks of one job, idle: why the GPU idles, per cause,\n"
    "                         collectives: each collective across the ranks, bandwidth\n"
    "                         and arrival skew,\n"
    "                         memory: peak allocated/reserved per device with the op there,\n"
    "                         the largest allocations, bytes over time,\n"
    "                         ops: device time per model module and op of a PyTorch trace,\n"
    "                         device: clocks, throttling, power per device-state log)\n"
    "      --amdahl-basis B   ceilings over device kernel time (kernel, default) or wall time\n"
    "                         (wall: the run's span per device, gaps and idle time included)\n"
    "      --filter REGEX     PCRE2 filter on names; a leading '!' negates; smart case\n"
    "      --sort COL[:asc|:desc]  sort by a column key (see --export headers)\n"
    "      --top N            rows of every table of --export and --report (default: all,\n"
    "                         but 20 hotspot rows in the text report; 0 = all)\n"
    "      --group G          kernels of one group by their category: GEMM or non-GEMM\n"
    "      --category NAME    kernels of one category (see --dump-rules); with --group,\n"
    "                         these select the rows of kernel tables and of Categories\n"
    "      --width N          text report width (default: $COLUMNS or 120)\n"
    "      --rules FILE       category rules (default: $XDG_CONFIG_HOME/dcutop/categories.rules\n"
    "                         if present, ahead of the built-in rules)\n"
    "      --gemm-like        count conv and attention in the GEMM group\n"
    "      --what-if SPEC     e.g. gemm=2,copy=4,softmax=inf (categories, gemm-group, non-gemm)\n"
    "                         or gemm=80%peak: k = time / time at 80% of peak (shapes needed)\n"
    "      --peaks FILE       device peaks (default: $XDG_CONFIG_HOME/dcutop/peaks if present,\n"
    "                         ahead of the built-in table)\n"
    "      --peak T,G         one roof for every device and type: T TFLOP/s, G GB/s\n"
    "      --collective-ref [TYPE=]FILE  nccl-tests / rccl-tests output (e.g.\n"
    "                         all_reduce_perf's) as the reference bus bandwidth of the\n"
    "                         Collectives view (% of reference per size); repeatable\n"
    "      --strict           rejected rows are an error (exit 1); with --fail-above an\n"
    "                         untrusted regression beyond the limit exits 4\n"
    "      --max-event-size SIZE  longest JSON token or event read (default 16M; K, M, G)\n"
    "      --db-memory SIZE   most memory the trace database holds; the rest goes to a\n"
    "                         temporary file in TMPDIR (default 512M; 1M to 1P; 0: no bound)\n"
    "      --threads N        threads that parse a large CSV or JSON trace and run the\n"
    "                         analyses over its dispatches (default: the CPUs available;\n"
    "                         1 to 1024)\n"
    "      --gap-buckets LIST GPU idle gap sizes, upper bounds (default\n"
    "                         10us,20us,50us,100us,1ms,10ms)\n"
    "      --roi SPEC         region of interest for every view: START..END (ms, us, ns, s\n"
    "                         from the trace's start; a leading - counts from its end),\n"
    "                         auto-top (the hottest kernel's first to last dispatch), trim,\n"
    "                         iteration:N, steady (without the first iteration)\n"
    "      --roi-from REGEX   ROI from the first dispatch of a matching kernel ...\n"
    "      --roi-to REGEX     ... to the end of the last dispatch of a matching kernel\n"
    "      --view stacks|ranges  the call tree of kernel launches, or the roctx/hiptx ranges\n"
    "      --tree MODE        stacks/ranges: calls (top-down, default), callers (kernel ->\n"
    "                         who launched it), callees (function -> kernels under it)\n"
    "      --fold             stacks/ranges: hide runtime and library frames\n"
    "      --theme NAME|PATH  default, mono, light, high-contrast, or a theme file\n"
    "      --no-color         attributes only (also when NO_COLOR is set)\n"
    "      --no-mouse         no mouse (clicks, wheel): the terminal keeps selecting text\n"
    "      --run LABEL        only this run (a label of the Runs screen); all: every run\n"
    "                         added, a total over runs; default: one run of a program, the\n"
    "                         most complete timed run (the ranks of one job: all of them)\n"
    "      --headless         no terminal: replay --keys FILE and print screens as text\n"
    "      --size WxH         headless screen size (default 100x30)\n"
    "      --keys FILE        key script for --headless (see doc/manual.md)\n"
    "      --timing FILE      write the load, first-screen and per-key times (microseconds),\n"
    "                         in the terminal view or --headless\n"
    "\n"
    "Comparison (A = baseline, B = candidate):\n"
    "      --diff A B         compare two runs; A and B are each a path or a comma-separated\n"
    "                         list of paths (repeats of one side, each loaded on its own).\n"
    "                         The Diff screen on a terminal, else the report; with --report,\n"
    "                         --export diff, --format text|csv|json and -o in batch.\n"
    "                         `dcutop A B` (two paths of one run each) opens on the Diff screen\n"
    "      --abba A1 B1 B2 A2  four runs in the order taken: effect = mean(B) - mean(A),\n"
    "                         noise = max(|A2 - A1|, |B2 - B1|), trusted only when |effect| >\n"
    "                         noise; on device kernel time, per kernel, on plain step times\n"
    "                         and on peak memory; layers that disagree are INCONCLUSIVE. Each\n"
    "                         run's metrics.csv / metrics.json: a metric beyond its tolerance\n"
    "                         REJECTS B; runs whose device, versions or clocks differ are\n"
    "                         UNTRUSTED. A run given twice (one path, one label) is refused\n"
    "      --baseline RUNS    runs of the loaded paths (labels of the Runs screen, comma-\n"
    "      --candidate RUNS   separated) marked A and B, as a and b mark them there: a diff,\n"
    "                         or an A-B-B-A for two and two (A1,A2 and B1,B2: runs A1 B1 B2\n"
    "                         A2). The Diff screen on a terminal, else the report or --export\n"
    "      --match MODE       op (default: by op identity - module path, op, input shapes,\n"
    "                         occurrence in the step - where both sides' traces carry it,\n"
    "                         PyTorch op links or op-named markers; else by full name), full\n"
    "                         (the full normalized kernel name) or short (the short name,\n"
    "                         for rebuilt code; such matches are marked fuzzy)\n"
    "      --fail-above PCT   with --diff, --abba or the marks: exit 3 when B is slower than\n"
    "                         A by more than PCT percent on any layer (device kernel time,\n"
    "                         step time) and that change is trusted (outside noise); an\n"
    "                         untrusted one, or layers that disagree (INCONCLUSIVE), exits 0\n"
    "                         with a warning (4 with --strict); the last line says which, and why\n"
    "      --gate PART        the gate looks only at a category (by name) or at the kernels\n"
    "                         whose names match a PCRE2 pattern\n"
    "\n"
    "General:\n"
    "  -q, --quiet            no load messages on standard error\n"
    "  -h, --help             this help\n"
    "  -V, --version          version\n"
    "\n"
    "Exit status: 0 ok, 1 nothing could be loaded or a runtime error, 2 usage error,\n"
    "3 the --fail-above gate failed (a trusted regression on any layer, or an A-B-B-A metric\n"
    "beyond its tolerance), 4 (--strict) the gate saw an untrusted regression, INCONCLUSIVE\n"
    "layers, A-B-B-A runs in different environments or a metric moved beyond its noise.\n";

const char* Cli_usage(void) {
    return usage;
}

enum { OPT_REPORT = 256, OPT_EXPORT, OPT_SAVE_DB, OPT_DUMP_RULES, OPT_FORMAT, OPT_VIEW,
       OPT_FILTER, OPT_SORT, OPT_TOP, OPT_WIDTH, OPT_RULES, OPT_GEMM_LIKE, OPT_WHAT_IF,
       OPT_STRICT, OPT_AMDAHL_BASIS, OPT_HEADLESS, OPT_SIZE, OPT_KEYS, OPT_TIMING, OPT_THEME, OPT_NO_COLOR,
       OPT_SUMMARIZE };

enum { OPT_TREE = 400, OPT_FOLD }; /* stacks and ranges */
enum { OPT_FORCE = 500 };          /* outputs */

enum { OPT_MAX_EVENT_SIZE = 600, OPT_DB_MEMORY, OPT_THREADS }; /* input limits */
enum { OPT_SQL = 900 };            /* user SQL */
enum { OPT_GROUP = 2100, OPT_CATEGORY }; /* kernels by the categoriser's verdict */

enum { OPT_GAP_BUCKETS = 700, OPT_ROI, OPT_ROI_FROM, OPT_ROI_TO }; /* timeline, ROI */

/* Options whose value is kept as given (checked where it is used). */
static const struct {
    int opt;
    size_t field; /* offsetof a const char* in Cli */
} string_opts[] = {
    {OPT_SAVE_DB, offsetof(Cli, save_db)},   {'o', offsetof(Cli, output)},
    {OPT_VIEW, offsetof(Cli, view)},         {OPT_FILTER, offsetof(Cli, filter)},
    {OPT_SORT, offsetof(Cli, sort)},         {OPT_RULES, offsetof(Cli, rules)},
    {OPT_KEYS, offsetof(Cli, keys)},         {OPT_TIMING, offsetof(Cli, timing)},
    {OPT_THEME, offsetof(Cli, theme)},       {OPT_GAP_BUCKETS, offsetof(Cli, gap_buckets)},
    {OPT_ROI, offsetof(Cli, roi)},           {OPT_ROI_FROM, offsetof(Cli, roi_from)},
    {OPT_ROI_TO, offsetof(Cli, roi_to)},
};

/* 1 when c is a string option (its value stored), 0 otherwise. */
static int set_string(Cli* cli, int c, const char* arg) {
    for (size_t i = 0; i < sizeof(string_opts) / sizeof(string_opts[0]); i++) {
        if (string_opts[i].opt == c) {
            memcpy((char*)cli + string_opts[i].field, &arg, sizeof(arg));
            return 1;
        }
    }
    return 0;
}

static int parse_sql_budget(const char* s, UserSqlBudget* b);

/* Checks that need every option seen. */
static DcuStatus check_combination(Cli* cli, DcuError* err) {
    if (cli->save_db) {
        if (cli->mode == MODE_DEFAULT) {
            cli->mode = MODE_SAVE_DB;
        } else {
            cli->save_db_too = 1;
        }
    }
    if (cli->mode != MODE_DUMP_RULES && cli->npaths == 0) {
        return Error_set(err, DCU_ERR_USAGE, "no trace folder or file given (try --help)");
    }
    if (cli->headless && (cli->mode != MODE_DEFAULT || !cli->keys)) {
        return Error_set(err, DCU_ERR_USAGE, "--headless needs --keys FILE and no other mode");
    }
    if (!cli->size_w) {
        cli->size_w = 100;
        cli->size_h = 30;
    }
    if (cli->mode == MODE_EXPORT && cli->format == FMT_JSON) {
        return Error_set(err, DCU_ERR_USAGE, "--export writes CSV; use --report --format json");
    }
    if (cli->mode == MODE_SUMMARIZE && (!cli->output || strcmp(cli->output, "-") == 0)) {
        return Error_set(err, DCU_ERR_USAGE, "--summarize needs -o DIR, the folder the summaries "
                         "are written to");
    }
    /* -o makes the default mode a batch one (a report, or a comparison's report) */
    if (cli->output && (cli->headless || (cli->mode != MODE_EXPORT && cli->mode != MODE_REPORT &&
                                          cli->mode != MODE_SQL && cli->mode != MODE_DEFAULT &&
                                          cli->mode != MODE_SUMMARIZE))) {
        return Error_set(err, DCU_ERR_USAGE, "-o goes with a batch mode (--export, --report, "
                         "--sql, --diff, --abba, the marks), not with --headless");
    }
    /* --timing measures what the interactive view makes its user wait for; a batch mode has
     * no screen to time, and taking the option without a word would promise a file it never
     * writes */
    if (cli->timing && (cli->mode != MODE_DEFAULT || cli->output)) {
        return Error_set(err, DCU_ERR_USAGE, "--timing times the interactive view (the terminal "
                         "or --headless); time a batch mode (--report, --export, --sql, -o) with "
                         "the shell's time");
    }
    GapBuckets gb;
    if (cli->gap_buckets && GapBuckets_parse(&gb, cli->gap_buckets, err) != DCU_OK) {
        return err->code;
    }
    if (cli->roi && (cli->roi_from || cli->roi_to)) {
        return Error_set(err, DCU_ERR_USAGE, "--roi goes without --roi-from / --roi-to");
    }
    const char* budget = getenv("DCUTOP_SQL_BUDGET");
    cli->sql_budget = (UserSqlBudget){USER_SQL_TIME_S, USER_SQL_MEMORY, USER_SQL_TEMP};
    if (budget && *budget && !parse_sql_budget(budget, &cli->sql_budget)) {
        return Error_set(err, DCU_ERR_USAGE, "DCUTOP_SQL_BUDGET needs TIME,MEMORY,TEMP, e.g. "
                         "60s,1G,4G (seconds, then sizes; 0: no bound)");
    }
    return Cli_roi(cli, &cli->roi_spec, err);
}

enum { OPT_DIFF = 800, OPT_ABBA, OPT_MATCH, OPT_FAIL_ABOVE, OPT_GATE, OPT_BASELINE,
       OPT_CANDIDATE }; /* comparison */

enum { OPT_RUN = 1000 };           /* runs */

enum { OPT_PEAKS = 1100, OPT_PEAK }; /* efficiency */

enum { OPT_NO_MOUSE = 1200 };        /* terminal */

enum { OPT_COLL_REF = 1300 };        /* collectives */

static int parse_int(const char* s, int lo, int hi, int* out) {
    char* end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < lo || v > hi) {
        return 0;
    }
    *out = (int)v;
    return 1;
}

/* "16M", "1G", "65536", "512K", "1T" (binary units; decimal digits only) -> bytes in [lo, hi]. */
static int parse_size(const char* s, int64_t lo, int64_t hi, int64_t* out) {
    char* end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *s < '0' || *s > '9' || errno == ERANGE) {
        return 0;
    }
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    case 'T': case 't': shift = 40; end++; break;
    case 'P': case 'p': shift = 50; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'I') {
        end++;
    }
    if (*end == 'B' || *end == 'b') {
        end++;
    }
    if (*end || v > (hi >> shift)) {
        return 0;
    }
    *out = (int64_t)v << shift;
    return *out >= lo;
}

/* DCUTOP_SQL_BUDGET=TIME,MEMORY,TEMP: "60s,1G,4G" (whole seconds, "s" optional; 0: no bound). */
static int parse_sql_budget(const char* s, UserSqlBudget* b) {
    char buf[96];
    int time_s;
    if (strlen(s) >= sizeof(buf)) {
        return 0;
    }
    snprintf(buf, sizeof(buf), "%s", s);
    char* mem = strchr(buf, ',');
    char* temp = mem ? strchr(mem + 1, ',') : NULL;
    if (!temp) {
        return 0;
    }
    *mem++ = '\0';
    *temp++ = '\0';
    size_t n = strlen(buf);
    if (n > 1 && buf[n - 1] == 's') {
        buf[n - 1] = '\0';
    }
    if (!parse_int(buf, 0, 86400 * 365, &time_s) || !parse_size(mem, 0, 1LL << 50, &b->memory) ||
        !parse_size(temp, 0, 1LL << 50, &b->temp)) {
        return 0;
    }
    b->time_s = time_s;
    return 1;
}

/* A word from a NULL-terminated list: its index in *out. */
static const char* const formats[] = {"text", "csv", "json", NULL}; /* FMT_* order */
static int parse_choice(const char* s, const char* const* words, int* out) {
    for (int i = 0; words[i]; i++) {
        if (strcmp(s, words[i]) == 0) {
            *out = i;
            return 1;
        }
    }
    return 0;
}

static int parse_format(const char* s, OutFormat* out) {
    int f;
    if (!parse_choice(s, formats, &f)) {
        return 0;
    }
    *out = (OutFormat)f;
    return 1;
}

static int set_mode(Cli* cli, Mode m) {
    if (cli->mode != MODE_DEFAULT && cli->mode != m) {
        return 0;
    }
    cli->mode = m;
    return 1;
}

DcuStatus Cli_roi(const Cli* cli, RoiSpec* spec, DcuError* err) {
    memset(spec, 0, sizeof(*spec));
    if (cli->roi) {
        return Roi_parse(cli->roi, spec, err);
    }
    if (cli->roi_from || cli->roi_to) {
        spec->kind = ROI_MATCH;
        if (strlen(cli->roi_from ? cli->roi_from : "") >= sizeof(spec->from) ||
            strlen(cli->roi_to ? cli->roi_to : "") >= sizeof(spec->to)) {
            return Error_set(err, DCU_ERR_USAGE, "--roi-from/--roi-to: pattern too long");
        }
        snprintf(spec->from, sizeof(spec->from), "%s", cli->roi_from ? cli->roi_from : "");
        snprintf(spec->to, sizeof(spec->to), "%s", cli->roi_to ? cli->roi_to : "");
    }
    return DCU_OK;
}

/* --diff, --abba, --match, --fail-above, --gate */
static DcuStatus parse_compare(Cli* cli, int c, const char* arg, DcuError* err) {
    char* end;
    switch (c) {
    case OPT_DIFF:
        cli->diff = 1;
        break;
    case OPT_ABBA:
        cli->abba = 1;
        break;
    case OPT_MATCH:
        if (strcmp(arg, "short") != 0 && strcmp(arg, "full") != 0 && strcmp(arg, "op") != 0) {
            return Error_set(err, DCU_ERR_USAGE, "--match must be op, full or short");
        }
        cli->match_short = strcmp(arg, "short") == 0;
        cli->match_full = strcmp(arg, "full") == 0;
        break;
    case OPT_FAIL_ABOVE:
        cli->fail_above = strtod(arg, &end);
        if (*arg == '\0' || *end || !(cli->fail_above >= 0) || cli->fail_above > 1e9) {
            return Error_set(err, DCU_ERR_USAGE, "--fail-above needs a percentage >= 0");
        }
        cli->gate_on = 1;
        break;
    case OPT_BASELINE:
        cli->mark_a = arg;
        break;
    case OPT_CANDIDATE:
        cli->mark_b = arg;
        break;
    default:
        cli->gate = arg;
        break;
    }
    return DCU_OK;
}

/* The comparison options against the mode and the paths, after parsing. */
static DcuStatus check_compare(Cli* cli, DcuError* err) {
    if ((cli->mark_a || cli->mark_b) && (!cli->mark_a || !cli->mark_b || cli->diff || cli->abba)) {
        return Error_set(err, DCU_ERR_USAGE, "--baseline RUNS and --candidate RUNS go together, "
                                             "without --diff or --abba");
    }
    if (cli->mark_a && cli->mode != MODE_DEFAULT && cli->mode != MODE_REPORT &&
        !(cli->mode == MODE_EXPORT && (strcmp(cli->export_view, "diff") == 0 ||
                                       strcmp(cli->export_view, "abba") == 0))) {
        return Error_set(err, DCU_ERR_USAGE, "--baseline and --candidate go with --report or "
                                             "--export diff|abba");
    }
    if (cli->mark_a) {
        if (cli->gate && !cli->gate_on) {
            return Error_set(err, DCU_ERR_USAGE, "--gate goes with --fail-above PCT");
        }
        if (cli->gate_on && cli->mode == MODE_DEFAULT) {
            cli->mode = MODE_REPORT; /* a gate is for scripts: the report, never the TUI */
        }
        return DCU_OK;
    }
    if (cli->mode == MODE_EXPORT && strcmp(cli->export_view, "diff") == 0 && !cli->abba) {
        cli->diff = 1;
    }
    if (cli->mode == MODE_EXPORT && strcmp(cli->export_view, "abba") == 0) {
        cli->abba = 1;
    }
    if (cli->diff && cli->abba) {
        return Error_set(err, DCU_ERR_USAGE, "choose one of --diff and --abba");
    }
    if (cli->diff && cli->npaths != 2) {
        return Error_set(err, DCU_ERR_USAGE, "--diff needs two paths, A and B (each a path or "
                                             "a comma-separated list of repeats)");
    }
    if (cli->abba && cli->npaths != 4) {
        return Error_set(err, DCU_ERR_USAGE, "--abba needs four paths: A1 B1 B2 A2");
    }
    if ((cli->diff || cli->abba) && cli->mode != MODE_DEFAULT && cli->mode != MODE_REPORT &&
        cli->mode != MODE_EXPORT) {
        return Error_set(err, DCU_ERR_USAGE, "--diff and --abba go with --report or --export");
    }
    if (cli->mode == MODE_EXPORT && (cli->diff || cli->abba) &&
        strcmp(cli->export_view, cli->abba ? "abba" : "diff") != 0) {
        return Error_set(err, DCU_ERR_USAGE, "with %s, --export writes %s",
                         cli->abba ? "--abba" : "--diff", cli->abba ? "abba" : "diff");
    }
    if (cli->gate_on && !cli->diff && !cli->abba) {
        return Error_set(err, DCU_ERR_USAGE,
                         "--fail-above goes with --diff A B, --abba A1 B1 B2 A2 or "
                         "--baseline RUNS --candidate RUNS");
    }
    if (cli->gate && !cli->gate_on) {
        return Error_set(err, DCU_ERR_USAGE, "--gate goes with --fail-above PCT");
    }
    if (cli->gate_on && cli->mode == MODE_DEFAULT) {
        cli->mode = MODE_REPORT; /* a gate is for scripts: the report, never the TUI */
    }
    return DCU_OK;
}

/* Options with a value checked here, out of Cli_parse's switch. Returns 0 when c is not
 * one of them; else 1 with *s the status. */
static int valued_option(Cli* cli, int c, const char* arg, DcuStatus* s, DcuError* err) {
    *s = DCU_OK;
    switch (c) {
    case OPT_MAX_EVENT_SIZE:
        if (!parse_size(arg, 1024, 1LL << 32, &cli->max_event_size)) {
            *s = Error_set(err, DCU_ERR_USAGE,
                           "--max-event-size needs a size from 1K to 4G, e.g. 16M");
        }
        return 1;
    case OPT_DB_MEMORY:
        if (!parse_size(arg, 0, 1LL << 50, &cli->db_memory) ||
            (cli->db_memory > 0 && cli->db_memory < (1LL << 20))) {
            *s = Error_set(err, DCU_ERR_USAGE,
                           "--db-memory needs 0 (no bound) or a size from 1M to 1P, e.g. 2G");
        }
        return 1;
    case OPT_THREADS:
        if (!parse_int(arg, 1, 1024, &cli->threads)) {
            *s = Error_set(err, DCU_ERR_USAGE, "--threads needs a number from 1 to 1024");
        }
        return 1;
    case OPT_AMDAHL_BASIS:
        if (strcmp(arg, "kernel") != 0 && strcmp(arg, "wall") != 0) {
            *s = Error_set(err, DCU_ERR_USAGE, "--amdahl-basis must be kernel or wall");
        }
        cli->amdahl_basis = strcmp(arg, "wall") == 0;
        return 1;
    case OPT_PEAKS:
        cli->peaks = arg;
        return 1;
    case OPT_NO_MOUSE:
        cli->no_mouse = 1;
        return 1;
    case OPT_COLL_REF:
        if (cli->n_coll_refs == CLI_MAX_COLL_REFS) {
            *s = Error_set(err, DCU_ERR_USAGE, "--collective-ref: at most %d files",
                           CLI_MAX_COLL_REFS);
            return 1;
        }
        cli->coll_refs[cli->n_coll_refs++] = arg;
        return 1;
    case OPT_PEAK:
        cli->has_peak = 1;
        *s = Peaks_parseOverride(arg, &cli->peak, err);
        return 1;
    default:
        return 0;
    }
}

/* --group GEMM|non-GEMM or --category NAME: one selection (the category table checks a name
 * once the trace is loaded, main.c). */
static DcuStatus parse_selection(Cli* cli, int group, const char* arg, DcuError* err) {
    if (cli->category) {
        return Error_set(err, DCU_ERR_USAGE, "give one of --group or --category, once");
    }
    if (!group) {
        cli->category = arg;
        return DCU_OK;
    }
    if (strcasecmp(arg, "GEMM") == 0 || strcasecmp(arg, "gemm-group") == 0) {
        cli->category = "GEMM";
    } else if (strcasecmp(arg, "non-GEMM") == 0 || strcasecmp(arg, "nonGEMM") == 0) {
        cli->category = "non-GEMM";
    } else {
        return Error_set(err, DCU_ERR_USAGE, "--group must be GEMM or non-GEMM");
    }
    return DCU_OK;
}

/* The options of the report, tables and screens that Cli_parse passes on: 1 when c is one
 * (*s its status), 0 otherwise. */
static int table_option(Cli* cli, int c, const char* arg, DcuStatus* s, DcuError* err) {
    *s = DCU_OK;
    switch (c) {
    case OPT_FORCE:
        cli->force = 1;
        return 1;
    case OPT_FORMAT:
        if (!parse_format(arg, &cli->format)) {
            *s = Error_set(err, DCU_ERR_USAGE, "--format must be text, csv or json");
        }
        return 1;
    case OPT_TOP:
        if (!parse_int(arg, 0, 1000000000, &cli->top)) {
            *s = Error_set(err, DCU_ERR_USAGE, "--top needs a number >= 0");
        }
        cli->top_set = 1;
        return 1;
    case OPT_GROUP:
    case OPT_CATEGORY:
        *s = parse_selection(cli, c == OPT_GROUP, arg, err);
        return 1;
    case OPT_WIDTH:
        if (!parse_int(arg, 40, 10000, &cli->width)) {
            *s = Error_set(err, DCU_ERR_USAGE, "--width needs a number from 40 to 10000");
        }
        return 1;
    case OPT_GEMM_LIKE:
        cli->gemm_like = 1;
        return 1;
    case OPT_WHAT_IF:
        *s = WhatIf_parse(arg, cli->what_if, CLI_MAX_WHATIF, &cli->n_what_if, err);
        return 1;
    case OPT_STRICT:
        cli->strict = 1;
        return 1;
    case OPT_TREE:
        if ((cli->tree_mode = Stacks_modeByName(arg)) < 0) {
            *s = Error_set(err, DCU_ERR_USAGE, "--tree must be calls, callers or callees");
        }
        return 1;
    case OPT_FOLD:
        cli->fold = 1;
        return 1;
    case OPT_HEADLESS:
        cli->headless = 1;
        return 1;
    case OPT_SIZE:
        /* the key scripts' :resize syntax; a start screen needs at least 20x6 */
        if (!Script_parseSize(arg, &cli->size_w, &cli->size_h) || cli->size_w < 20 ||
            cli->size_h < 6) {
            *s = Error_set(err, DCU_ERR_USAGE, "--size needs WxH, e.g. 100x30");
        }
        return 1;
    case OPT_NO_COLOR:
        cli->no_color = 1;
        return 1;
    default:
        return 0;
    }
}

/* The long options (getopt_long); their help is the usage text above. */
static const struct option longopts[] = {
    {"report", no_argument, NULL, OPT_REPORT},
    {"export", required_argument, NULL, OPT_EXPORT},
    {"save-db", required_argument, NULL, OPT_SAVE_DB},
    {"summarize", no_argument, NULL, OPT_SUMMARIZE},
    {"sql", required_argument, NULL, OPT_SQL},
    {"dump-rules", no_argument, NULL, OPT_DUMP_RULES},
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"view", required_argument, NULL, OPT_VIEW},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"sort", required_argument, NULL, OPT_SORT},
    {"top", required_argument, NULL, OPT_TOP},
    {"group", required_argument, NULL, OPT_GROUP},
    {"category", required_argument, NULL, OPT_CATEGORY},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"rules", required_argument, NULL, OPT_RULES},
    {"gemm-like", no_argument, NULL, OPT_GEMM_LIKE},
    {"what-if", required_argument, NULL, OPT_WHAT_IF},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"max-event-size", required_argument, NULL, OPT_MAX_EVENT_SIZE},
    {"db-memory", required_argument, NULL, OPT_DB_MEMORY},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"tree", required_argument, NULL, OPT_TREE},
    {"fold", no_argument, NULL, OPT_FOLD},
    {"amdahl-basis", required_argument, NULL, OPT_AMDAHL_BASIS},
    {"headless", no_argument, NULL, OPT_HEADLESS},
    {"size", required_argument, NULL, OPT_SIZE},
    {"keys", required_argument, NULL, OPT_KEYS},
    {"timing", required_argument, NULL, OPT_TIMING},
    {"theme", required_argument, NULL, OPT_THEME},
    {"no-color", no_argument, NULL, OPT_NO_COLOR},
    {"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
    {"gap-buckets", required_argument, NULL, OPT_GAP_BUCKETS},
    {"roi", required_argument, NULL, OPT_ROI},
    {"roi-from", required_argument, NULL, OPT_ROI_FROM},
    {"roi-to", required_argument, NULL, OPT_ROI_TO},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"abba", no_argument, NULL, OPT_ABBA},
    {"match", required_argument, NULL, OPT_MATCH},
    {"fail-above", required_argument, NULL, OPT_FAIL_ABOVE},
    {"gate", required_argument, NULL, OPT_GATE},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"candidate", required_argument, NULL, OPT_CANDIDATE},
    {"peaks", required_argument, NULL, OPT_PEAKS},
    {"peak", required_argument, NULL, OPT_PEAK},
    {"collective-ref", required_argument, NULL, OPT_COLL_REF},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {"run", required_argument, NULL, OPT_RUN},
    {NULL, 0, NULL, 0},
};

DcuStatus Cli_parse(Cli* cli, int argc, char** argv, DcuError* err) {
    memset(cli, 0, sizeof(*cli));
    cli->top = 20;
    cli->width = 120;
    cli->db_memory = TRACE_DB_DEFAULT_MEMORY;
    const char* cols = getenv("COLUMNS");
    int cw;
    if (cols && parse_int(cols, 40, 1000, &cw)) {
        cli->width = cw;
    }
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:qhV", longopts, NULL)) != -1) {
        if (set_string(cli, c, optarg)) {
            continue;
        }
        switch (c) {
        case OPT_REPORT:
            if (!set_mode(cli, MODE_REPORT)) {
                goto conflict;
            }
            break;
        case OPT_EXPORT:
            if (!set_mode(cli, MODE_EXPORT)) {
                goto conflict;
            }
            cli->export_view = optarg;
            break;
        case OPT_SQL:
            if (!set_mode(cli, MODE_SQL)) {
                goto conflict;
            }
            cli->sql = optarg;
            break;
        case OPT_DUMP_RULES:
            if (!set_mode(cli, MODE_DUMP_RULES)) {
                goto conflict;
            }
            break;
        case OPT_SUMMARIZE:
            if (!set_mode(cli, MODE_SUMMARIZE)) {
                goto conflict;
            }
            break;
        case OPT_DIFF:
        case OPT_ABBA:
        case OPT_MATCH:
        case OPT_FAIL_ABOVE:
        case OPT_GATE:
        case OPT_BASELINE:
        case OPT_CANDIDATE: {
            DcuStatus st = parse_compare(cli, c, optarg, err);
            if (st != DCU_OK) {
                return st;
            }
            break;
        }
        case 'q':
            cli->quiet = 1;
            break;
        case OPT_RUN:
            cli->run = optarg;
            break;
        case 'h':
            cli->mode = MODE_HELP;
            return DCU_OK;
        case 'V':
            cli->mode = MODE_VERSION;
            return DCU_OK;
        case ':':
            return Error_set(err, DCU_ERR_USAGE, "option %s needs a value", argv[optind - 1]);
        default: {
            DcuStatus s;
            if (!table_option(cli, c, optarg, &s, err) && !valued_option(cli, c, optarg, &s, err)) {
                return Error_set(err, DCU_ERR_USAGE, "unknown option %s", argv[optind - 1]);
            }
            if (s != DCU_OK) {
                return s;
            }
        }
        }
    }
    for (int i = optind; i < argc; i++) {
        if (cli->npaths == CLI_MAX_PATHS) {
            return Error_set(err, DCU_ERR_USAGE, "at most %d paths", CLI_MAX_PATHS);
        }
        cli->paths[cli->npaths++] = argv[i];
    }
    DcuStatus cs = check_combination(cli, err);
    return cs != DCU_OK ? cs : check_compare(cli, err);
conflict:
    return Error_set(err, DCU_ERR_USAGE, "choose one of --report, --export, --sql, --dump-rules");
}
