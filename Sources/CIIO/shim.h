// Thin wrapper over libiio (Debian: libiio-dev, pkg-config "libiio").
#ifndef HEADSUP_CIIO_SHIM_H
#define HEADSUP_CIIO_SHIM_H
#include <iio.h>
#include <errno.h>

/// libiio reports failures as NULL plus errno; Swift's errno access is awkward
/// across modules, so read it here right after the failing call.
static inline int headsup_iio_errno(void) { return errno; }

#endif
