/* test_stacks.c - the call-source layer: every stack form (gdb frames, backtrace_symbols,
 * CSV with a stack column, folded stacks) on hand-made files, how stacks are attached to
 * kernels (launch index, correlation id, name) and what time they get, the trees built from
 * them (self + children == inclusive at every node of the call tree; caller and callee
 * views), folding, filters, ranges (rocprofv3 markers through correlation ids and by time,
 * rocprofv2 push/pop pairing) and bad input (out-of-order frames, 10,000-deep stacks,
 * empty frames, 1 MB frames, stacks naming no known kernel). Expected values are worked out
 * by hand from the files written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dcutop/names.h"
#include "dcutop/stacks.h"
#include "dcutop/xalloc.h"
#include "testutil.h"

#define V1_HDR                                                                              \
    "\"Index\",\"KernelName\",\"gpu-id\",\"queue-id\",\"queue-index\",\"pid\",\"tid\","     \
    "\"grd\",\"wgr\",\"lds\",\"scr\",\"arch_vgpr\",\"accum_vgpr\",\"sgpr\",\"wave_size\","  \
    "\"sig\",\"obj\",\"DispatchNs\",\"BeginNs\",\"EndNs\",\"CompleteNs\",\"DurationNs\"\n"
#define V1_ROW(i, name, tid, b, e)                                                          \
    #i ",\"" name "\",0,0,0,100," #tid ",256,256,0,0,16,0,128,64,\"0x0\",\"0x0\",1," #b "," #e \
    "," #e ",0\n"
#define V3_KHDR                                                                             \
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","       \
    "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"," \
    "\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\","  \
    "\"Workgroup_Size_X\",\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\","        \
    "\"Grid_Size_Y\",\"Grid_Size_Z\"\n"
#define V3_KROW(tid, disp, name, corr, b, e)                                                \
    "\"KERNEL_DISPATCH\",\"Agent 4\",1,0," #tid "," #disp ",10,\"" name "\"," #corr "," #b    \
    "," #e ",0,0,8,0,16,64,1,1,64,1,1\n"
#define V3_AHDR                                                                             \
    "\"Domain\",\"Function\",\"Process_Id\",\"Thread_Id\",\"Correlation_Id\","              \
    "\"Start_Timestamp\",\"End_Timestamp\"\n"

static const char GEMM[] = "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32";
static const char FILL[] =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(int, "
    "at::native::FillFunctor<float>)";

/* ---- helpers -------------------------------------------------------------------------- */

typedef struct Loaded_ {
    char* dir;
    TraceDb* db;
    DcuStatus status;
} Loaded;

/* Writes name/body pairs (NULL-terminated list) into a new folder and loads it. */
static Loaded load(const char* first, ...) {
    Loaded L;
    L.dir = TestUtil_tempDir();
    va_list ap;
    va_start(ap, first);
    for (const char* name = first; name; name = va_arg(ap, const char*)) {
        const char* body = va_arg(ap, const char*);
        free(TestUtil_writeFile(L.dir, name, body, strlen(body)));
    }
    va_end(ap);
    L.db = TestUtil_load(L.dir, &L.status);
    return L;
}

static void unload(Loaded* L) {
    TraceDb_delete(L->db);
    TestUtil_rmTree(L->dir);
    free(L->dir);
}

static int64_t sqlv(TraceDb* db, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char* q = sqlite3_vmprintf(fmt, ap);
    va_end(ap);
    int64_t v = TestUtil_int(db, q);
    sqlite3_free(q);
    return v;
}

/* 1 when a load message contains text (and, when line > 0, names that line) */
static int has_msg(TraceDb* db, const char* text, long line) {
    if (line > 0) {
        return sqlv(db, "SELECT count(*) FROM load_message WHERE instr(message, %Q) AND line = %ld",
                    text, line) > 0;
    }
    return sqlv(db, "SELECT count(*) FROM load_message WHERE instr(message, %Q)", text) > 0;
}

static StackTree* build(TraceDb* db, StacksSource src, StacksMode mode, int fold,
                        const char* filter) {
    StacksOpts o = {mode, fold, filter};
    StackTree* t = NULL;
    DcuError err;
    Error_clear(&err);
    assert_int_equal(Stacks_build(db, src, &o, &t, &err), DCU_OK);
    assert_non_null(t);
    return t;
}

/* The node reached from the roots by names joined with '\n' ("main\nforward\nkernel"). */
static int find(const StackTree* t, const char* path) {
    char* p = xstrdup(path);
    int at = -1; /* parent */
    char* save = NULL;
    for (char* part = strtok_r(p, "\n", &save); part; part = strtok_r(NULL, "\n", &save)) {
        int c = at < 0 ? (t->n > 0 ? 0 : -1) : t->nodes[at].first_child;
        while (c >= 0 && strcmp(t->nodes[c].name, part) != 0) {
            c = t->nodes[c].next_sibling;
        }
        if (c < 0) {
            free(p);
            return -1;
        }
        at = c;
    }
    free(p);
    return at;
}

static int64_t incl(const StackTree* t, const char* path) {
    int i = find(t, path);
    if (i < 0) {
        fail_msg("no node '%s'", path);
    }
    return t->nodes[i].incl_ns;
}

static int64_t self(const StackTree* t, const char* path) {
    int i = find(t, path);
    if (i < 0) {
        fail_msg("no node '%s'", path);
    }
    return t->nodes[i].self_ns;
}

enum { SHAPE, CALL_TREE, VIEW }; /* what check_tree checks besides the structure */

/* Structure of the node array, at every node: pre-order layout, sibling chains, sorted
 * children, depth. CALL_TREE: self + children's inclusive == inclusive at every node and
 * the roots add up to the total; VIEW (callers/callees): the roots add up to at least it. */
