// Thin wrapper over sd-bus and sd_notify (Debian: libsystemd-dev, pkg-config "libsystemd").
// sd-bus's variadic calls (sd_bus_message_read/append, sd_bus_call_method) do
// not import into Swift: callers use the _basic/container functions, and the
// error constants that are macros get functions here.
#ifndef HEADSUP_CSDBUS_SHIM_H
#define HEADSUP_CSDBUS_SHIM_H
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

/// SD_BUS_ERROR_NULL is a compound-literal macro.
static inline sd_bus_error headsup_sd_bus_error_null(void) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    return e;
}

/// sd_notify takes a plain string; wrapping it keeps the unit's READY/WATCHDOG calls in one place.
static inline int headsup_sd_notify(const char *state) { return sd_notify(0, state); }

#endif
