/* fuzz_rules.c - the category rules file parser (category.c: `category<TAB>regex` lines,
 * %gemm and %replace directives), then classification of a few kernel names with the
 * rules it accepted, and the dump `--list-rules` prints. */
#include <stdlib.h>
#include <string.h>

#include "dcutop/category.h"
#include "fuzz_common.h"

static const char* const kernel_names[] = {
    "Cijk_Alik_Bljk_SB_MT128x128x16_MI32x32x2x1",
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
    "__amd_rocclr_copyBuffer.kd",
    "",
};

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char* text = Fuzz_text(data, size);
    RuleSet* rules = RuleSet_new(size > 0 && (data[0] & 1));
    DcuError err;
    Error_clear(&err);
    if (RuleSet_parse(rules, text, "fuzz.rules", &err) == DCU_OK) {
        for (size_t i = 0; i < sizeof(kernel_names) / sizeof(kernel_names[0]); i++) {
            CategoryMatch m = RuleSet_classify(rules, kernel_names[i], strlen(kernel_names[i]));
            RuleSet_isGemm(rules, m.category);
        }
        free(RuleSet_dump(rules));
    }
    RuleSet_delete(rules);
    free(text);
    return 0;
}