static void check_tree(const StackTree* t, int what) {
    int call_tree = what == CALL_TREE;
    int64_t roots = 0;
    int nroots = 0;
    for (int i = 0; i < t->n; i++) {
        const StackNode* n = &t->nodes[i];
        assert_true(n->subtree_end > i && n->subtree_end <= t->n);
        if (n->parent < 0) {
            assert_int_equal(n->depth, 0);
            roots += n->incl_ns;
            nroots++;
        } else {
            assert_true(n->parent < i);
            assert_int_equal(n->depth, t->nodes[n->parent].depth + 1);
            assert_true(i < t->nodes[n->parent].subtree_end);
        }
        int64_t kids = 0;
        int64_t kid_calls = 0;
        int count = 0;
        int64_t prev = INT64_MAX;
        for (int c = n->first_child; c >= 0; c = t->nodes[c].next_sibling) {
            assert_int_equal(t->nodes[c].parent, i);
            assert_true(t->nodes[c].incl_ns <= prev); /* sorted by inclusive time */
            prev = t->nodes[c].incl_ns;
            kids += t->nodes[c].incl_ns;
            kid_calls += t->nodes[c].calls;
            count++;
        }
        assert_int_equal(count, n->nchildren);
        if (n->nchildren > 0) {
            assert_int_equal(n->first_child, i + 1);
        }
        if (call_tree) {
            assert_int_equal(n->self_ns + kids, n->incl_ns);
            assert_true(kid_calls <= n->calls);
        }
    }
    assert_int_equal(nroots, t->nroots);
    if (what == CALL_TREE) {
        assert_int_equal(roots, t->total_ns);
    } else if (what == VIEW) {
        assert_true(roots >= t->total_ns);
    }
}

/* ---- the stack forms -------------------------------------------------------------------- */

/* four launches: GEMM 1000 ns, fill 500 ns, GEMM 2000 ns, softmax 300 ns */
static const char v1_four[] =
    V1_HDR V1_ROW(0, "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32.kd", 100, 2000, 3000)
    V1_ROW(1, "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> "
              ">(int, at::native::FillFunctor<float>).kd", 100, 4000, 4500)
    V1_ROW(2, "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32.kd", 100, 5000, 7000)
    V1_ROW(3, "softmax_warp_forward.kd", 100, 8000, 8300);

static const char gdb_dump[] =
    "# hipprof --kernel-stack (gdb form)\n"
    "kernel[0]: Cijk_Ailk_Bljk_HHS_BH_MT128x128x32\n"
    "#0  0x00007f3a1c2b4e10 in hipModuleLaunchKernel () from /opt/rocm/lib/libamdhip64.so.6\n"
    "#1  0x00007f3a0a1b2c3d in rocblas_gemm_ex (handle=0x1, a=...) from "
    "/opt/rocm/lib/librocblas.so.4\n"
    "#2  0x00007f3a0a1b2000 in at::native::addmm_out_cuda_impl (result=..., self=...) at "
    "/src/aten/Blas.cpp:310\n"
    "#3  0x0000555555555abc in forward (x=0x1) at model.cpp:42\n"
    "#4  0x0000555555555def in main (argc=1, argv=0x7ffd) at main.cpp:10\n"
    "\n"
    "index: 1, kernel: void at::native::vectorized_elementwise_kernel<4, "
    "at::native::FillFunctor<float> >(int, at::native::FillFunctor<float>)\n"
    "#0  hipLaunchKernel () from /opt/rocm/lib/libamdhip64.so.6\n"
    "#1  0x00007f3a0a1b2000 in at::native::fill_kernel_cuda<float> (iter=...) at "
    "FillKernel.cu:20\n"
    "#2  0x0000555555555abc in init_weights () at model.cpp:12\n"
    "#3  0x0000555555555def in main (argc=1, argv=0x7ffd) at main.cpp:9\n";

static void gdb_frames_attach_by_launch_index(void** state) {
    (void)state;
    Loaded L = load("results.csv", v1_four, "kernel_stack.txt", gdb_dump, NULL);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(
        sqlv(L.db, "SELECT rows_read FROM source_file WHERE name = 'kernel_stack.txt'"), 2);
    assert_int_equal(sqlv(L.db, "SELECT count(*) FROM kernel_stack WHERE match = 'index'"), 2);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    /* arguments dropped, file paths cut to their base name, innermost frame last */
    char p[512];
    snprintf(p, sizeof(p),
             "main at main.cpp:10\nforward at model.cpp:42\nat::native::addmm_out_cuda_impl at "
             "Blas.cpp:310\nrocblas_gemm_ex from librocblas.so.4\nhipModuleLaunchKernel from "
             "libamdhip64.so.6\n%s",
             GEMM);
    assert_int_equal(incl(t, p), 1000); /* launch 0 only: 3000 - 2000 */
    assert_int_equal(self(t, p), 1000);
    snprintf(p, sizeof(p),
             "main at main.cpp:9\ninit_weights at model.cpp:12\nat::native::fill_kernel_cuda<float>"
             " at FillKernel.cu:20\nhipLaunchKernel from libamdhip64.so.6\n%s",
             FILL);
    assert_int_equal(incl(t, p), 500);
    /* the kernels without a stack: launch 2 of the GEMM and the softmax */
    assert_int_equal(incl(t, "[no stack]"), 2300);
    snprintf(p, sizeof(p), "[no stack]\n%s", GEMM);
    assert_int_equal(incl(t, p), 2000);
    assert_int_equal(t->total_ns, 3800);
    StackTree_delete(t);
    unload(&L);
}

