/* report_stacks.c - the Stacks and Ranges sections of --report: an indented text tree in
 * the style of perf report (Incl, %Incl, Self, %Self, Calls, then the name), or the
 * tree's rows (one per path) as CSV / JSON. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "dcutop/export.h"
#include "dcutop/format.h"
#include "dcutop/report.h"
#include "dcutop/shortname.h"
#include "dcutop/stacks.h"
#include "dcutop/xalloc.h"


/* Kernels show their short name (the one shortener), frames their file:line and function. */
static void cut_name(const StackNode* n, int width, char* out, size_t cap) {
    if (n->kind == SNODE_KERNEL) {
        Format_cutName(n->name, width, out, cap);
    } else {
        ShortName_fitFrame(n->name, width, out, cap);
    }
}

static void tree_text(FILE* out, const StackTree* t, StacksMode mode, int width, int max_rows) {
    int rows = max_rows > 0 && max_rows < t->n ? max_rows : t->n;
    int64_t mx = 0;
    for (int i = 0; i < rows; i++) {
        if (t->nodes[i].incl_ns > mx) {
            mx = t->nodes[i].incl_ns;
        }
    }
    TimeUnit u = Format_unitFor(mx);
    char hi[32], hs[32];
    snprintf(hi, sizeof(hi), "Incl(%s)", Format_unitName(u));
    snprintf(hs, sizeof(hs), "Self(%s)", Format_unitName(u));
    int wi = (int)strlen(hi), ws = (int)strlen(hs), wc = 5;
    char buf[64];
    for (int i = 0; i < rows; i++) {
        const StackNode* n = &t->nodes[i];
        Format_duration(buf, sizeof(buf), n->incl_ns, u);
        wi = (int)strlen(buf) > wi ? (int)strlen(buf) : wi;
        Format_duration(buf, sizeof(buf), n->self_ns, u);
        ws = (int)strlen(buf) > ws ? (int)strlen(buf) : ws;
        snprintf(buf, sizeof(buf), "%" PRId64, n->calls);
        wc = (int)strlen(buf) > wc ? (int)strlen(buf) : wc;
    }
    const char* what = mode == STACKS_CALLER   ? "Name (callers below)"
                       : mode == STACKS_CALLEE ? "Name (callees below)"
                                               : "Name";
    fprintf(out, "  %*s  %6s  %*s  %6s  %*s  %s\n", wi, hi, "%Incl", ws, hs, "%Self", wc, "Calls",
            what);
    int fixed = 2 + wi + 2 + 6 + 2 + ws + 2 + 6 + 2 + wc + 2;
    int room = width - fixed;
    if (room < 20) {
        room = 20;
    }
    char inc[64], self[64], cut[4096], pre[32];
    for (int i = 0; i < rows; i++) {
        const StackNode* n = &t->nodes[i];
        Format_duration(inc, sizeof(inc), n->incl_ns, u);
        Format_duration(self, sizeof(self), n->self_ns, u);
        int ind = ShortName_indent(n->depth, room, pre, sizeof(pre));
        int avail = room - ind - (int)strlen(pre);
        cut_name(n, avail < 10 ? 10 : avail, cut, sizeof(cut));
        fprintf(out, "  %*s  %6.2f  %*s  %6.2f  %*" PRId64 "  %*s%s%s\n", wi, inc, n->incl_pct, ws,
                self, n->self_pct, wc, n->calls, ind, "", pre, cut);
    }
    if (rows < t->n) {
        fprintf(out, "  ... %d more nodes (--view %s shows all)\n", t->n - rows,
                mode == STACKS_TREE ? "stacks|ranges" : "stacks|ranges");
    }
    if (t->note) {
        fprintf(out, " %s\n", t->note);
    }
    if (mode != STACKS_TREE && t->n > 0) {
        fputs(" Every name is a root with the time of the launches that have it on their path, "
              "so roots add up to more than 100%;\n a name that occurs twice on one path "
              "(recursion, torch's _call_impl at every nn.Module) lists the launch under both "
              "occurrences,\n so children can add up to more than their parent.\n",
              out);
    }
}

static DcuStatus tree_section(TraceDb* db, StacksSource src, const ReportOpts* o, FILE* out,
                              int dedicated, DcuError* err) {
    StacksOpts so = o->stacks;
    so.filter = o->query.filter;
    StackTree* t = NULL;
    DcuStatus s = Stacks_build(db, src, &so, &t, err);
    if (s != DCU_OK) {
        return s;
    }
    const char* name = Stacks_sourceName(src);
    if (o->format == FMT_TEXT) {
        if (src == STACKS_SRC_RANGES) {
            fprintf(out,
                    "\nRanges: kernels by the innermost roctx/hiptx range open at their "
                    "launch (%s view)\n",
                    Stacks_modeName(so.mode));
        } else {
            fprintf(out, "\nCall stacks: the code that launched the kernels (%s view%s)\n",
                    Stacks_modeName(so.mode), so.fold ? ", library frames folded" : "");
        }
        if (t->n == 0) {
            fprintf(out, "  (%s)\n", t->note ? t->note : "no data in this trace");
        } else {
            tree_text(out, t, so.mode, o->width, dedicated ? 0 : o->top);
        }
        StackTree_delete(t);
        return DCU_OK;
    }
    ResultSet* rs = Stacks_toResultSet(t, src);
    StackTree_delete(t);
    if (o->query.sort && *o->query.sort) {
        s = Query_sort(rs, o->query.sort, err);
    }
    if (s == DCU_OK && o->format == FMT_CSV) {
        fprintf(out, "# %s\r\n", name);
        s = Export_csv(rs, out, err);
        fputs("\r\n", out);
    } else if (s == DCU_OK) {
        fprintf(out, ",\n\"%s\": ", name);
        s = Export_json(rs, out, err);
    }
    ResultSet_delete(rs);
    return s;
}

DcuStatus Report_trees(TraceDb* db, const ReportOpts* o, FILE* out, DcuError* err) {
    DcuStatus s = DCU_OK;
    for (int src = STACKS_SRC_STACKS; s == DCU_OK && src <= STACKS_SRC_RANGES; src++) {
        int dedicated = o->view == REPORT_VIEW_STACKS + src;
        if (!dedicated && (o->view != -1 || !Stacks_available(db, (StacksSource)src))) {
            continue;
        }
        s = tree_section(db, (StacksSource)src, o, out, dedicated, err);
    }
    return s;
}
