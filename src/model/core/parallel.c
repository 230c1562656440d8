/* parallel.c - see parallel.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "dcutop/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "dcutop/xalloc.h"

static int g_threads; /* --threads; 0: the CPUs available */

void Parallel_setThreads(int n) {
    g_threads = n > 0 ? n : 0;
}

int Parallel_threads(void) {
    if (g_threads > 0) {
        return g_threads;
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
        return CPU_COUNT(&set);
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int Parallel_parts(int64_t n, int64_t min_part) {
    const char* least = getenv("DCUTOP_PART_MIN"); /* tests: parts of a few items */
    if (least && atoll(least) > 0) {
        min_part = atoll(least);
    }
    int64_t k = min_part > 0 ? n / min_part : n;
    int t = Parallel_threads();
    return k < 1 ? 1 : k < t ? (int)k : t;
}

void Parallel_range(int64_t n, int parts, int p, int64_t* lo, int64_t* hi) {
    /* n / parts * p + the remainder's share: no n * p product to overflow */
    int64_t q = n / parts, rem = n % parts;
    *lo = q * p + (p < rem ? p : rem);
    *hi = *lo + q + (p < rem);
}

typedef struct {
    ParallelFn fn;
    void* ctx;
    int part, parts;
    int64_t n;
} Job;

static void run_job(const Job* j) {
    int64_t lo, hi;
    Parallel_range(j->n, j->parts, j->part, &lo, &hi);
    j->fn(j->ctx, j->part, lo, hi);
}

static void* job_main(void* arg) {
    run_job(arg);
    return NULL;
}

void Parallel_for(int64_t n, int parts, ParallelFn fn, void* ctx) {
    if (parts <= 1 || n <= 1) {
        fn(ctx, 0, 0, n);
        return;
    }
    if (parts > n) {
        parts = (int)n;
    }
    Job* jobs = xmalloc(sizeof(*jobs) * (size_t)parts);
    pthread_t* th = xmalloc(sizeof(*th) * (size_t)parts);
    char* started = xmalloc((size_t)parts);
    for (int p = 0; p < parts; p++) {
        jobs[p] = (Job){fn, ctx, p, parts, n};
    }
    for (int p = 1; p < parts; p++) {
        started[p] = pthread_create(&th[p], NULL, job_main, &jobs[p]) == 0;
    }
    run_job(&jobs[0]);
    for (int p = 1; p < parts; p++) {
        if (started[p]) {
            pthread_join(th[p], NULL);
        } else {
            run_job(&jobs[p]); /* no thread to be had: the parts still all run */
        }
    }
    free(started);
    free(th);
    free(jobs);
}
