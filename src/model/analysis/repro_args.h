/* repro_args.h - one recorded aten op call (PyTorch record_shapes=True: the cpu_op columns
 * input_dims, input_types, input_strides, concrete_inputs, JSON text) turned into the Python
 * argument list of the microbenchmark script that repro.c writes. Everything from the trace
 * is checked before it becomes Python text: numbers are printed from parsed values, names
 * are kept to identifier characters and other text is escaped, so a trace cannot put code
 * into the script. */
#ifndef DCUTOP_REPRO_ARGS_H
#define DCUTOP_REPRO_ARGS_H

#include <stdio.h>

/* Writes to out the Python list of argument specs of op `name` (e.g. "aten::mm"), as the
 * script's runtime reads them: T(size, stride, dtype, hi) a tensor (hi: index values in
 * [0, hi), NULL: random), L([...]) a tensor list, S(v) a scalar or a list of scalars, N() an
 * argument the profiler did not record (None or the schema's default). list_dtype: the
 * element dtype of tensor lists, whose dtypes the profiler does not record ("float32" ...).
 * Returns 1 on success; 0 with a one-line reason in reason[cap] (nothing usable written)
 * when the op cannot be rebuilt. Any input is safe; NULL columns mean not recorded. */
int ReproArgs_write(FILE* out, const char* name, const char* dims, const char* types,
                    const char* strides, const char* concrete, const char* list_dtype,
                    char* reason, size_t cap);

/* The torch dtype attribute ("bfloat16") of a recorded tensor type ("c10::BFloat16"), NULL
 * when the type is not a tensor dtype. */
const char* ReproArgs_dtype(const char* recorded);

/* 1 when name is "ns::op" with identifier characters only (what torch.ops.ns.op can reach),
 * and then ns and op copied into the buffers (64 and 128 bytes). */
int ReproArgs_splitName(const char* name, char ns[64], char op[128]);

/* Writes a JSON array column as the same Python literal (lists, numbers, escaped strings),
 * "None" when it is NULL or not a JSON array. */
void ReproArgs_literal(FILE* out, const char* json);

/* Writes text as a Python string literal: printable ASCII as is, the rest escaped. */
void ReproArgs_pyString(FILE* out, const char* text);

/* Copies text into buf for a comment line: printable ASCII only, at most cap-1 bytes. */
void ReproArgs_commentText(char* buf, size_t cap, const char* text);

#endif
