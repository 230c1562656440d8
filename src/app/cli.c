/* cli.c - argument parsing with getopt_long. */
#include "dcutop/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/script.h"
#include "dcutop/stacks.h"

static const char usage[] =
    "Usage: dcutop [OPTIONS] PATH...\n"
    "Open GPU profiler output (hipprof, rocprof v1/v2/v3 CSV) and show where device time goes.\n"
    "PATH is a trace folder (searched recursively) or a single file.\n"
    "\n"
    "Modes:\n"
    "  (none)                 the interactive view (the report when not on a terminal)\n"
    "  --report               print files, hotspots, categories, API and copies as text\n"
    "  --export VIEW          write one view as CSV: hotspots|categories|api|copies|files\n"
    "                         stacks|ranges (one row per call path, self and inclusive time)\n"
    "  --save-db FILE         write the loaded SQLite database to FILE\n"
    "  --dump-rules           print the category rules in effect and exit\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE      output file for --export and --report (default: standard\n"
    "                         output)\n"
    "      --force            let -o and --save-db replace an existing file\n"
    "      --format FMT       report format: text (default), csv, json\n"
    "      --view VIEW        report only one view (files, hotspots, categories, api, copies,\n"
    "                         timeline, advice: what to optimise first)\n"
    "      --amdahl-basis B   ceilings over device kernel time (kernel, default) or wall time\n"
    "                         (wall: the run's span per device, gaps and idle time included)\n"
    "      --filter REGEX     PCRE2 filter on names; a leading '!' negates; smart case\n"
    "      --sort COL[:asc|:desc]  sort by a column key (see --export headers)\n"
    "      --top N            hotspot rows in the text report (default 20, 0 = all)\n"
    "      --width N          text report width (default: $COLUMNS or 120)\n"
    "      --rules FILE       category rules (default: $XDG_CONFIG_HOME/dcutop/categories.rules\n"
    "                         if present, ahead of the built-in rules)\n"
    "      --gemm-like        count conv and attention in the GEMM group\n"
    "      --what-if SPEC     e.g. gemm=2,copy=4,softmax=inf (categories, gemm-group, non-gemm)\n"
    "      --strict           rejected rows are an error (exit 1)\n"
    "      --view stacks|ranges  the call tree of kernel launches, or the roctx/hiptx ranges\n"
    "      --tree MODE        stacks/ranges: calls (top-down, default), callers (kernel ->\n"
    "                         who launched it), callees (function -> kernels under it)\n"
    "      --fold             stacks/ranges: hide runtime and library frames\n"
    "      --theme NAME|PATH  default, mono, light, high-contrast, or a theme file\n"
    "      --no-color         attributes only (also when NO_COLOR is set)\n"
    "      --headless         no terminal: replay --keys FILE and print screens as text\n"
    "      --size WxH         headless screen size (default 100x30)\n"
    "      --keys FILE        key script for --headless (see README)\n"
    "      --timing FILE      headless: write per-key handling+drawing microseconds\n"
    "  -q, --quiet            no load messages on standard error\n"
    "  -h, --help             this help\n"
    "  -V, --version          version\n"
    "\n"
    "Exit status: 0 ok, 1 nothing could be loaded or a runtime error, 2 usage error.\n";

const char* Cli_usage(void) {
    return usage;
}

enum { OPT_REPORT = 256, OPT_EXPORT, OPT_SAVE_DB, OPT_DUMP_RULES, OPT_FORMAT, OPT_VIEW,
       OPT_FILTER, OPT_SORT, OPT_TOP, OPT_WIDTH, OPT_RULES, OPT_GEMM_LIKE, OPT_WHAT_IF,
       OPT_STRICT, OPT_AMDAHL_BASIS, OPT_HEADLESS, OPT_SIZE, OPT_KEYS, OPT_TIMING, OPT_THEME, OPT_NO_COLOR };

enum { OPT_TREE = 400, OPT_FOLD }; /* stacks and ranges */
enum { OPT_FORCE = 500 };          /* outputs */