static const char bt_dump[] =
    "kernel: softmax_warp_forward\n"
    "/opt/rocm/lib/libamdhip64.so.6(hipLaunchKernel+0x1a) [0x7f3a1c2b4e10]\n"
    "/usr/lib/libtorch_hip.so(_ZN2at6native7softmaxEv+0x2f0) [0x7f3a0a1b2c3d]\n"
    "/usr/lib/libfoo.so(+0x1f2a3) [0x7f3a0a100000]\n"
    "./app(_Z7forwardv+0x40) [0x555555555abc]\n"
    "./app [0x555555555aaa]\n"
    "./app(main+0x20) [0x555555555def]\n"
    "/lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0xf3) [0x7f3a09c0e083]\n";

static void backtrace_symbols_attach_by_name(void** state) {
    (void)state;
    Loaded L = load("results.csv", v1_four, "backtrace.txt", bt_dump, NULL);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(sqlv(L.db, "SELECT count(*) FROM kernel_stack WHERE match = 'name'"), 1);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    const char* p = "__libc_start_main from libc.so.6\nmain from app\napp@0x555555555aaa\n"
                    "_Z7forwardv from app\nlibfoo.so+0x1f2a3\n_ZN2at6native7softmaxEv from "
                    "libtorch_hip.so\nhipLaunchKernel from libamdhip64.so.6\nsoftmax_warp_forward";
    assert_int_equal(incl(t, p), 300);
    StackTree_delete(t);
    unload(&L);
}

static const char v3_kernels[] = V3_KHDR V3_KROW(7, 1, "gemm_kernel", 11, 1500, 2500)
    V3_KROW(7, 2, "copy_kernel", 12, 2600, 2900) V3_KROW(7, 3, "gemm_kernel", 13, 3100, 4100)
        V3_KROW(8, 4, "copy_kernel", 14, 4200, 4300);

/* ';' outermost first; '|' with the launch call first (innermost first); gdb-numbered lines in
 * one quoted cell; "->" outermost first; "<-" innermost first */
static const char csv_stacks[] =
    "Correlation_Id,Kernel_Name,Call_Stack\n"
    "11,gemm_kernel,main;train;step;hipLaunchKernel\n"
    "12,copy_kernel,hipLaunchKernel|pack|step|main\n"
    "13,,\"#0 0x1 in hipLaunchKernel () from libamdhip64.so\n#1 0x2 in backward () at b.cpp:7\n"
    "#2 0x3 in main () at m.cpp:3\"\n"
    "14,copy_kernel,main -> io -> hipLaunchKernel\n";

static void csv_stack_column_by_correlation(void** state) {
    (void)state;
    Loaded L = load("9_kernel_trace.csv", v3_kernels, "9_stacks.csv", csv_stacks, NULL);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(
        sqlv(L.db, "SELECT count(*) FROM kernel_stack WHERE match = 'correlation'"), 4);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(incl(t, "main\ntrain\nstep\nhipLaunchKernel\ngemm_kernel"), 1000);
    assert_int_equal(incl(t, "main\nstep\npack\nhipLaunchKernel\ncopy_kernel"), 300);
    /* no name in the row: the dispatch with correlation id 13 says which kernel */
    assert_int_equal(incl(t, "main at m.cpp:3\nbackward at b.cpp:7\nhipLaunchKernel from "
                             "libamdhip64.so\ngemm_kernel"),
                     1000);
    assert_int_equal(incl(t, "main\nio\nhipLaunchKernel\ncopy_kernel"), 100);
    assert_int_equal(find(t, "[no stack]"), -1);
    assert_int_equal(t->total_ns, 2400);
    StackTree_delete(t);

    /* the top call paths of one kernel, for the kernel detail screen */
    ResultSet* rs = NULL;
    DcuError err;
    assert_int_equal(Stacks_kernelPaths(L.db, STACKS_SRC_STACKS, "gemm_kernel", 1, 0, &rs, &err),
                     DCU_OK);
    assert_int_equal(rs->nrows, 2);
    int pc = ResultSet_columnIndex(rs, "path"), tc = ResultSet_columnIndex(rs, "time_ns");
    /* folded: hipLaunchKernel is a runtime frame */
    assert_string_equal(ResultSet_cellc(rs, 0, pc)->s, "main at m.cpp:3;backward at b.cpp:7");
    assert_int_equal(ResultSet_cellc(rs, 0, tc)->i, 1000);
    assert_string_equal(ResultSet_cellc(rs, 1, pc)->s, "main;train;step");
    assert_float_equal(ResultSet_cellc(rs, 1, ResultSet_columnIndex(rs, "pct"))->d, 50.0, 1e-9);
    ResultSet_delete(rs);
    unload(&L);
}

static void folded_stacks_sum_their_values(void** state) {
    (void)state;
    Loaded L = load("run.stacks.txt",
                    "main;a;b 10\n"
                    "main;a;c 5\n"
                    "main;a;b 2.5\n"
                    "main;d 1\n"
                    "\n",
                    NULL);
    assert_int_equal(L.status, DCU_OK);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(t->total_ns, 18500);
    assert_int_equal(incl(t, "main"), 18500);
    assert_int_equal(incl(t, "main\na"), 17500);
    assert_int_equal(self(t, "main\na\nb"), 12500);
    assert_int_equal(t->nodes[find(t, "main\na\nb")].calls, 2);
    assert_int_equal(self(t, "main\nd"), 1000);
    assert_int_equal(self(t, "main"), 0);
    assert_float_equal(t->nodes[find(t, "main\na")].incl_pct, 100.0 * 17500 / 18500, 1e-9);
    StackTree_delete(t);
    /* callee view: every frame a root, its callees below, down to the leaves */
    t = build(L.db, STACKS_SRC_STACKS, STACKS_CALLEE, 0, NULL);
    check_tree(t, VIEW);
    assert_int_equal(incl(t, "a"), 17500);
    assert_int_equal(incl(t, "a\nb"), 12500);
    assert_int_equal(self(t, "b"), 12500); /* a leaf's own time */
    assert_int_equal(incl(t, "b"), 12500);
    StackTree_delete(t);
    unload(&L);
}

