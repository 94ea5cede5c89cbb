// What `git fast-import` gets added to its environment, by the corpora and by the tests. It frees
// and reallocates buffers per object, and glibc gives the memory back to the kernel and asks for it
// again each time (system time in brk): on a machine where a fresh page costs 12 us, 70,000 small
// blobs took 15-20 s instead of 0.3 s. Only the allocator's bookkeeping changes: git writes the
// same objects.
export const FAST_IMPORT_MALLOC: NodeJS.ProcessEnv = { MALLOC_TOP_PAD_: String(64 << 20), MALLOC_TRIM_THRESHOLD_: String(256 << 20) };
