/* format.h - numbers and names for people: units chosen per column, names cut in the
 * middle of their template arguments, display width of UTF-8 text. No curses. */
#ifndef DCUTOP_FORMAT_H
#define DCUTOP_FORMAT_H

#include <stddef.h>
#include <stdint.h>

typedef enum { UNIT_NS, UNIT_US, UNIT_MS, UNIT_S } TimeUnit;

/* The unit for a column whose largest value is max_ns: the largest unit in which that
 * value still reads as at least 10 (825 ms -> ms, 6917 ns -> us, 900 ns -> ns). */
TimeUnit Format_unitFor(int64_t max_ns);
const char* Format_unitName(TimeUnit u);
/* ns in unit u: "824.96" (2 decimals, none for ns). */
void Format_duration(char* buf, size_t cap, int64_t ns, TimeUnit u);
/* The same for a value that need not be whole (an average), rounded once, half away from
 * zero: 56985.21 ns -> "56.99" us, 142015 ns -> "142.02" us. */
void Format_durationExact(char* buf, size_t cap, double ns, TimeUnit u);
/* Duration with its own unit: "825.0 ms", "6.9 us". */
void Format_durationAuto(char* buf, size_t cap, int64_t ns);
void Format_bytes(char* buf, size_t cap, int64_t bytes);
/* "1.28x"; "inf" for INFINITY. */
void Format_ratio(char* buf, size_t cap, double r);

/* Display width (terminal cells) of UTF-8 text: wide East Asian characters count 2,
 * combining marks 0, invalid bytes 1. */
int Format_width(const char* s);
/* The character at s: *len gets its byte length, the result its width in cells
 * (0 combining, 1, 2), or -1 for a control character or an invalid byte. */
int Format_nextChar(const char* s, int* len);
/* Writes code point cp as UTF-8 into out (4 bytes of room); returns the byte count. */
int Format_utf8Encode(unsigned int cp, char* out);

/* Fits a name into width cells. Long C++ names are cut in the middle of their template
 * arguments, keeping the function name and the end: "foo<4, at::n…, 3ul> >".
 * Writes at most cap bytes (NUL included) into out; returns out. */
char* Format_cutName(const char* name, int width, char* out, size_t cap);

/* Cuts text at the end with an ellipsis when it is wider than width cells. */
char* Format_cutEnd(const char* s, int width, char* out, size_t cap);

/* Pads or cuts text to exactly width cells (left or right aligned) into out. */
char* Format_fit(const char* s, int width, int right, char* out, size_t cap);

#endif
