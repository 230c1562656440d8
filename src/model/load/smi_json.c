/* smi_json.c - the JSON device-state logs, one document per run of the tool, maybe with a
 * loop's `date` lines between documents:
 *   rocm-smi / hy-smi --json: {"card0": {"GPU use (%)": "12", "sclk clock speed:": "(1800Mhz)",
 *     ...}, "system": {...}} on one line (rocm_smi.py formatJson: the printLog keys and values
 *     as strings; newer versions write numbers);
 *   amd-smi metric --json: a list of GPUs, [{"gpu": 0, "usage": {"gfx_activity": {"value": 12,
 *     "unit": "%"}}, "power": {"socket_power": ..., "throttle_status": "UNTHROTTLED"},
 *     "clock": {"gfx_0": {"clk": ..., "max_clk": ...}, "mem_0": {"clk": ...}}, "temperature":
 *     {"hotspot": ..., "edge": ...}, "mem_usage": {"used_vram": {"value": 283, "unit": "MB"},
 *     "total_vram": ...}}], or the same list under "gpu_data" (AMD SMI 26), pretty-printed.
 * A document is gathered line by line until its brackets close, then parsed whole (yajl's
 * tree), after its nesting was checked, so no hostile document recurses deep. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yajl/yajl_tree.h>

#include "dcutop/names.h"
#include "dcutop/xalloc.h"
#include "load_event.h"
#include "load_smi.h"

#define JS_MAX_DOC (16u << 20) /* a run of any tool prints far less */
#define JS_MAX_DEPTH 32        /* amd-smi nests 5 deep */

typedef struct Js_ {
    int form;
    char* buf; /* the document so far (owned) */
    size_t len, cap;
    int depth, in_str, esc, max_depth, active, oversize;
    long start_line;
} Js;

static void* js_make(int form) {
    Js* j = xcalloc(1, sizeof(Js));
    j->form = form;
    return j;
}

static void js_drop(void* st) {
    Js* j = st;
    free(j->buf);
    free(j);
}

/* A leaf's text into buf: a string, a number as written, or {"value": v, "unit": u} as
 * "v u". 0 when the leaf is none of these. */
static int leaf_text(yajl_val v, char* buf, size_t cap) {
    if (YAJL_IS_STRING(v)) {
        snprintf(buf, cap, "%s", YAJL_GET_STRING(v));
        return 1;
    }
    if (YAJL_IS_NUMBER(v)) {
        snprintf(buf, cap, "%s", YAJL_GET_NUMBER(v));
        return 1;
    }
    if (YAJL_IS_OBJECT(v)) {
        const char* vp[] = {"value", NULL};
        const char* up[] = {"unit", NULL};
        yajl_val x = yajl_tree_get(v, vp, yajl_t_any);
        yajl_val u = yajl_tree_get(v, up, yajl_t_string);
        char num[64];
        if (x && leaf_text(x, num, sizeof(num))) {
            snprintf(buf, cap, "%s%s%s", num, u ? " " : "", u ? YAJL_GET_STRING(u) : "");
            return 1;
        }
    }
    return 0;
}

static void put_leaf(SmiLoad* L, SmiAcc* a, const SmiField* f, yajl_val v, long line) {
    char text[256];
    if (leaf_text(v, text, sizeof(text))) {
        SmiAcc_put(L, a, f, text, strlen(text), line);
    }
}

