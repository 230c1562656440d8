/* error.h - status codes and the error message that travels with them.
 * Functions return a DcuStatus and, on failure, fill the caller's DcuError
 * (tig's STATUS_CODE_INFO, but the message lives in the caller's struct so
 * tests can read it). Nothing below main() exits. */
#ifndef DCUTOP_ERROR_H
#define DCUTOP_ERROR_H

#define DCU_STATUS_INFO(_)                                                                    \
    _(OK, "ok")                                                                               \
    _(ERR_IO, "I/O error")                                                                    \
    _(ERR_PARSE, "bad input")                                                                 \
    _(ERR_FORMAT, "unrecognised format")                                                      \
    _(ERR_SQL, "SQLite error")                                                                \
    _(ERR_REGEX, "bad regular expression")                                                    \
    _(ERR_RULES, "bad rules file")                                                            \
    _(ERR_NOMEM, "out of memory")                                                             \
    _(ERR_USAGE, "bad usage")                                                                 \
    _(ERR_EMPTY, "nothing loadable")                                                          \
    _(ERR_CUT, "input cut short")

#define DCU_ENUM(id, text) DCU_##id,
typedef enum { DCU_STATUS_INFO(DCU_ENUM) DCU_STATUS_COUNT } DcuStatus;
#undef DCU_ENUM

typedef struct DcuError_ {
    DcuStatus code;
    char msg[512]; /* human-readable, already sanitized, may be empty */
} DcuError;

/* Sets err (may be NULL) and returns code, so callers can `return Error_set(...)`. */
DcuStatus Error_set(DcuError* err, DcuStatus code, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Static text for a status code. */
const char* Error_statusText(DcuStatus code);

void Error_clear(DcuError* err);

#endif