static void folded_leaf_that_is_a_kernel_becomes_the_kernel(void** state) {
    (void)state;
    Loaded L = load("results.csv", v1_four, "k.folded",
                    "main;gemm_call;Cijk_Ailk_Bljk_HHS_BH_MT128x128x32 7\n"
                    "main;helper 2\n"
                    "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32 1\n",
                    NULL);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    char p[256];
    snprintf(p, sizeof(p), "main\ngemm_call\n%s", GEMM);
    int i = find(t, p);
    assert_true(i >= 0);
    assert_int_equal(t->nodes[i].kind, SNODE_KERNEL);
    assert_true(t->nodes[i].kernel_id > 0);
    assert_int_equal(t->nodes[i].incl_ns, 7000); /* VALUE, not the kernel's own time */
    assert_int_equal(t->nodes[find(t, GEMM)].kind, SNODE_KERNEL);
    assert_int_equal(t->nodes[find(t, "main\nhelper")].kind, SNODE_FRAME);
    StackTree_delete(t);
    unload(&L);
}

static void stacks_named_by_kernel_share_its_time(void** state) {
    (void)state;
    /* K: 4 calls, 1000 ns; two stacks name it: 2 launches and 500 ns each */
    Loaded L = load("results.stats.csv",
                    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                    "\"K\",4,1000,250,76.9\n\"J\",1,300,300,23.1\n",
                    "stack.txt",
                    "kernel: K\n#0 launch () from libamdhip64.so\n#1 f () at a.c:1\n\n"
                    "kernel: K\n#0 launch () from libamdhip64.so\n#1 g () at a.c:2\n",
                    NULL);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(incl(t, "f at a.c:1"), 500);
    assert_int_equal(t->nodes[find(t, "f at a.c:1")].calls, 2);
    assert_int_equal(incl(t, "g at a.c:2"), 500);
    assert_int_equal(incl(t, "[no stack]\nJ"), 300);
    assert_int_equal(t->total_ns, 1300);
    StackTree_delete(t);
    /* the caller view: kernel -> who launched it */
    t = build(L.db, STACKS_SRC_STACKS, STACKS_CALLER, 1, NULL);
    check_tree(t, VIEW);
    assert_int_equal(incl(t, "K"), 1000);
    assert_int_equal(self(t, "K"), 1000);
    assert_int_equal(incl(t, "K\nf at a.c:1"), 500); /* folded: the launch call is hidden */
    assert_int_equal(incl(t, "K\ng at a.c:2"), 500);
    StackTree_delete(t);
    unload(&L);
}

static void caller_view_counts_recursion_under_each_occurrence(void** state) {
    (void)state;
    Loaded L = load("r.stacks",
                    "m;call;f;call;g 10\n"
                    "m;call;h 5\n",
                    NULL);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_CALLER, 0, NULL);
    check_tree(t, VIEW);
    int c = find(t, "call");
    assert_int_equal(t->nodes[c].incl_ns, 15000); /* once per launch */
    assert_int_equal(incl(t, "call\nf"), 10000);  /* inner occurrence of the first stack */
    assert_int_equal(incl(t, "call\nm"), 15000);  /* outer occurrences of both */
    int64_t kids = 0;
    for (int k = t->nodes[c].first_child; k >= 0; k = t->nodes[k].next_sibling) {
        kids += t->nodes[k].incl_ns;
    }
    assert_true(kids > t->nodes[c].incl_ns); /* what the README explains */
    assert_int_equal(incl(t, "g\ncall\nf\ncall\nm"), 10000);
    StackTree_delete(t);
    /* the call tree keeps both occurrences on their own paths */
    t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(incl(t, "m\ncall\nf\ncall\ng"), 10000);
    StackTree_delete(t);
    unload(&L);
}

static void folding_hides_runtime_and_library_frames(void** state) {
    (void)state;
    static const char* const libs[] = {
        "hipLaunchKernel from libamdhip64.so.6", "rocblas_gemm_ex from librocblas.so.4",
        "at::native::fill_kernel_cuda at FillKernel.cu:20", "threading.py(1032):_bootstrap",
        "runpy.py(86):__run_code", "torch/nn/modules/module.py(1783):__call_impl",
        "<built-in_method_conv2d_of_type_object_at_0x7fa4e9f3e180>",
        "_PyEval_EvalFrameDefault from libpython3.10.so", "foo from libtorch_python.so",
        "__libc_start_main from libc.so.6", "x from /usr/lib/python3/dist-packages/y.py"};
    static const char* const user[] = {"gen.py(64):_forward", "nn.Module:_Conv2d_0",
                                       "main at main.cpp:10", "forward", "my_hip_wrapper"};
    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++) {
        assert_true(Names_isLibraryFrame(libs[i]));
    }
    for (size_t i = 0; i < sizeof(user) / sizeof(user[0]); i++) {
        assert_false(Names_isLibraryFrame(user[i]));
    }
    Loaded L = load("f.stacks",
                    "threading.py(1);runpy.py(2);app.py(3):_main;torch/x.py(4):_f;"
                    "<built-in_method_mm> 4\n"
                    "threading.py(1);torch/y.py(9):_g;<built-in_method_add> 1\n",
                    NULL);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 1, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(incl(t, "app.py(3):_main\n<built-in_method_mm>"), 4000);
    /* every frame of the path is a library frame: the entry point stays */
    assert_int_equal(incl(t, "threading.py(1)\n<built-in_method_add>"), 1000);
    StackTree_delete(t);
    /* a filter keeps the paths where some name matches; shares stay of everything */
    t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, "app\\.py");
    check_tree(t, SHAPE);
    assert_int_equal(t->total_ns, 5000);
    assert_int_equal(t->nodes[0].incl_ns, 4000);
    assert_float_equal(t->nodes[0].incl_pct, 80.0, 1e-9);
    StackTree_delete(t);
    t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, "!app\\.py");
    assert_int_equal(t->nodes[0].incl_ns, 1000);
    StackTree_delete(t);
    StacksOpts bad = {STACKS_TREE, 0, "a("};
    DcuError err;
    assert_int_equal(Stacks_build(L.db, STACKS_SRC_STACKS, &bad, &t, &err), DCU_ERR_REGEX);
    unload(&L);
}

