/* shortname.h - the one name shortener of the program. The model computes every kernel's
 * short name once after loading (unique among the loaded kernels, with the tokens that tell
 * it apart from its look-alikes); views, the report and exports fit it to a width with
 * ShortName_fit(), so one kernel reads the same on every screen.
 *
 * Short names are stored in kernel.short_name; the distinguishing tokens in
 * kernel.short_keys as byte ranges into short_name ("12-20 31-39"). */
#ifndef DCUTOP_SHORTNAME_H
#define DCUTOP_SHORTNAME_H

#include <stddef.h>

#include "dcutop/error.h"
#include "dcutop/trace_db.h"

/* The short form of a full kernel name before any width applies: return type, argument
 * list and namespace qualifiers dropped, template arguments kept; never a lone keyword
 * ("void (anonymous namespace)::softmax_warp_forward<float>(...)" ->
 * "softmax_warp_forward<float>"). New heap string (free()). */
char* ShortName_base(const char* full);

/* Distinguishing tokens of names[i] among all n names, as "s-e s-e" byte ranges into
 * names[i] (a new heap string, "" when the first word alone tells it apart). */
char** ShortName_keysFor(const char* const* names, int n);

/* Gives every loaded kernel its short_name (unique among the loaded kernels) and
 * short_keys. Called once after loading. */
DcuStatus ShortName_assignAll(TraceDb* db, DcuError* err);

/* The kernels of a comparison, both sides at once (full names; a name may repeat): each
 * one's registered keys gain the words that tell it apart from the others, so that a kernel
 * new in B and one gone from A that differ by one word read differently in every diff view. */
void ShortName_registerAcross(const char* const* full, int n);

/* The full name of a loaded kernel given its full or short name (borrowed, valid until
 * ShortName_forget); NULL when no loaded kernel has that name. */
const char* ShortName_fullName(const char* name);

/* Forgets the names ShortName_assignAll registered (tests; the end of the program). */
void ShortName_forget(void);

/* Fits a kernel name into width cells. A loaded kernel's full or short name is shown as its
 * short name with its keys (both registered by ShortName_assignAll), so every caller shows
 * one kernel the same way. The width is used in full: the whole name when it
 * fits; otherwise the first word and every key range stay, and the rest of the width shows
 * as much of the name as fits, dropped runs marked with one "…" each. keys may be NULL
 * (a name from no kernel table: namespaces are dropped and a functor/op/tile token kept).
 * Writes at most cap bytes (NUL included) into out; returns out. */
char* ShortName_fit(const char* name, const char* keys, int width, char* out, size_t cap);

/* A word or two that names a loaded kernel in a sentence: its most telling key identifier
 * ("direct_copy" for elementwise_kernel<…direct_copy_kernel_cuda…>), else its function name,
 * without a "_kernel" / "_cuda" suffix. Not unique. Writes into out; returns out. */
char* ShortName_label(const char* name, char* out, size_t cap);

/* A call-stack frame for people: " at 0x…" addresses dropped
 * ("<built-in method cat of type object at 0x7f…>" -> "<built-in method cat of type object>").
 * New heap string. */
char* ShortName_frame(const char* frame);

/* Fits a frame into width cells: a Python frame "dir/file.py(64): fn" keeps "file.py(64)"
 * and the function name, dropping directories first. */
char* ShortName_fitFrame(const char* frame, int width, char* out, size_t cap);

/* Indentation of a tree row at depth in a name column of room cells, perf report style: two
 * cells a level while the name keeps at least half the room (24 cells at least); deeper rows
 * stop there and tag is set to "[depth] " (else ""), to be printed before the name. */
int ShortName_indent(int depth, int room, char* tag, size_t cap);

#endif