static void rocm_doc(SmiLoad* L, yajl_val root, long line) {
    if (!YAJL_IS_OBJECT(root)) {
        Load_reject(L->core, L->f, line, "rocm-smi JSON: the document is not an object of cards");
        return;
    }
    for (size_t i = 0; i < root->u.object.len; i++) {
        const char* card = root->u.object.keys[i];
        yajl_val obj = root->u.object.values[i];
        if (strncasecmp(card, "card", 4) != 0 || !YAJL_IS_OBJECT(obj)) {
            continue; /* "system" and the like */
        }
        SmiAcc a;
        SmiAcc_init(&a, line);
        SmiField cf = {SK_CARD, 0, 0, "card", ""};
        int ok = SmiAcc_put(L, &a, &cf, card, strlen(card), line);
        for (size_t k = 0; ok && k < obj->u.object.len; k++) {
            const char* key = obj->u.object.keys[k];
            SmiField f;
            if (strncasecmp(key, "HCU", 3) == 0 || strncasecmp(key, "DCU", 3) == 0 ||
                strncmp(key, "vram", 4) == 0) {
                L->tool = "hy-smi";
            }
            if (Smi_rocmField(key, strlen(key), &f)) {
                put_leaf(L, &a, &f, obj->u.object.values[k], line);
            }
        }
        if (ok && a.any) {
            SmiAcc_store(L, &a);
        }
        SmiAcc_done(&a);
    }
}

/* amd-smi metric paths: block, key (and sub-key for clocks). */
static const struct {
    const char* path[4];
    int kind, rank;
    double unit;
} amd_paths[] = {
    {{"usage", "gfx_activity", NULL}, SK_UTIL, 0, 0},
    {{"usage", "umc_activity", NULL}, SK_MEMUTIL, 0, 0},
    {{"power", "socket_power", NULL}, SK_POWER, 1, 0},
    {{"power", "throttle_status", NULL}, SK_THR_WORD, 0, 0},
    {{"power", "power_limit", NULL}, SK_POWERCAP, 0, 0},
    {{"clock", "gfx_0", "clk", NULL}, SK_SM, 0, 0},
    {{"clock", "gfx_0", "max_clk", NULL}, SK_MAXSM, 0, 0},
    {{"clock", "mem_0", "clk", NULL}, SK_MEMCLK, 0, 0},
    {{"temperature", "hotspot", NULL}, SK_TEMP, 1, 0},
    {{"temperature", "edge", NULL}, SK_TEMP, 3, 0},
    {{"mem_usage", "used_vram", NULL}, SK_MEMUSED, 0, 1048576.0},
    {{"mem_usage", "total_vram", NULL}, SK_MEMTOTAL, 0, 1048576.0},
    {{"timestamp", NULL}, SK_TIME, 0, 0},
    {{"gpu", NULL}, SK_INDEX, 0, 0},
};

static void amd_gpu(SmiLoad* L, yajl_val g, long line) {
    SmiAcc a;
    SmiAcc_init(&a, line);
    int ok = 1;
    for (size_t i = 0; ok && i < sizeof(amd_paths) / sizeof(amd_paths[0]); i++) {
        const char* path[4];
        memcpy(path, amd_paths[i].path, sizeof(path));
        yajl_val v = yajl_tree_get(g, path, yajl_t_any);
        if (!v) {
            continue;
        }
        SmiField f = {amd_paths[i].kind, amd_paths[i].unit, amd_paths[i].rank, "", ""};
        size_t used = 0;
        for (int k = 0; amd_paths[i].path[k] && used < sizeof(f.label) - 1; k++) {
            used += (size_t)snprintf(f.label + used, sizeof(f.label) - used, "%s%s",
                                     k ? "." : "", amd_paths[i].path[k]);
        }
        char text[256];
        if (leaf_text(v, text, sizeof(text))) {
            ok = SmiAcc_put(L, &a, &f, text, strlen(text), line);
        }
    }
    if (ok && a.s.device == LOAD_NULL) {
        Load_reject(L->core, L->f, line, "amd-smi JSON: a GPU without its \"gpu\" index");
    } else if (ok && a.any) {
        SmiAcc_store(L, &a);
    }
    SmiAcc_done(&a);
}

static void amd_doc(SmiLoad* L, yajl_val root, long line) {
    const char* gp[] = {"gpu_data", NULL};
    yajl_val list = YAJL_IS_ARRAY(root) ? root : yajl_tree_get(root, gp, yajl_t_array);
    if (!list) {
        Load_reject(L->core, L->f, line, "amd-smi JSON: neither a list of GPUs nor gpu_data");
        return;
    }
    for (size_t i = 0; i < list->u.array.len; i++) {
        if (YAJL_IS_OBJECT(list->u.array.values[i])) {
            amd_gpu(L, list->u.array.values[i], line);
        }
    }
}