/* ---- the real folded samples: structure at every node ------------------------------------ */

static void real_folded_samples_keep_the_invariants(void** state) {
    (void)state;
    static const char* const files[] = {"climate_infer.stacks.txt", "climate_train.stacks.txt"};
    for (size_t f = 0; f < 2; f++) {
        char* path = xasprintf("sample-traces/pytorch-h200-climate-transformer/%s", files[f]);
        DcuStatus st;
        TraceDb* db = TestUtil_load(path, &st);
        assert_int_equal(st, DCU_OK);
        char* cmd =
            xasprintf("awk '{ s += $NF } END { printf \"%%.0f\\n\", s * 1000 }' '%s'", path);
        int64_t want = TestUtil_shellInt(cmd);
        free(cmd);
        assert_true(want > 0);
        for (int fold = 0; fold < 2; fold++) {
            StackTree* t = build(db, STACKS_SRC_STACKS, STACKS_TREE, fold, NULL);
            check_tree(t, CALL_TREE);
            assert_int_equal(t->total_ns, want);
            StackTree_delete(t);
            for (int m = STACKS_CALLER; m <= STACKS_CALLEE; m++) {
                t = build(db, STACKS_SRC_STACKS, (StacksMode)m, fold, NULL);
                check_tree(t, VIEW);
                assert_int_equal(t->total_ns, want);
                StackTree_delete(t);
            }
        }
        TraceDb_delete(db);
        free(path);
    }
}

/* A PyTorch profiler trace recorded with_stack (read by load_json.c): every kernel gets the
 * python stack of the aten op its External id names, and its own time. */
static void kineto_trace_kernels_get_python_stacks(void** state) {
    (void)state;
    char* path = xasprintf("%s/pytorch-h200-climate-transformer/"
                           "climate_infer.trace.json.gz",
                           TestUtil_real());
    FILE* probe = fopen(path, "rb");
    assert_non_null(probe); /* the sample is part of the repository: missing is a failure */
    fclose(probe);
    DcuStatus st;
    TraceDb* db = TestUtil_load(path, &st);
    free(path);
    assert_int_equal(st, DCU_OK);
    int64_t kernels = TestUtil_int(db, "SELECT count(*) FROM dispatch");
    assert_true(kernels > 0);
    assert_int_equal(TestUtil_int(db, "SELECT count(*) FROM kernel_stack WHERE form = 'kineto'"
                                      " AND match = 'correlation' AND dispatch_id IS NOT NULL"),
                     kernels);
    for (int fold = 0; fold < 2; fold++) {
        StackTree* t = build(db, STACKS_SRC_STACKS, STACKS_TREE, fold, NULL);
        check_tree(t, CALL_TREE);
        assert_int_equal(t->total_ns, TestUtil_int(db, "SELECT sum(total_ns) FROM kernel_summary"));
        assert_int_equal(find(t, "[no stack]"), -1);
        assert_int_equal(t->nodes[0].calls, kernels); /* one root: gen.py(128): <module> */
        StackTree_delete(t);
    }
    TraceDb_delete(db);
}

/* ---- ranges ------------------------------------------------------------------------------ */

static void ranges_through_correlation_ids(void** state) {
    (void)state;
    Loaded L = load("42_kernel_trace.csv", v3_kernels, "42_hip_api_trace.csv",
                    V3_AHDR "\"HIP_RUNTIME_API\",\"hipLaunchKernel\",42,7,11,1100,1200\n"
                            "\"HIP_RUNTIME_API\",\"hipLaunchKernel\",42,7,12,1300,1400\n"
                            "\"HIP_RUNTIME_API\",\"hipLaunchKernel\",42,7,13,2050,2100\n"
                            "\"HIP_RUNTIME_API\",\"hipLaunchKernel\",42,8,14,1350,1360\n",
                    "42_marker_api_trace.csv",
                    V3_AHDR "\"MARKER_CORE_API\",\"step\",42,7,1,1000,3000\n"
                            "\"MARKER_CORE_API\",\"forward\",42,7,2,1050,1250\n"
                            "\"MARKER_CORE_API\",\"backward\",42,7,3,2000,2200\n"
                            "\"MARKER_CORE_API\",\"a mark\",42,7,4,1700,1700\n",
                    NULL);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM range_span"), 3); /* no mark */
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch_range"
                                        " WHERE how = 'correlation'"), 4);
    StackTree* t = build(L.db, STACKS_SRC_RANGES, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    /* kernel 1 starts at 1500 on the device, after 'forward' ended, but was launched at 1100
     * inside it; kernel 4 was launched on thread 8, which has no range */
    assert_int_equal(incl(t, "step\nforward\ngemm_kernel"), 1000);
    assert_int_equal(incl(t, "step\ncopy_kernel"), 300);
    assert_int_equal(incl(t, "step\nbackward\ngemm_kernel"), 1000);
    assert_int_equal(incl(t, "[outside any range]\ncopy_kernel"), 100);
    assert_int_equal(incl(t, "step"), 2300);
    assert_int_equal(t->total_ns, 2400);
    StackTree_delete(t);
    t = build(L.db, STACKS_SRC_RANGES, STACKS_CALLER, 0, NULL);
    check_tree(t, VIEW);
    assert_int_equal(incl(t, "gemm_kernel"), 2000);
    assert_int_equal(incl(t, "gemm_kernel\nforward\nstep"), 1000);
    StackTree_delete(t);
    unload(&L);
}

