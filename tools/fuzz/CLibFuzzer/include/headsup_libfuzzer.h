// The one call into libFuzzer: its driver, run from the fuzzer target's own
// main. SwiftPM gives an executable target a main of its own, so libFuzzer's
// main cannot be used; LLVMFuzzerRunDriver is libFuzzer's entry for that case.
#ifndef HEADSUP_LIBFUZZER_H
#define HEADSUP_LIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

typedef int (*headsup_fuzz_entry)(const uint8_t *data, size_t size);

/// Runs libFuzzer with the command line's arguments over `entry` when built
/// with -D FUZZING (make fuzz); returns -1 in a plain build, which has no libFuzzer.
int headsup_run_libfuzzer(int *argc, char ***argv, headsup_fuzz_entry entry);

#endif
