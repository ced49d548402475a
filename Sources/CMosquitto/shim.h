// Thin wrapper over libmosquitto, the Eclipse Mosquitto client library
// (Debian: libmosquitto1 at run time, libmosquitto-dev to build).
//
// HeadsUp does not link libmosquitto: it loads it with dlopen when an MQTT
// broker is configured, so a daemon without MQTT never maps libmosquitto and
// the TLS libraries it pulls in (libssl, libcrypto: about 1.8 MB resident).
// The table below holds the functions HeadsUp calls; each field has the type
// of the function of the same name in mosquitto.h, so the header stays the
// one source of their signatures. Constants and types import as usual.
#ifndef HEADSUP_CMOSQUITTO_SHIM_H
#define HEADSUP_CMOSQUITTO_SHIM_H
#include <dlfcn.h>
#include <mosquitto.h>
#include <stddef.h>

/// The library's file name: its soname, stable since libmosquitto 1.x.
#define HEADSUP_LIBMOSQUITTO "libmosquitto.so.1"

#define HEADSUP_MOSQUITTO_FUNCTIONS(X) \
    X(mosquitto_lib_init)              \
    X(mosquitto_new)                   \
    X(mosquitto_destroy)               \
    X(mosquitto_int_option)            \
    X(mosquitto_threaded_set)          \
    X(mosquitto_username_pw_set)       \
    X(mosquitto_will_set)              \
    X(mosquitto_tls_set)               \
    X(mosquitto_user_data_set)         \
    X(mosquitto_connect_callback_set)  \
    X(mosquitto_disconnect_callback_set) \
    X(mosquitto_publish_callback_set)  \
    X(mosquitto_log_callback_set)      \
    X(mosquitto_connect_async)         \
    X(mosquitto_reconnect_async)       \
    X(mosquitto_loop)                  \
    X(mosquitto_disconnect)            \
    X(mosquitto_publish)               \
    X(mosquitto_strerror)              \
    X(mosquitto_connack_string)

typedef struct headsup_mosquitto {
#define HEADSUP_MOSQUITTO_FIELD(name) __typeof__(&name) name;
    HEADSUP_MOSQUITTO_FUNCTIONS(HEADSUP_MOSQUITTO_FIELD)
#undef HEADSUP_MOSQUITTO_FIELD
} headsup_mosquitto;

/// Fills `api` from `library` (opened by HeadsUpSystem's DynamicLibrary);
/// returns NULL, or why the file will not do.
static inline const char *headsup_mosquitto_bind(void *library, headsup_mosquitto *api) {
#define HEADSUP_MOSQUITTO_BIND(name) \
    if ((api->name = (__typeof__(&name))dlsym(library, #name)) == NULL) return "it has no " #name;
    HEADSUP_MOSQUITTO_FUNCTIONS(HEADSUP_MOSQUITTO_BIND)
#undef HEADSUP_MOSQUITTO_BIND
    return NULL;
}

#endif