static void ranges_by_time_without_correlation(void** state) {
    (void)state;
    /* rocprof v1 results.csv has no correlation ids: the kernel's start and thread decide */
    Loaded L = load("results.csv",
                    V1_HDR V1_ROW(0, "k1", 100, 1100, 1200) V1_ROW(1, "k2", 100, 1300, 1500)
                        V1_ROW(2, "k3", 101, 1150, 1160),
                    "marker_api_trace.csv",
                    V3_AHDR "\"MARKER_CORE_API\",\"outer\",1,100,1,1000,2000\n"
                            "\"MARKER_CORE_API\",\"inner\",1,100,2,1250,1400\n",
                    NULL);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM dispatch_range WHERE how = 'time'"),
                     3);
    StackTree* t = build(L.db, STACKS_SRC_RANGES, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(incl(t, "outer\nk1"), 100);
    assert_int_equal(incl(t, "outer\ninner\nk2"), 200);
    assert_int_equal(incl(t, "[outside any range]\nk3"), 10); /* thread 101 */
    StackTree_delete(t);
    unload(&L);
}

static void rocprofv2_roctx_pushes_and_pops_are_paired(void** state) {
    (void)state;
    Loaded L = load("results_55.csv",
                    "Dispatch_ID,GPU_ID,Queue_ID,PID,TID,Grid_Size,Workgroup_Size,"
                    "LDS_Per_Workgroup,Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,Wave_Size,"
                    "Kernel_Name,Start_Timestamp,End_Timestamp,Correlation_ID\n\n"
                    "1,0,0,55,55,64,64,0,0,8,0,16,64,\"kA\",100,200,1\n"
                    "2,0,0,55,55,64,64,0,0,8,0,16,64,\"kB\",300,350,2\n"
                    "3,0,0,55,55,64,64,0,0,8,0,16,64,\"kA\",600,700,3\n"
                    "4,0,0,55,55,64,64,0,0,8,0,16,64,\"kB\",900,950,4\n",
                    "roctx_trace_55.csv",
                    "Domain,ROCTX_ID,Message,Timestamp\n\n"
                    "ROCTX_DOMAIN,0,\"outer\",50\n"
                    "ROCTX_DOMAIN,0,\"inner\",250\n"
                    "ROCTX_DOMAIN,0,,400\n"
                    "ROCTX_DOMAIN,7,\"started\",550\n"
                    "ROCTX_DOMAIN,0,,800\n"
                    "ROCTX_DOMAIN,7,,850\n"
                    "ROCTX_DOMAIN,0,,1000\n"
                    "ROCTX_DOMAIN,0,\"dangling\",1200\n",
                    NULL);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM range_span"), 3);
    assert_int_equal(TestUtil_int(L.db, "SELECT end_ns FROM range_span WHERE name = 'outer'"), 800);
    assert_int_equal(TestUtil_int(L.db, "SELECT end_ns FROM range_span WHERE name = 'started'"),
                     850);
    assert_true(has_msg(L.db, "1 roctx range never closed", 0));
    assert_true(has_msg(L.db, "1 roctx pop with no open range", 0));
    StackTree* t = build(L.db, STACKS_SRC_RANGES, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(incl(t, "outer\nkA"), 100);
    assert_int_equal(incl(t, "outer\ninner\nkB"), 50);
    assert_int_equal(incl(t, "outer\nstarted\nkA"), 100);
    assert_int_equal(incl(t, "[outside any range]\nkB"), 50);
    StackTree_delete(t);
    unload(&L);
}

/* ---- bad input ------------------------------------------------------------------------------- */

static void frames_out_of_order_are_reported(void** state) {
    (void)state;
    Loaded L = load("results.csv", v1_four, "cycle_stack.txt",
                    "kernel: softmax_warp_forward\n#0 a () at x.c:1\n#1 b () at x.c:2\n"
                    "#2 c () at x.c:3\n#1 b () at x.c:2\n#2 c () at x.c:3\n",
                    "loop.stacks", "a;b;a;b;a;b 3\n", NULL);
    assert_true(has_msg(L.db, "frame #1 after #2: frames out of order", 5));
    assert_int_equal(sqlv(L.db, "SELECT count(*) FROM kernel_stack WHERE form = 'gdb'"), 0);
    /* a recursive path is not a cycle: it is kept as it is */
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, SHAPE); /* folded VALUE and kernel time mix here: only the structure */
    assert_int_equal(incl(t, "a\nb\na\nb\na\nb"), 3000);
    StackTree_delete(t);
    unload(&L);
}

