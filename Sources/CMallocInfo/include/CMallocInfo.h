#ifndef CMALLOCINFO_H
#define CMALLOCINFO_H

#include <stddef.h>

/// The bytes malloc has handed out and not had back: glibc's mallinfo2, chunks in use in every arena
/// plus the chunks it mapped on their own. 0 where the C library does not say (not glibc, or older
/// than 2.33).
size_t realm_bench_heap_in_use(void);

#endif
