#include "headsup_libfuzzer.h"

#ifdef FUZZING
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*user_callback)(const uint8_t *data, size_t size));

int headsup_run_libfuzzer(int *argc, char ***argv, headsup_fuzz_entry entry) { return LLVMFuzzerRunDriver(argc, argv, entry); }
#else
int headsup_run_libfuzzer(int *argc, char ***argv, headsup_fuzz_entry entry) {
    (void)argc;
    (void)argv;
    (void)entry;
    return -1;
}
#endif