static void ten_thousand_deep_stacks(void** state) {
    (void)state;
    size_t cap = 10000 * 8 + 64;
    char* folded = xmalloc(cap);
    char* csv = xmalloc(cap + 64);
    size_t n = 0, m = 0;
    m += (size_t)snprintf(csv, cap, "index,stack\n0,");
    for (int i = 0; i < 10000; i++) {
        n += (size_t)snprintf(folded + n, cap - n, "%sf%d", i ? ";" : "", i % 3);
        m += (size_t)snprintf(csv + m, cap + 64 - m, "%sg%d", i ? ";" : "", i);
    }
    snprintf(folded + n, cap - n, " 42\n");
    snprintf(csv + m, cap + 64 - m, "\n");
    Loaded L = load("deep.stacks.txt", folded, "deep_stack.csv", csv, "results.csv",
                    V1_HDR V1_ROW(0, "kdeep", 1, 100, 600), NULL);
    free(folded);
    free(csv);
    assert_int_equal(L.status, DCU_OK);
    assert_true(has_msg(L.db, "line 1: a stack of 10000 frames", 0));
    assert_int_equal(sqlv(L.db, "SELECT max(depth) FROM stack_node"), 9999);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, SHAPE); /* folded VALUE and kernel time mix here: only the structure */
    int i = find(t, "g0");
    assert_true(i >= 0);
    assert_int_equal(t->nodes[i].incl_ns, 500); /* launch index 0 of kdeep */
    assert_int_equal(t->nodes[t->nodes[i].subtree_end - 1].depth, 10000); /* + the kernel */
    StackTree_delete(t);
    for (int mode = STACKS_CALLER; mode <= STACKS_CALLEE; mode++) {
        t = build(L.db, STACKS_SRC_STACKS, (StacksMode)mode, 0, NULL);
        check_tree(t, VIEW);
        /* chains stop STACKS_CHAIN_MAX levels below their root, with a marker */
        int maxd = 0;
        for (int k = 0; k < t->n; k++) {
            maxd = t->nodes[k].depth > maxd ? t->nodes[k].depth : maxd;
        }
        assert_int_equal(maxd, STACKS_CHAIN_MAX + 1);
        ResultSet* rs = Stacks_toResultSet(t, STACKS_SRC_STACKS);
        assert_int_equal(rs->nrows, t->n);
        ResultSet_delete(rs);
        StackTree_delete(t);
    }
    unload(&L);
    /* the recursive folded one alone (with kernel stacks present it is left out) */
    folded = xmalloc(cap);
    n = 0;
    for (int k = 0; k < 10000; k++) {
        n += (size_t)snprintf(folded + n, cap - n, "%sf%d", k ? ";" : "", k % 3);
    }
    snprintf(folded + n, cap - n, " 42\n");
    L = load("deep.stacks.txt", folded, NULL);
    free(folded);
    t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(t->n, 10000);
    assert_int_equal(t->nodes[t->n - 1].self_ns, 42000);
    StackTree_delete(t);
    for (int mode = STACKS_CALLER; mode <= STACKS_CALLEE; mode++) {
        t = build(L.db, STACKS_SRC_STACKS, (StacksMode)mode, 1, NULL);
        check_tree(t, VIEW);
        assert_int_equal(t->nroots, 3); /* f0, f1, f2 */
        StackTree_delete(t);
    }
    unload(&L);
}

static void empty_frames_and_lines_without_a_value(void** state) {
    (void)state;
    Loaded L = load("bad.stacks.txt",
                    "main;;leaf 3\n"
                    ";main;leaf 3\n"
                    "main;leaf\n"
                    "main;leaf -4\n"
                    "main;ok 2\n",
                    "bad_stack.csv", "kernel,stack\nk,a;;b\nk,a;b\nk,\n", NULL);
    assert_true(has_msg(L.db, "frame 2 is empty", 1));
    assert_true(has_msg(L.db, "frame 1 is empty", 2));
    assert_true(has_msg(L.db, "expected 'frame;frame;...;leaf VALUE'", 3));
    assert_true(has_msg(L.db, "expected 'frame;frame;...;leaf VALUE'", 4));
    assert_int_equal(sqlv(L.db, "SELECT rows_read FROM source_file WHERE name = 'bad.stacks.txt'"),
                     1);
    assert_int_equal(sqlv(L.db, "SELECT rows_rejected FROM source_file"
                                " WHERE name = 'bad.stacks.txt'"),
                     4);
    assert_true(has_msg(L.db, "stack frame 2 is empty", 2));
    assert_true(has_msg(L.db, "empty stack", 4));
    assert_int_equal(sqlv(L.db, "SELECT rows_read FROM source_file WHERE name = 'bad_stack.csv'"),
                     1);
    unload(&L);
}

static void megabyte_frames_are_cut(void** state) {
    (void)state;
    size_t big = 1 << 20;
    char* line = xmalloc(big + 64);
    memcpy(line, "main;", 5);
    memset(line + 5, 'x', big);
    snprintf(line + 5 + big, 64, ";leaf 9\n");
    Loaded L = load("big.stacks.txt", line, NULL);
    free(line);
    assert_int_equal(L.status, DCU_OK);
    assert_true(has_msg(L.db, "a frame of 1048576 bytes is cut to 16384 bytes", 0));
    assert_true(sqlv(L.db, "SELECT max(length(name)) FROM frame") < 16500);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    assert_int_equal(t->total_ns, 9000);
    ResultSet* rs = Stacks_toResultSet(t, STACKS_SRC_STACKS);
    assert_true(strlen(ResultSet_cellc(rs, 2, ResultSet_columnIndex(rs, "path"))->s) < 16384);
    ResultSet_delete(rs);
    StackTree_delete(t);
    unload(&L);
}

/* found by tests/fuzz (fuzz_stacks): the sniffer splits lines at '\n' only and saw a stack
 * header, but the CSV reader also ends a row at a lone '\r', so its header row ("note") had
 * no stack column, and each row of that width read the field before the row (ASan:
 * heap-buffer-overflow in csv_row). Now: one message, the rest of the folder loads. */
static void csv_stacks_whose_first_row_has_no_stack_column(void** state) {
    (void)state;
    Loaded L = load("9_kernel_trace.csv", v3_kernels, "9_stacks.csv",
                    "note\rCorrelation_Id,Kernel_Name,Call_Stack\nmain;train;step\nmain;io\n",
                    NULL);
    assert_true(has_msg(L.db, "no stack column in the header row", 1));
    assert_int_equal(sqlv(L.db, "SELECT count(*) FROM kernel_stack"), 0);
    assert_int_equal(sqlv(L.db, "SELECT count(*) FROM dispatch"), 4);
    unload(&L);
}