static int parse_int(const char* s, int lo, int hi, int* out) {
    char* end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < lo || v > hi) {
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int set_mode(Cli* cli, Mode m) {
    if (cli->mode != MODE_DEFAULT && cli->mode != m) {
        return 0;
    }
    cli->mode = m;
    return 1;
}

/* After the options: the paths, and the modes and options that only go together. */
static DcuStatus check_combinations(Cli* cli, int argc, char** argv, DcuError* err) {
    for (int i = optind; i < argc; i++) {
        if (cli->npaths == CLI_MAX_PATHS) {
            return Error_set(err, DCU_ERR_USAGE, "at most %d paths", CLI_MAX_PATHS);
        }
        cli->paths[cli->npaths++] = argv[i];
    }
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
    if (cli->output && cli->mode != MODE_EXPORT && cli->mode != MODE_REPORT) {
        return Error_set(err, DCU_ERR_USAGE, "-o goes with --export or --report");
    }
    return DCU_OK;
}

DcuStatus Cli_parse(Cli* cli, int argc, char** argv, DcuError* err) {
    static const struct option longopts[] = {
        {"report", no_argument, NULL, OPT_REPORT},
        {"export", required_argument, NULL, OPT_EXPORT},
        {"save-db", required_argument, NULL, OPT_SAVE_DB},
        {"dump-rules", no_argument, NULL, OPT_DUMP_RULES},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, OPT_FORCE},
        {"format", required_argument, NULL, OPT_FORMAT},
        {"view", required_argument, NULL, OPT_VIEW},
        {"filter", required_argument, NULL, OPT_FILTER},
        {"sort", required_argument, NULL, OPT_SORT},
        {"top", required_argument, NULL, OPT_TOP},
        {"width", required_argument, NULL, OPT_WIDTH},
        {"rules", required_argument, NULL, OPT_RULES},
        {"gemm-like", no_argument, NULL, OPT_GEMM_LIKE},
        {"what-if", required_argument, NULL, OPT_WHAT_IF},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"tree", required_argument, NULL, OPT_TREE},
        {"fold", no_argument, NULL, OPT_FOLD},
        {"amdahl-basis", required_argument, NULL, OPT_AMDAHL_BASIS},
        {"headless", no_argument, NULL, OPT_HEADLESS},
        {"size", required_argument, NULL, OPT_SIZE},
        {"keys", required_argument, NULL, OPT_KEYS},
        {"timing", required_argument, NULL, OPT_TIMING},
        {"theme", required_argument, NULL, OPT_THEME},
        {"no-color", no_argument, NULL, OPT_NO_COLOR},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    memset(cli, 0, sizeof(*cli));
    cli->top = 20;
    cli->width = 120;
    const char* cols = getenv("COLUMNS");
    int cw;
    if (cols && parse_int(cols, 40, 1000, &cw)) {
        cli->width = cw;
    }
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:qhV", longopts, NULL)) != -1) {
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
        case OPT_SAVE_DB:
            cli->save_db = optarg;
            break;
        case OPT_DUMP_RULES:
            if (!set_mode(cli, MODE_DUMP_RULES)) {
                goto conflict;
            }
            break;
        case 'o':
            cli->output = optarg;
            break;
        case OPT_FORCE:
            cli->force = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "text") == 0) {
                cli->format = FMT_TEXT;
            } else if (strcmp(optarg, "csv") == 0) {
                cli->format = FMT_CSV;
            } else if (strcmp(optarg, "json") == 0) {
                cli->format = FMT_JSON;
            } else {
                return Error_set(err, DCU_ERR_USAGE, "--format must be text, csv or json");
            }
            break;
        case OPT_VIEW:
            cli->view = optarg;
            break;
        case OPT_FILTER:
            cli->filter = optarg;
            break;
        case OPT_SORT:
            cli->sort = optarg;
            break;
        case OPT_TOP:
            if (!parse_int(optarg, 0, 1000000000, &cli->top)) {
                return Error_set(err, DCU_ERR_USAGE, "--top needs a number >= 0");
            }
            break;
        case OPT_WIDTH:
            if (!parse_int(optarg, 40, 10000, &cli->width)) {
                return Error_set(err, DCU_ERR_USAGE, "--width needs a number from 40 to 10000");
            }
            break;
        case OPT_RULES:
            cli->rules = optarg;
            break;
        case OPT_GEMM_LIKE:
            cli->gemm_like = 1;
            break;
        case OPT_WHAT_IF: {
            DcuStatus s = WhatIf_parse(optarg, cli->what_if, CLI_MAX_WHATIF, &cli->n_what_if, err);
            if (s != DCU_OK) {
                return s;
            }
            break;
        }
        case OPT_STRICT:
            cli->strict = 1;
            break;
        case OPT_TREE:
            if ((cli->tree_mode = Stacks_modeByName(optarg)) < 0) {
                return Error_set(err, DCU_ERR_USAGE, "--tree must be calls, callers or callees");
            }
            break;
        case OPT_FOLD:
            cli->fold = 1;
            break;
        case OPT_AMDAHL_BASIS:
            if (strcmp(optarg, "kernel") == 0) {
                cli->amdahl_basis = 0;
            } else if (strcmp(optarg, "wall") == 0) {
                cli->amdahl_basis = 1;
            } else {
                return Error_set(err, DCU_ERR_USAGE, "--amdahl-basis must be kernel or wall");
            }
            break;
        case OPT_HEADLESS:
            cli->headless = 1;
            break;
        case OPT_SIZE:
            /* the key scripts' :resize syntax; a start screen needs at least 20x6 */
            if (!Script_parseSize(optarg, &cli->size_w, &cli->size_h) || cli->size_w < 20 ||
                cli->size_h < 6) {
                return Error_set(err, DCU_ERR_USAGE, "--size needs WxH, e.g. 100x30");
            }
            break;
        case OPT_KEYS:
            cli->keys = optarg;
            break;
        case OPT_TIMING:
            cli->timing = optarg;
            break;
        case OPT_THEME:
            cli->theme = optarg;
            break;
        case OPT_NO_COLOR:
            cli->no_color = 1;
            break;
        case 'q':
            cli->quiet = 1;
            break;
        case 'h':
            cli->mode = MODE_HELP;
            return DCU_OK;
        case 'V':
            cli->mode = MODE_VERSION;
            return DCU_OK;
        case ':':
            return Error_set(err, DCU_ERR_USAGE, "option %s needs a value", argv[optind - 1]);
        default:
            return Error_set(err, DCU_ERR_USAGE, "unknown option %s", argv[optind - 1]);
        }
    }
    return check_combinations(cli, argc, argv, err);
conflict:
    return Error_set(err, DCU_ERR_USAGE, "choose one of --report, --export, --dump-rules");
}
