/* test_runs.c - runs (README "Runs"): which files form a run, labels, supersession only
 * inside a run, complementary runs combined by layer (a PMC run gives counters, not times),
 * and the scope (Runs_setScope rebuilds kernel_summary). Every test writes its own files in
 * a fresh temp folder and checks exact sums computed from the rows it wrote. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "dcutop/category.h"
#include "dcutop/loader.h"
#include "dcutop/runs.h"
#include "dcutop/timeline.h"
#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

/* rocprofv3 kernel stats and kernel trace (FORMATS.md), rocprof v1 results.csv */
#define V3_STATS_HDR \
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\"," \
    "\"StdDev\"\n"
#define V3_TRACE_HDR                                                                              \
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","           \
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n"
#define V1_HDR                                                                             \
    "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\","    \
    "\"grd\",\"wgr\",\"lds\",\"scr\",\"vgpr\",\"sgpr\",\"fbar\",\"sig\",\"obj\","           \
    "\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"\n"
#define V1_STATS_HDR "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"

static char* dirs[4];
static int ndirs;

static char* new_dir(void) {
    char* d = TestUtil_tempDir();
    dirs[ndirs++] = d;
    return d;
}

static int remove_dirs(void** state) {
    (void)state;
    for (int i = 0; i < ndirs; i++) {
        TestUtil_rmTree(dirs[i]);
        free(dirs[i]);
    }
    ndirs = 0;
    return 0;
}

static void put(const char* dir, const char* name, const char* text) {
    char* p = xasprintf("%s/%s", dir, name);
    char* slash = strrchr(p, '/');
    *slash = '\0';
    mkdir(p, 0755); /* one level of sub-folder is enough here */
    free(p);
    free(TestUtil_writeFile(dir, name, text, strlen(text)));
}

/* a v3 kernel trace of n dispatches of kernel k, each dur ns, from t0 */
static char* v3_trace(const char* k, int n, int64_t t0, int64_t dur) {
    char* s = xstrdup(V3_TRACE_HDR);
    for (int i = 0; i < n; i++) {
        char* l = xasprintf("%s\"KERNEL_DISPATCH\",1,1,7,%d,1,\"%s\",%d,%lld,%lld\n", s, i + 1, k,
                            i + 1, (long long)(t0 + i * 2 * dur),
                            (long long)(t0 + i * 2 * dur + dur));
        free(s);
        s = l;
    }
    return s;
}

static char* q1(TraceDb* db, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static char* q1(TraceDb* db, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return TestUtil_text(db, buf);
}

static void assert_sql_text(TraceDb* db, const char* sql, const char* want) {
    char* got = TestUtil_text(db, sql);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s\n  got:  %s\n  want: %s\n", sql, got, want);
    }
    assert_string_equal(got, want);
    free(got);
}

static TraceDb* load_paths(const char* const* paths, int n) {
    TraceDb* db = NULL;
    DcuError err;
    assert_int_equal(TraceDb_open(&db, TRACE_DB_DEFAULT_MEMORY, &err), DCU_OK);
    Loader* l = Loader_new(db, NULL);
    for (int i = 0; i < n; i++) {
        assert_int_equal(Loader_addPath(l, paths[i], &err), DCU_OK);
    }
    assert_int_equal(Loader_run(l, &err), DCU_OK);
    Loader_delete(l);
    RuleSet* r = RuleSet_new(0);
    assert_int_equal(RuleSet_parse(r, RuleSet_builtinText(), "built-in", &err), DCU_OK);
    assert_int_equal(RuleSet_apply(r, db, &err), DCU_OK);
    RuleSet_delete(r);
    return db;
}

/* Three rocprofv3 processes in one folder, plus an untagged rocprof v1 results.csv: pid
 * files group by pid; the untagged file is a run of its own (several tagged runs). */