static void stacks_naming_no_known_kernel(void** state) {
    (void)state;
    Loaded L = load("results.csv", v1_four, "kernel_stack.txt",
                    "kernel: no_such_kernel\n#0 hipLaunchKernel () from libamdhip64.so\n"
                    "#1 f () at a.c:1\n\n"
                    "#0 hipLaunchKernel () from libamdhip64.so\n#1 g () at a.c:2\n\n"
                    "index: 99, kernel: softmax_warp_forward\n#0 h () at a.c:3\n\n"
                    "index: 3\n#0 h2 () at a.c:4\n\n"
                    "index: 3\n#0 h3 () at a.c:5\n\n"
                    "this line is neither a frame nor a header\n",
                    "weird.stacks", "hello world\n", NULL);
    assert_true(has_msg(L.db, "names kernel 'no_such_kernel', which no loaded kernel file has",
                        1));
    assert_true(has_msg(L.db, "the stack names no kernel", 5));
    assert_true(has_msg(L.db, "no loaded dispatch has launch index 99", 8));
    assert_true(has_msg(L.db, "a second stack for launch index 3", 14));
    assert_true(has_msg(L.db, "not a stack frame or header", 17));
    assert_true(has_msg(L.db, "accepted: gdb frames", 17));
    /* a file named like a stack dump in no known form: skipped, the forms listed */
    assert_int_equal(sqlv(L.db, "SELECT count(*) FROM source_file WHERE name = 'weird.stacks'"
                                " AND format = 'skipped' AND instr(note, 'accepted:')"),
                     1);
    StackTree* t = build(L.db, STACKS_SRC_STACKS, STACKS_TREE, 0, NULL);
    check_tree(t, CALL_TREE);
    /* kept, with no time: the structure still shows who launched what */
    int i = find(t, "f at a.c:1\nhipLaunchKernel from libamdhip64.so\nno_such_kernel");
    assert_true(i >= 0);
    assert_int_equal(t->nodes[i].incl_ns, 0);
    assert_int_equal(t->nodes[i].calls, 1);
    assert_int_equal(t->nodes[i].kernel_id, 0);
    /* by name instead: it shares what launch 3's exact match left of the kernel, nothing */
    assert_int_equal(incl(t, "h at a.c:3\nsoftmax_warp_forward"), 0);
    assert_int_equal(sqlv(L.db, "SELECT count(*) FROM kernel_stack WHERE line = 8 AND"
                                " match = 'name'"),
                     1);
    assert_int_equal(incl(t, "h2 at a.c:4\nsoftmax_warp_forward"), 300); /* launch 3 */
    assert_int_equal(incl(t, "h3 at a.c:5\nsoftmax_warp_forward"), 0);   /* the duplicate */
    StackTree_delete(t);
    unload(&L);
}

/* trace CSVs whose rows end in " NUMBER" and hold a ';' are still CSV, not folded stacks */
static void csv_traces_are_not_taken_for_stacks(void** state) {
    (void)state;
    Loaded L = load("results.stats.csv",
                    "\"Name\", \"Calls\", \"TotalDurationNs\", \"AverageNs\", \"Percentage\"\n"
                    "\"k<a; b>\", 2, 100, 50, 50.0\n"
                    "\"j;x\", 1, 100, 100, 50.0\n",
                    NULL);
    assert_int_equal(L.status, DCU_OK);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stat"), 2);
    assert_int_equal(TestUtil_int(L.db, "SELECT count(*) FROM kernel_stack"), 0);
    unload(&L);
}

static void no_stacks_no_ranges(void** state) {
    (void)state;
    Loaded L = load("results.csv", v1_four, NULL);
    assert_false(Stacks_available(L.db, STACKS_SRC_STACKS));
    assert_false(Stacks_available(L.db, STACKS_SRC_RANGES));
    StackTree* t = build(L.db, STACKS_SRC_RANGES, STACKS_TREE, 0, NULL);
    assert_int_equal(t->n, 0);
    assert_string_equal(t->note, "no roctx/hiptx ranges in this trace");
    StackTree_delete(t);
    assert_int_equal(Stacks_sourceByName("ranges"), STACKS_SRC_RANGES);
    assert_int_equal(Stacks_modeByName("callers"), STACKS_CALLER);
    assert_int_equal(Stacks_modeByName("nope"), -1);
    unload(&L);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gdb_frames_attach_by_launch_index),
        cmocka_unit_test(backtrace_symbols_attach_by_name),
        cmocka_unit_test(csv_stack_column_by_correlation),
        cmocka_unit_test(folded_stacks_sum_their_values),
        cmocka_unit_test(folded_leaf_that_is_a_kernel_becomes_the_kernel),
        cmocka_unit_test(stacks_named_by_kernel_share_its_time),
        cmocka_unit_test(caller_view_counts_recursion_under_each_occurrence),
        cmocka_unit_test(folding_hides_runtime_and_library_frames),
        cmocka_unit_test(real_folded_samples_keep_the_invariants),
        cmocka_unit_test(kineto_trace_kernels_get_python_stacks),
        cmocka_unit_test(ranges_through_correlation_ids),
        cmocka_unit_test(ranges_by_time_without_correlation),
        cmocka_unit_test(rocprofv2_roctx_pushes_and_pops_are_paired),
        cmocka_unit_test(frames_out_of_order_are_reported),
        cmocka_unit_test(ten_thousand_deep_stacks),
        cmocka_unit_test(empty_frames_and_lines_without_a_value),
        cmocka_unit_test(megabyte_frames_are_cut),
        cmocka_unit_test(csv_stacks_whose_first_row_has_no_stack_column),
        cmocka_unit_test(stacks_naming_no_known_kernel),
        cmocka_unit_test(csv_traces_are_not_taken_for_stacks),
        cmocka_unit_test(no_stacks_no_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
