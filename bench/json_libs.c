/*
 * json_libs - time the JSON parse alone with two Debian C libraries, for the README's choice
 *
 * Usage: json_libs yajl|json-c FILE
 *   yajl    yajl 2 (libyajl-dev): event-driven (SAX), 64 KiB blocks, nothing kept
 *   json-c  json-c (libjson-c-dev): json_tokener fed the same blocks, builds the whole tree
 * Prints the number of scalar values seen (yajl) or of traceEvents (json-c); run it under
 * /usr/bin/time -f '%e s %M KiB' for wall time and peak RSS (bench/run.sh does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <yajl/yajl_parse.h>

static long long values;
static int v_null(void* c) { (void)c; values++; return 1; }
static int v_bool(void* c, int b) { (void)c; (void)b; values++; return 1; }
static int v_num(void* c, const char* s, size_t n) { (void)c; (void)s; (void)n; values++; return 1; }
static int v_str(void* c, const unsigned char* s, size_t n) { (void)c; (void)s; (void)n; values++; return 1; }
static int v_sm(void* c) { (void)c; return 1; }
static int v_key(void* c, const unsigned char* s, size_t n) { (void)c; (void)s; (void)n; return 1; }
static int v_em(void* c) { (void)c; return 1; }
static int v_sa(void* c) { (void)c; return 1; }
static int v_ea(void* c) { (void)c; return 1; }

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: json_libs yajl|json-c FILE\n");
        return 2;
    }
    FILE* f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 1;
    }
    static unsigned char buf[65536];
    size_t n;
    if (strcmp(argv[1], "yajl") == 0) {
        static const yajl_callbacks cb = {v_null, v_bool, NULL, NULL, v_num, v_str,
                                          v_sm, v_key, v_em, v_sa, v_ea};
        yajl_handle h = yajl_alloc(&cb, NULL, NULL);
        yajl_config(h, yajl_dont_validate_strings, 1);
        while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
            if (yajl_parse(h, buf, n) != yajl_status_ok) {
                fprintf(stderr, "yajl: parse error\n");
                return 1;
            }
        }
        if (yajl_complete_parse(h) != yajl_status_ok) {
            fprintf(stderr, "yajl: parse error at end\n");
            return 1;
        }
        yajl_free(h);
        printf("yajl: %lld values\n", values);
    } else {
        json_tokener* tok = json_tokener_new();
        json_object* root = NULL;
        enum json_tokener_error e = json_tokener_continue;
        while (e == json_tokener_continue && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
            root = json_tokener_parse_ex(tok, (const char*)buf, (int)n);
            e = json_tokener_get_error(tok);
        }
        if (!root) {
            fprintf(stderr, "json-c: %s\n", json_tokener_error_desc(e));
            return 1;
        }
        json_object* ev = NULL;
        size_t len = json_object_object_get_ex(root, "traceEvents", &ev) ? json_object_array_length(ev) : 0;
        printf("json-c: %zu traceEvents\n", len);
        json_object_put(root);
        json_tokener_free(tok);
    }
    fclose(f);
    return 0;
}
