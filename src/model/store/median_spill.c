/* median_spill.c - see median_spill.h. */
#include "dcutop/median_spill.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dcutop/trace_db.h"
#include "dcutop/xalloc.h"

typedef struct {
    off_t at; /* byte offset of the chunk in the temp file */
    int64_t n;
} Chunk;

struct MedianSpill_ {
    int64_t limit;
    int64_t* buf;
    int64_t nbuf, capbuf;
    FILE* tmp;      /* sorted chunks, one after another; NULL: none yet */
    int no_tmp;     /* no temp file could be made or written: keep the rest in memory */
    Chunk* chunks;
    int nchunks;
    off_t end;
    int64_t count, min, max;
};

MedianSpill* MedianSpill_new(int64_t limit) {
    MedianSpill* this = xcalloc(1, sizeof(*this));
    this->limit = limit > 0 ? limit : 1;
    return this;
}

void MedianSpill_delete(MedianSpill* this) {
    if (this) {
        free(this->buf);
        free(this->chunks);
        if (this->tmp) {
            fclose(this->tmp);
        }
        free(this);
    }
}

int64_t MedianSpill_count(const MedianSpill* this) {
    return this->count;
}

int MedianSpill_spilled(const MedianSpill* this) {
    return this->nchunks > 0;
}

static int cmp_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* An unlinked temp file where SQLite puts its own (TraceDb_tempDir): one place for the
 * user to point at a roomy disk. NULL when none can be made. */
static FILE* temp_file(void) {
    char* path = xasprintf("%s/dcutop-gaps-XXXXXX", TraceDb_tempDir());
    int fd = mkstemp(path);
    FILE* f = NULL;
    if (fd >= 0) {
        unlink(path); /* nothing is left behind, whatever happens next */
        f = fdopen(fd, "w+b");
        if (!f) {
            close(fd);
        }
    }
    free(path);
    return f;
}

/* The buffer, sorted, as one more chunk of the temp file; 0 when it cannot be written. */
static int spill(MedianSpill* this) {
    if (!this->tmp && !this->no_tmp) {
        this->tmp = temp_file();
        this->no_tmp = this->tmp == NULL;
    }
    if (!this->tmp) {
        return 0;
    }
    qsort(this->buf, (size_t)this->nbuf, sizeof(int64_t), cmp_i64);
    if (fseeko(this->tmp, this->end, SEEK_SET) != 0 ||
        fwrite(this->buf, sizeof(int64_t), (size_t)this->nbuf, this->tmp) !=
            (size_t)this->nbuf ||
        fflush(this->tmp) != 0) {
        this->no_tmp = 1; /* the chunks written stay valid; the rest stays in memory */
        return 0;
    }
    this->chunks = xrealloc(this->chunks, sizeof(Chunk) * (size_t)(this->nchunks + 1));
    this->chunks[this->nchunks++] = (Chunk){this->end, this->nbuf};
    this->end += (off_t)(this->nbuf * (int64_t)sizeof(int64_t));
    this->nbuf = 0;
    return 1;
}

void MedianSpill_add(MedianSpill* this, const int64_t* v, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (this->nbuf >= this->limit && !this->no_tmp) {
            spill(this); /* on success the buffer is empty again */
        }
        if (this->nbuf == this->capbuf) {
            this->capbuf = this->capbuf ? this->capbuf * 2 : 1024;
            this->buf = xrealloc(this->buf, sizeof(int64_t) * (size_t)this->capbuf);
        }
        this->buf[this->nbuf++] = v[i];
        if (this->count == 0 || v[i] < this->min) {
            this->min = v[i];
        }
        if (this->count == 0 || v[i] > this->max) {
            this->max = v[i];
        }
        this->count++;
    }
}

int64_t MedianSpill_kth(int64_t* v, int64_t n, int64_t k) {
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        int64_t pivot = v[lo + (hi - lo) / 2], i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) {
                i++;
            }
            while (v[j] > pivot) {
                j--;
            }
            if (i <= j) {
                int64_t t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            return v[k];
        }
    }
    return v[k];
}

/* Values <= x in sorted v[0..n) (in memory). */
static int64_t count_le_mem(const int64_t* v, int64_t n, int64_t x) {
    int64_t a = 0, b = n;
    while (a < b) {
        int64_t m = a + (b - a) / 2;
        if (v[m] <= x) {
            a = m + 1;
        } else {
            b = m;
        }
    }
    return a;
}

/* Values <= x in a sorted chunk of the temp file (a read a probe); -1 on a read error. */
static int64_t count_le_file(FILE* f, const Chunk* c, int64_t x) {
    int64_t a = 0, b = c->n;
    while (a < b) {
        int64_t m = a + (b - a) / 2, v;
        if (pread(fileno(f), &v, sizeof(v), c->at + (off_t)(m * (int64_t)sizeof(v))) !=
            (ssize_t)sizeof(v)) {
            return -1;
        }
        if (v <= x) {
            a = m + 1;
        } else {
            b = m;
        }
    }
    return a;
}

/* The k-th smallest over the chunks and the (sorted) buffer: the least x with more than k
 * values <= x, by bisection between min and max (64 probes at most). */
static int64_t kth_spilled(MedianSpill* this, int64_t k) {
    int64_t lo = this->min, hi = this->max;
    while (lo < hi) {
        int64_t mid = (int64_t)((uint64_t)lo + ((uint64_t)hi - (uint64_t)lo) / 2);
        int64_t le = count_le_mem(this->buf, this->nbuf, mid);
        for (int c = 0; c < this->nchunks && le >= 0; c++) {
            int64_t m = count_le_file(this->tmp, &this->chunks[c], mid);
            le = m < 0 ? -1 : le + m;
        }
        if (le < 0) {
            return 0; /* the temp file could not be read back: no answer beats a wrong one */
        }
        if (le > k) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

int64_t MedianSpill_middle(int64_t lo, int64_t hi) {
    uint64_t d = (uint64_t)hi - (uint64_t)lo; /* exact: hi >= lo */
    return (int64_t)((uint64_t)lo + d / 2 + (d & 1));
}

int64_t MedianSpill_median(MedianSpill* this) {
    int64_t n = this->count;
    if (n == 0) {
        return 0;
    }
    int64_t hi, lo;
    if (this->nchunks == 0) {
        hi = MedianSpill_kth(this->buf, n, n / 2);
        lo = n % 2 ? hi : MedianSpill_kth(this->buf, n, n / 2 - 1);
    } else {
        qsort(this->buf, (size_t)this->nbuf, sizeof(int64_t), cmp_i64);
        hi = kth_spilled(this, n / 2);
        lo = n % 2 ? hi : kth_spilled(this, n / 2 - 1);
    }
    return MedianSpill_middle(lo, hi);
}