static void parse_doc(SmiLoad* L, Js* j) {
    if (j->oversize) {
        Load_reject(L->core, L->f, j->start_line, "JSON document over %u MiB: not read",
                    JS_MAX_DOC >> 20);
    } else if (j->max_depth > JS_MAX_DEPTH) {
        Load_reject(L->core, L->f, j->start_line, "JSON nested deeper than %d levels: not read",
                    JS_MAX_DEPTH);
    } else {
        char why[256] = "";
        j->buf[j->len] = '\0';
        yajl_val root = yajl_tree_parse(j->buf, why, sizeof(why));
        if (!root) {
            why[strcspn(why, "\n")] = '\0';
            char* shown = Names_sanitize(why, strlen(why));
            Load_reject(L->core, L->f, j->start_line, "JSON that cannot be read: %s", shown);
            free(shown);
        } else if (j->form == SMI_AMD_JSON) {
            amd_doc(L, root, j->start_line);
        } else {
            rocm_doc(L, root, j->start_line);
        }
        yajl_tree_free(root);
    }
    j->len = 0;
    j->active = j->oversize = j->depth = j->max_depth = j->in_str = j->esc = 0;
}

/* Follows the document's nesting through s; 1 when it closed. */
static int scan(Js* j, const char* s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (j->in_str) {
            if (j->esc) {
                j->esc = 0;
            } else if (c == '\\') {
                j->esc = 1;
            } else if (c == '"') {
                j->in_str = 0;
            }
        } else if (c == '"') {
            j->in_str = 1;
        } else if (c == '{' || c == '[') {
            if (++j->depth > j->max_depth) {
                j->max_depth = j->depth;
            }
        } else if ((c == '}' || c == ']') && --j->depth == 0) {
            return 1;
        }
    }
    return 0;
}

static void js_line(SmiLoad* L, void* st, const char* s, size_t n, long line) {
    Js* j = st;
    if (!j->active) {
        while (n > 0 && isspace((unsigned char)*s)) {
            s++;
            n--;
        }
        while (n > 0 && isspace((unsigned char)s[n - 1])) {
            n--;
        }
        if (n == 0 || s[0] == '=' || Smi_loopTime(L, s, n)) {
            return;
        }
        if (s[0] != '{' && s[0] != '[') {
            if (n >= 7 && (strncasecmp(s, "WARNING", 7) == 0 || strncasecmp(s, "ERROR", 5) == 0)) {
                return; /* the tool's own warnings on stdout */
            }
            char* shown = Names_sanitize(s, n > 40 ? 40 : n);
            Load_reject(L->core, L->f, line, "expected a JSON document or a date, found '%s'",
                        shown);
            free(shown);
            return;
        }
        j->active = 1;
        j->start_line = line;
    }
    if (!j->oversize && j->len + n + 2 > JS_MAX_DOC) {
        j->oversize = 1;
    }
    if (!j->oversize) {
        if (j->len + n + 2 > j->cap) {
            j->cap = (j->len + n + 2) * 2;
            j->buf = xrealloc(j->buf, j->cap);
        }
        memcpy(j->buf + j->len, s, n);
        j->len += n;
        j->buf[j->len++] = '\n';
    }
    if (scan(j, s, n)) {
        parse_doc(L, j);
    }
}

static void js_end(SmiLoad* L, void* st, long last) {
    Js* j = st;
    if (j->active) {
        Load_reject(L->core, L->f, j->start_line, "JSON document cut short: opened at line %ld,"
                    " not closed by the end of the file (line %ld)", j->start_line, last);
    }
}

static const SmiParser rocm_json = {"rocm-smi / hy-smi JSON", "rocm-smi", js_make, js_line,
                                    js_end, js_drop};
static const SmiParser amd_json = {"amd-smi metric JSON", "amd-smi", js_make, js_line, js_end,
                                   js_drop};

const SmiParser* SmiJson_parser(int form) {
    return form == SMI_AMD_JSON ? &amd_json : &rocm_json;
}
