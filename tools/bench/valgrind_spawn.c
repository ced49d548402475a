/* Under valgrind, /proc/self/fd lists valgrind's own descriptors, above the
   client's RLIMIT_NOFILE: adding a close action for one fails with EBADF,
   and with it the spawn. Such descriptors are skipped here. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <spawn.h>
#include <sys/resource.h>

int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *actions, int fd) {
    static int (*next)(posix_spawn_file_actions_t *, int);
    if (!next) next = (int (*)(posix_spawn_file_actions_t *, int))dlsym(RTLD_NEXT, "posix_spawn_file_actions_addclose");
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && (rlim_t)fd >= limit.rlim_cur) return 0;
    return next(actions, fd);
}
