/* stacks.h - the call-source layer as trees: who launched each kernel (call stacks) and
 * which roctx/hiptx range it ran in. No curses: a StackTree is a node array that the
 * Stacks and Ranges screens draw and the batch report prints.
 *
 * A "sample" is one path, outermost first, ending in the kernel it launched (or, for
 * folded stacks whose leaf names no kernel, in the leaf frame), with a time and a number
 * of launches. Three shapes are built from the same samples (perf report's vocabulary):
 *
 *   STACKS_TREE    top-down call tree; roots are the outermost frames, leaves the kernels.
 *                  At every node self_ns + the children's incl_ns == incl_ns.
 *   STACKS_CALLER  inverted (perf --children, caller graph): every frame and kernel is a
 *                  root, with the time of every launch that has it on its path (counted once
 *                  per launch); a root's children are its callers, theirs their callers.
 *                  Roots add up to more than 100%, and when a name occurs more than once on
 *                  one path (recursion; torch's module.py _call_impl at every nn.Module
 *                  level) the launch is listed under the callers of each occurrence, so
 *                  children can add up to more than their parent.
 *   STACKS_CALLEE  every frame is a root; its children are its callees, down to the
 *                  kernels: "function -> the kernels under it". Same counting as CALLER.
 *
 * self_ns is the time of the launches whose path ends at a node: in TREE and CALLEE the
 * launches whose innermost name (the kernel, or a folded stack's leaf) it is; in CALLER a
 * root's self_ns is the time for which it is the innermost name (perf's Self) and the
 * callers below a root have self_ns 0. */
#ifndef DCUTOP_STACKS_H
#define DCUTOP_STACKS_H

#include <stdint.h>

#include "dcutop/error.h"
#include "dcutop/result_set.h"
#include "dcutop/trace_db.h"

typedef enum { STACKS_SRC_STACKS, STACKS_SRC_RANGES } StacksSource;
typedef enum { STACKS_TREE, STACKS_CALLER, STACKS_CALLEE } StacksMode;

typedef enum {
    SNODE_FRAME,  /* a function / python frame / call site */
    SNODE_KERNEL, /* a device kernel (the leaf of a launch path) */
    SNODE_RANGE,  /* a roctx/hiptx range */
    SNODE_PSEUDO  /* "[no stack]", "[outside any range]", "[more callers cut]" */
} StackNodeKind;

/* Caller/callee chains stop this many levels below their root (a "[more ... cut]" node
 * marks the cut); keeps a 10,000-frame recursive stack from growing the tree quadratically. */
#define STACKS_CHAIN_MAX 32

typedef struct StackNode_ {
    const char* name;   /* borrowed from the tree (sanitized, never NULL) */
    int kind;           /* StackNodeKind */
    int library;        /* 1: runtime/library frame (what folding hides) */
    int parent;         /* index, -1 for a root */
    int first_child;    /* index, -1 when none; children are sorted by incl_ns desc, name */
    int next_sibling;   /* index, -1 when last */
    int nchildren;
    int depth;          /* 0 for roots */
    int subtree_end;    /* nodes are in pre-order: [index+1, subtree_end) is the subtree */
    int64_t self_ns, incl_ns;
    int64_t calls;      /* launches (folded stacks: lines) through this node */
    double self_pct;    /* of StackTree.total_ns, 0..100 */
    double incl_pct;    /* the same; CALLER/CALLEE roots may add up to more than 100 */
    int64_t kernel_id;  /* kernel.id for SNODE_KERNEL nodes of a loaded kernel, else 0 */
} StackNode;

typedef struct StackTree_ {
    StackNode* nodes;   /* owned, n entries, pre-order */
    int n;
    int nroots;         /* roots are the nodes with parent -1 (first at index 0) */
    int64_t total_ns;   /* 100%: the time of all samples (pseudo roots included) */
    int64_t total_calls;
    int64_t samples;    /* distinct (path, kernel) samples the tree was built from */
    char* note;         /* owned, may be NULL: what 100% is, coverage, caveats (one line) */
    char* strings;      /* owned name storage (internal) */
} StackTree;

typedef struct StacksOpts_ {
    StacksMode mode;
    int fold;           /* 1: drop runtime/library frames so the first user frame shows */
    const char* filter; /* PCRE2 (smart case, '!' negates): keep paths where some name
                         * matches; NULL = all. Percentages stay relative to everything. */
} StacksOpts;

/* Builds a tree over the loaded stacks or ranges. An empty tree (n == 0) when the trace
 * has none; *out is then still a valid tree with a note saying so. Errors: a bad filter
 * (DCU_ERR_REGEX), SQLite errors. */
DcuStatus Stacks_build(TraceDb* db, StacksSource src, const StacksOpts* opts, StackTree** out,
                       DcuError* err);
void StackTree_delete(StackTree* this);

/* 1 when the trace holds stacks (resp. ranges) at all. */
int Stacks_available(TraceDb* db, StacksSource src);

/* "stacks" / "ranges" -> source, -1 otherwise; and back. */
int Stacks_sourceByName(const char* name);
const char* Stacks_sourceName(StacksSource src);
/* "calls" (TREE), "callers", "callees" -> mode, -1 otherwise. */
int Stacks_modeByName(const char* name);
const char* Stacks_modeName(StacksMode m);

/* One row per node, in tree order: id, parent, depth, kind, name, path (names outermost
 * first joined by ';', long paths cut in the middle), self_ns, incl_ns, self_pct, incl_pct,
 * calls. The ResultSet is named "stacks" or "ranges"; its footer is the tree's note. */
ResultSet* Stacks_toResultSet(const StackTree* t, StacksSource src);

/* Stacks_build + Stacks_toResultSet, then sorted by a column key ("incl_ns", "calls:asc",
 * ...; NULL keeps tree order): what --export stacks|ranges writes. *out is new. */
DcuStatus Stacks_query(TraceDb* db, StacksSource src, const StacksOpts* opts, const char* sort,
                       ResultSet** out, DcuError* err);

/* The top call paths (or range paths) of one kernel, most time first: path (outermost
 * first, ';'-joined, folded when fold is set), calls, time_ns, pct (of the kernel's time
 * covered by paths). At most max rows (0 = all). An empty ResultSet when the kernel has no
 * stacks. For the kernel detail screen. */
DcuStatus Stacks_kernelPaths(TraceDb* db, StacksSource src, const char* kernel_name, int fold,
                             int max, ResultSet** out, DcuError* err);

#endif
