/* error.c - status texts and Error_set(). */
#include "dcutop/error.h"

#include <stdarg.h>
#include <stdio.h>

#define DCU_TEXT(id, text) text,
static const char* const status_text[] = {DCU_STATUS_INFO(DCU_TEXT)};
#undef DCU_TEXT

DcuStatus Error_set(DcuError* err, DcuStatus code, const char* fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

const char* Error_statusText(DcuStatus code) {
    if ((int)code < 0 || code >= DCU_STATUS_COUNT) {
        return "unknown status";
    }
    return status_text[code];
}

void Error_clear(DcuError* err) {
    if (err) {
        err->code = DCU_OK;
        err->msg[0] = '\0';
    }
}
