// realm-bench's memory-per-session row needs the heap's bytes in use: the resident set size does not
// grow while malloc reuses pages that earlier workloads freed, so it undercounts small, late figures.
#include <stdlib.h>

#include "CMallocInfo.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

size_t realm_bench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#else
size_t realm_bench_heap_in_use(void) { return 0; }
#endif