static void test_pids_in_one_folder(void** state) {
    (void)state;
    char* d = new_dir();
    char* t = v3_trace("kA", 4, 1000, 100);
    put(d, "111_kernel_trace.csv", t);
    put(d, "111_kernel_stats.csv", V3_STATS_HDR "\"kA\",4,400,100,100.0,100,100,0\n");
    put(d, "222_kernel_stats.csv", V3_STATS_HDR "\"kB\",3,3000,1000,100.0,1000,1000,0\n");
    put(d, "333_kernel_stats.csv", V3_STATS_HDR "\"kC\",2,50,25,100.0,25,25,0\n");
    put(d, "results.csv",
        V1_HDR "0,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",10,20,30,40,10\n");
    put(d, "README.md", "not a trace\n");
    free(t);
    TraceDb* db = TestUtil_load(d, NULL);
    assert_int_equal(Runs_count(db), 4);
    assert_sql_text(db, "SELECT group_concat(label, '|') FROM (SELECT label FROM run ORDER BY id)",
                    "111|222|333|untagged");
    assert_sql_text(db, "SELECT group_concat(f.name || '=' || r.label, '|') FROM (SELECT * FROM"
                        " source_file ORDER BY id) f JOIN run r ON r.id = f.run_id",
                    "111_kernel_stats.csv=111|111_kernel_trace.csv=111|222_kernel_stats.csv=222|"
                    "333_kernel_stats.csv=333|results.csv=untagged");
    /* the README is in no run */
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM source_file WHERE run_id IS NULL"), 1);
    /* superseded only inside run 111: the dispatch trace beats its own stats */
    assert_sql_text(db, "SELECT group_concat(f.name || '>' || s.name, '|') FROM source_layer l"
                        " JOIN source_file f ON f.id = l.file_id"
                        " JOIN source_file s ON s.id = l.superseded_by WHERE NOT l.used",
                    "111_kernel_stats.csv>111_kernel_trace.csv");
    /* scope all: every run's own kernel time once */
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"),
                     400 + 3000 + 50 + 10);
    assert_sql_text(db, "SELECT group_concat(mode, ',') FROM (SELECT mode FROM run ORDER BY id)",
                    "trace,stats,stats,trace");
    TraceDb_delete(db);
}

/* The case that failed before runs: an untagged results.csv marked the stats of two other
 * processes of its folder as superseded (a file without a pid matched every run). */
