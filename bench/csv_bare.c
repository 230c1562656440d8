/* csv_bare.c - the floor for dcutop's CSV parser: libcsv alone over a file, read in 1 MiB
 * blocks, with callbacks that only count fields and rows (issue 11: "<= 2.1x bare libcsv
 * parse"). Usage: csv_bare FILE. Prints "rows fields bytes". Same options as dcutop's reader
 * (csv_reader.c: CSV_APPEND_NULL off, strict off). */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>

static size_t fields, rows;

static void on_field(void* s, size_t len, void* data) {
    (void)s;
    (void)len;
    (void)data;
    fields++;
}

static void on_row(int c, void* data) {
    (void)c;
    (void)data;
    rows++;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: csv_bare FILE\n");
        return 2;
    }
    FILE* fp = fopen(argv[1], "rb");
    if (!fp) {
        perror(argv[1]);
        return 2;
    }
    struct csv_parser p;
    if (csv_init(&p, 0) != 0) {
        return 2;
    }
    static char buf[1 << 20];
    size_t n, bytes = 0;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
        bytes += n;
        if (csv_parse(&p, buf, n, on_field, on_row, NULL) != n) {
            fprintf(stderr, "%s: %s\n", argv[1], csv_strerror(csv_error(&p)));
            return 1;
        }
    }
    csv_fini(&p, on_field, on_row, NULL);
    csv_free(&p);
    fclose(fp);
    printf("%zu %zu %zu\n", rows, fields, bytes);
    return 0;
}
