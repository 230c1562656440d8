/* test_shared_intern.c - SharedIntern: every id put is found, absent names give 0, growth
 * keeps every entry, and readers on other threads while the writer puts (and grows the
 * table) only ever see 0 or the right id, and see each name once the put is over (the
 * TSan build of the suite runs this too). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>

#include <cmocka.h>

#include "dcutop/intern.h"
#include "dcutop/shared_intern.h"

enum { NAMES = 5000, READERS = 3 };

static char names[NAMES][48];

static void make_names(void) {
    for (int i = 0; i < NAMES; i++) { /* shared prefixes and lengths: compares must be whole */
        snprintf(names[i], sizeof(names[i]), "Cijk_Alik_Bljk_%d_MT%dx%d", i, i % 7, i % 3);
    }
}

static uint64_t h(int i) {
    return Intern_hash(names[i], strlen(names[i]));
}

static void test_put_get_grow(void** state) {
    (void)state;
    make_names();
    SharedIntern* si = SharedIntern_new();
    for (int i = 0; i < NAMES; i++) {
        assert_int_equal(SharedIntern_get(si, names[i], strlen(names[i]), h(i)), 0);
        SharedIntern_put(si, names[i], strlen(names[i]), h(i), 1000 + i);
        if (i % 97 == 0) { /* everything put so far, through each growth */
            for (int k = 0; k <= i; k++) {
                assert_int_equal(SharedIntern_get(si, names[k], strlen(names[k]), h(k)),
                                 1000 + k);
            }
        }
    }
    assert_int_equal(SharedIntern_count(si), NAMES);
    /* a prefix of a name, and the same hash with other bytes, are not found */
    assert_int_equal(SharedIntern_get(si, names[5], strlen(names[5]) - 1, h(5)), 0);
    char other[48];
    strcpy(other, names[5]);
    other[0] = 'D';
    assert_int_equal(SharedIntern_get(si, other, strlen(other), h(5)), 0);
    assert_int_equal(SharedIntern_get(si, "", 0, Intern_hash("", 0)), 0);
    SharedIntern_delete(si);
}

typedef struct {
    SharedIntern* si;
    atomic_int done;     /* names put so far (the writer's release) */
    atomic_int wrong;    /* a reader saw an id that is not the name's */
    atomic_int lost;     /* a reader missed a name put before it looked */
} Shared;

static void* reader(void* arg) {
    Shared* s = arg;
    unsigned seed = 12345;
    while (atomic_load_explicit(&s->done, memory_order_acquire) < NAMES) {
        int upto = atomic_load_explicit(&s->done, memory_order_acquire);
        seed = seed * 1103515245u + 12345u;
        int i = (int)(seed % NAMES);
        int64_t id = SharedIntern_get(s->si, names[i], strlen(names[i]), h(i));
        if (id != 0 && id != 1000 + i) {
            atomic_fetch_add(&s->wrong, 1);
        }
        if (i < upto && id == 0) {
            atomic_fetch_add(&s->lost, 1);
        }
    }
    return NULL;
}

static void test_readers_while_writing(void** state) {
    (void)state;
    make_names();
    Shared s;
    s.si = SharedIntern_new();
    atomic_init(&s.done, 0);
    atomic_init(&s.wrong, 0);
    atomic_init(&s.lost, 0);
    pthread_t t[READERS];
    for (int k = 0; k < READERS; k++) {
        assert_int_equal(pthread_create(&t[k], NULL, reader, &s), 0);
    }
    for (int i = 0; i < NAMES; i++) {
        SharedIntern_put(s.si, names[i], strlen(names[i]), h(i), 1000 + i);
        atomic_store_explicit(&s.done, i + 1, memory_order_release);
    }
    for (int k = 0; k < READERS; k++) {
        pthread_join(t[k], NULL);
    }
    assert_int_equal(atomic_load(&s.wrong), 0);
    assert_int_equal(atomic_load(&s.lost), 0);
    SharedIntern_delete(s.si);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_grow),
        cmocka_unit_test(test_readers_while_writing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
