// Thin wrapper over libmosquitto, the Eclipse Mosquitto client library
// (Debian: libmosquitto-dev, pkg-config "libmosquitto"). Everything Swift
// needs imports as is; this header only names it.
#ifndef HEADSUP_CMOSQUITTO_SHIM_H
#define HEADSUP_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
