// Thin wrapper over libcurl (Debian: libcurl4 at run time,
// libcurl4-openssl-dev to build), for the webhook sink.
//
// HeadsUp does not link libcurl: it loads it with dlopen when a webhook is
// configured, so a daemon without one never maps libcurl and what it pulls
// in (libssl, libcrypto, gnutls, krb5, ldap, ...: about 4 MB resident).
// Each field of the table has the type of the function of the same name in
// curl.h, so the header stays the one source of their signatures.
#ifndef HEADSUP_CCURL_SHIM_H
#define HEADSUP_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>

/// The library's file name: its soname, stable since libcurl 7.16.
#define HEADSUP_LIBCURL "libcurl.so.4"

#define HEADSUP_CURL_FUNCTIONS(X)                                                                          \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_perform) X(curl_easy_getinfo)    \
    X(curl_easy_cleanup) X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)

typedef struct headsup_curl {
#define HEADSUP_CURL_FIELD(name) __typeof__(&name) name;
    HEADSUP_CURL_FUNCTIONS(HEADSUP_CURL_FIELD)
#undef HEADSUP_CURL_FIELD
} headsup_curl;

/// Fills `api` from `library` (opened by HeadsUpSystem's DynamicLibrary)
/// and initializes libcurl (once per process: curl_global_init is not
/// thread-safe); returns NULL, or why the file will not do.
static inline const char *headsup_curl_bind(void *library, headsup_curl *api) {
#define HEADSUP_CURL_BIND(name) \
    if ((api->name = (__typeof__(&name))dlsym(library, #name)) == NULL) return "it has no " #name;
    HEADSUP_CURL_FUNCTIONS(HEADSUP_CURL_BIND)
#undef HEADSUP_CURL_BIND
    if (api->curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return "curl_global_init failed";
    return NULL;
}

/// The answer's body is not needed (libcurl would print it to stdout).
static inline size_t headsup_curl_discard(char *data, size_t size, size_t count, void *context) {
    (void)data;
    (void)context;
    return size * count;
}

/// POSTs `length` bytes of JSON to `url` within `timeout_ms`. Returns
/// CURLE_OK with the HTTP status in `status`, or curl's error code with its
/// message in `error` (CURL_ERROR_SIZE bytes). curl_easy_setopt is
/// variadic, which Swift cannot call: hence this function.
static inline int headsup_curl_post_json(const headsup_curl *api, const char *url, const char *body, size_t length,
                                         long timeout_ms, long *status, char *error) {
    error[0] = '\0';
    *status = 0;
    CURL *curl = api->curl_easy_init();
    if (curl == NULL) {
        snprintf(error, CURL_ERROR_SIZE, "curl_easy_init failed");
        return CURLE_FAILED_INIT;
    }
    struct curl_slist *headers = api->curl_slist_append(NULL, "Content-Type: application/json");
    // (api->curl_easy_setopt)(...): curl.h defines curl_easy_setopt and
    // curl_easy_getinfo as function-like macros too, and curl 8.23's (Debian
    // sid) gives clang its type-checking ones (typecheck-gcc.h), which do not
    // expand after `api->`; in parentheses the name is not a macro call.
    (api->curl_easy_setopt)(curl, CURLOPT_URL, url);
    (api->curl_easy_setopt)(curl, CURLOPT_POSTFIELDS, body);
    (api->curl_easy_setopt)(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)length);
    (api->curl_easy_setopt)(curl, CURLOPT_HTTPHEADER, headers);
    (api->curl_easy_setopt)(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    // Called from a worker thread: no SIGALRM for name-lookup timeouts.
    (api->curl_easy_setopt)(curl, CURLOPT_NOSIGNAL, 1L);
    (api->curl_easy_setopt)(curl, CURLOPT_ERRORBUFFER, error);
    (api->curl_easy_setopt)(curl, CURLOPT_WRITEFUNCTION, headsup_curl_discard);
    CURLcode code = api->curl_easy_perform(curl);
    if (code == CURLE_OK) {
        (api->curl_easy_getinfo)(curl, CURLINFO_RESPONSE_CODE, status);
    } else if (error[0] == '\0') {
        snprintf(error, CURL_ERROR_SIZE, "%s", api->curl_easy_strerror(code));
    }
    api->curl_slist_free_all(headers);
    api->curl_easy_cleanup(curl);
    return (int)code;
}

#endif