static void test_no_cross_run_supersession(void** state) {
    (void)state;
    char* d = new_dir();
    put(d, "results.csv",
        V1_HDR "0,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",10,20,30,40,10\n");
    put(d, "4001_kernel_stats.csv", V3_STATS_HDR "\"kB\",3,3000,1000,100.0,1000,1000,0\n");
    put(d, "4002_kernel_stats.csv", V3_STATS_HDR "\"kC\",2,50,25,100.0,25,25,0\n");
    TraceDb* db = TestUtil_load(d, NULL);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM source_layer WHERE NOT used"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 3060);
    TraceDb_delete(db);
}

/* Two runs in sibling folders: a results.csv in one never supersedes the stats of the other;
 * labels are the folders relative to the PATH. */
static void test_sibling_folders(void** state) {
    (void)state;
    char* d = new_dir();
    put(d, "r1/results.csv",
        V1_HDR "0,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",10,20,30,40,10\n");
    put(d, "r2/results.stats.csv", V1_STATS_HDR "\"kD\",5,500,100,100.0\n");
    put(d, "r2/results.hip_stats.csv", V1_STATS_HDR "\"hipMalloc\",1,77,77,100.0\n");
    TraceDb* db = TestUtil_load(d, NULL);
    assert_sql_text(db, "SELECT group_concat(label || ':' || files || ':' || layers || ':' || mode,"
                        " '|') FROM (SELECT * FROM run ORDER BY id)",
                    "r1:1:kernel:trace|r2:2:kernel,api:stats");
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM source_layer WHERE NOT used"), 0);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 510);
    assert_sql_text(db, "SELECT clock FROM run WHERE label = 'r2'",
                    "none: aggregates only, no timestamps");
    assert_sql_text(db, "SELECT clock FROM run WHERE label = 'r1'",
                    "rocprof: ns, host monotonic clock (since boot)");
    TraceDb_delete(db);
}

/* Untagged files in a folder with exactly one tagged run belong to that run. */
static void test_untagged_join_single_run(void** state) {
    (void)state;
    char* d = new_dir();
    char* t = v3_trace("kA", 2, 1000, 100);
    put(d, "5150_kernel_trace.csv", t);
    free(t);
    put(d, "weather.hiptrace.csv", V1_STATS_HDR "\"hipMalloc\",1,77,77,100.0\n");
    TraceDb* db = TestUtil_load(d, NULL);
    assert_int_equal(Runs_count(db), 1);
    assert_int_equal(TestUtil_int(db, "SELECT count(DISTINCT run_id) FROM source_file"), 1);
    char* base = strrchr(d, '/') + 1;
    char* label = q1(db, "SELECT label FROM run");
    assert_string_equal(label, base); /* the one run at the top of the PATH: the PATH's name */
    free(label);
    TraceDb_delete(db);
}

/* Two PATHs each holding a results.csv: two runs named after the paths, file names that say
 * which path they came from, nothing merged silently. */
static void test_two_paths(void** state) {
    (void)state;
    char* top = new_dir();
    put(top, "A/results.csv",
        V1_HDR "0,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",10,20,30,40,10\n");
    put(top, "B/results.csv",
        V1_HDR "0,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",10,20,50,60,30\n");
    char* a = xasprintf("%s/A", top);
    char* b = xasprintf("%s/B/", top);
    const char* paths[] = {a, b};
    TraceDb* db = load_paths(paths, 2);
    assert_sql_text(db, "SELECT group_concat(label, '|') FROM (SELECT label FROM run ORDER BY id)",
                    "A|B");
    assert_sql_text(db, "SELECT group_concat(name, '|') FROM (SELECT name FROM source_file"
                        " ORDER BY id)",
                    "A/results.csv|B/results.csv");
    assert_int_equal(Runs_byLabel(db, "B"), 2);
    assert_int_equal(Runs_byLabel(db, "C"), 0);
    free(a);
    free(b);
    TraceDb_delete(db);
}

/* Complementary runs of one program: a stats run gives the kernel layer, so the PMC run in
 * the sibling folder gives its counters but not its (distorted) times. Alone, the PMC run's
 * times are used, with the warning. */
static void test_pmc_run_gives_counters(void** state) {
    (void)state;
    char* d = new_dir();
    put(d, "stats/results.stats.csv", V1_STATS_HDR "\"kD\",2,200,100,100.0\n");
    put(d, "pmc/results.csv",
        "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\","
        "\"grd\",\"wgr\",\"lds\",\"scr\",\"vgpr\",\"sgpr\",\"fbar\",\"sig\",\"obj\","
        "\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\",\"SQ_WAVES\"\n"
        "0,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",10,20,8020,8030,8000,64\n"
        "1,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",9000,9010,17010,17020,8000,32\n");
    TraceDb* db = TestUtil_load(d, NULL);
    assert_sql_text(db, "SELECT group_concat(label || ':' || mode, '|') FROM (SELECT * FROM run"
                        " ORDER BY id)",
                    "pmc:pmc|stats:stats");
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 200);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM used_file WHERE layer = 'counter'"), 1);
    Timeline* tl = NULL;
    DcuError err;
    assert_int_equal(Timeline_new(db, &tl, &err), DCU_OK);
    assert_int_equal(Timeline_summary(tl)->counter_values, 2);
    assert_int_equal(Timeline_summary(tl)->pmc, 0);
    Timeline_delete(tl);
    /* the PMC run alone: its times, flagged */
    int64_t pmc = Runs_byLabel(db, "pmc");
    assert_int_equal(Runs_setScope(db, &pmc, 1, &err), DCU_OK);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 16000);
    assert_int_equal(Timeline_new(db, &tl, &err), DCU_OK);
    assert_int_equal(Timeline_summary(tl)->pmc, 1);
    Timeline_delete(tl);
    TraceDb_delete(db);
}

/* A stack run beside a stats run: the stacks (a kernel-stack dump naming its kernel) are
 * matched to the stats run's kernel by name and share its time. */
static void test_stack_run_gives_stacks(void** state) {
    (void)state;
    char* d = new_dir();
    put(d, "stats/results.stats.csv", V1_STATS_HDR "\"K\",4,1000,250,76.9\n\"J\",1,300,300,23.1\n");
    put(d, "stack/kernel_stack.txt",
        "kernel: K\n#0 launch () from libamdhip64.so\n#1 f () at a.c:1\n\n"
        "kernel: K\n#0 launch () from libamdhip64.so\n#1 g () at a.c:2\n");
    TraceDb* db = TestUtil_load(d, NULL);
    assert_sql_text(db, "SELECT group_concat(label || ':' || mode || ':' || layers, '|') FROM"
                        " (SELECT * FROM run ORDER BY id)",
                    "stack:stack:stack|stats:stats:kernel");
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 1300);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel_stack WHERE match = 'name'"),
                     2);
    assert_int_equal(TestUtil_int(db, "SELECT sum(time_ns) FROM kernel_stack"), 1000);
    TraceDb_delete(db);
}

/* The scope: every run after loading (RUNS_ALL), one run, then the default (one run: r1, more
 * calls); a bad id changes nothing. */
static void test_scope(void** state) {
    (void)state;
    char* d = new_dir();
    put(d, "r1/results.stats.csv", V1_STATS_HDR "\"kD\",5,500,100,100.0\n");
    put(d, "r2/results.stats.csv", V1_STATS_HDR "\"kD\",1,7,7,100.0\n\"kE\",1,3,3,0.0\n");
    TraceDb* db = TestUtil_load(d, NULL);
    DcuError err;
    assert_int_equal(Runs_sameLayer(db), 2);
    assert_int_equal(Runs_inScope(db), 2);
    assert_int_equal(Runs_scopeRun(db), RUNS_ALL);
    int64_t r2 = Runs_byLabel(db, "r2");
    assert_int_equal(Runs_setScope(db, &r2, 1, &err), DCU_OK);
    assert_int_equal(Runs_scopeRun(db), r2);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 10);
    assert_int_equal(TestUtil_int(db, "SELECT sum(calls) FROM kernel_summary"), 2);
    int64_t bad = 99;
    assert_int_equal(Runs_setScope(db, &bad, 1, &err), DCU_ERR_USAGE);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 10);
    assert_int_equal(Runs_setScope(db, NULL, 0, &err), DCU_OK); /* the default: r1 alone */
    assert_int_equal(Runs_scopeRun(db), 0);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 500);
    int64_t all = RUNS_ALL;
    assert_int_equal(Runs_setScope(db, &all, 1, &err), DCU_OK); /* a total, as asked */
    assert_int_equal(Runs_scopeRun(db), RUNS_ALL);
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 510);
    char* labels = Runs_labels(db);
    assert_string_equal(labels, "r1, r2");
    free(labels);
    TraceDb_delete(db);
}

static int64_t chosen(TraceDb* db, RunsChoice* ch) {
    DcuError err;
    assert_int_equal(Runs_choice(db, ch, &err), DCU_OK);
    return ch->chosen;
}

/* The run shown by default (runs.h): a timeline before stats; among timelines more dispatches;
 * alike runs by label; a PMC run never while a timed run exists, but beside it for counters;
 * a stack run beside it; a second stats run left out. */
static void test_choice(void** state) {
    (void)state;
    char* d = new_dir();
    const char* row = "0,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",10,20,30,40,10\n";
    const char* row2 = "1,\"kD\",0,0,0,9,9,1,1,0,0,1,1,0,\"0x0\",\"0x0\",50,60,70,80,10\n";
    put(d, "a/results.stats.csv", V1_STATS_HDR "\"kD\",9,900,100,100.0\n"); /* more calls */
    char* one = xasprintf(V1_HDR "%s", row);
    char* two = xasprintf(V1_HDR "%s%s", row, row2);
    put(d, "b/results.csv", one);
    put(d, "c/results.csv", two);
    free(two);
    put(d, "s/kernel_stack.txt", "kernel: kD\n#0 launch () from libamdhip64.so\n#1 f () at a.c:1\n");
    put(d, "z/results.stats.csv", V1_STATS_HDR "\"kD\",1,10,10,100.0\n");
    TraceDb* db = TestUtil_load(d, NULL);
    RunsChoice ch;
    assert_int_equal(chosen(db, &ch), Runs_byLabel(db, "c")); /* a timeline, 2 dispatches */
    assert_string_equal(ch.left, "b, a, z");
    assert_int_equal(ch.nleft, 3);
    assert_non_null(strstr(ch.why, "2 dispatches; b has fewer dispatches (1)"));
    assert_non_null(strstr(ch.with, "s (layer stack)"));
    DcuError err;
    assert_int_equal(Runs_setScope(db, NULL, 0, &err), DCU_OK);
    assert_sql_text(db, "SELECT group_concat(label, '|') FROM (SELECT r.label FROM run_scope s"
                        " JOIN run r ON r.id = s.run_id ORDER BY r.label)", "c|s");
    assert_int_equal(TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"), 20);
    TraceDb_delete(db);
    /* alike runs: the first by label; one run: the default is every run */
    d = new_dir();
    put(d, "y/results.csv", one);
    put(d, "x/results.csv", one);
    db = TestUtil_load(d, NULL);
    assert_int_equal(chosen(db, &ch), Runs_byLabel(db, "x"));
    assert_non_null(strstr(ch.why, "alike with y: the first by label"));
    TraceDb_delete(db);
    d = new_dir();
    put(d, "only/results.csv", one);
    db = TestUtil_load(d, NULL);
    assert_int_equal(chosen(db, &ch), 0);
    TraceDb_delete(db);
    free(one);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_pids_in_one_folder, remove_dirs),
        cmocka_unit_test_teardown(test_no_cross_run_supersession, remove_dirs),
        cmocka_unit_test_teardown(test_sibling_folders, remove_dirs),
        cmocka_unit_test_teardown(test_untagged_join_single_run, remove_dirs),
        cmocka_unit_test_teardown(test_two_paths, remove_dirs),
        cmocka_unit_test_teardown(test_pmc_run_gives_counters, remove_dirs),
        cmocka_unit_test_teardown(test_scope, remove_dirs),
        cmocka_unit_test_teardown(test_stack_run_gives_stacks, remove_dirs),
        cmocka_unit_test_teardown(test_choice, remove_dirs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
