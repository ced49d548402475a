// Thin wrapper over libhdf5 (Debian: libhdf5-103-1 on bookworm, libhdf5-310
// on trixie at run time; libhdf5-dev to build).
//
// HeadsUp does not link libhdf5: only the short-lived child that reads a
// model file (`headsup model check`) calls it, so the child loads it with
// dlopen and the daemon never maps libhdf5 or what Debian's build of it
// pulls in (libcurl, libcrypto, and through them gnutls, krb5, ldap, ...:
// about 5 MB resident). The table below holds the functions HeadsUp calls;
// each field has the type of the function of the same name in hdf5.h, so the
// header stays the one source of their signatures. The header's macros for
// property lists and native types read global variables behind H5open();
// the table holds those values too, read after H5open().
#ifndef HEADSUP_CHDF5_SHIM_H
#define HEADSUP_CHDF5_SHIM_H
#include <dlfcn.h>
// Without pkg-config's flags (they would link the library): the header where
// Debian and Ubuntu put it, or on the default path.
#if __has_include(<hdf5/serial/hdf5.h>)
#include <hdf5/serial/hdf5.h>
#else
#include <hdf5.h>
#endif
#include <stdio.h>

// The table binds each function by the name written here, so a function
// that hdf5.h maps to a versioned name through the API-compatibility macros
// (H5Oget_info is H5Oget_info1 under 1.10's default 1.8 API and
// H5Oget_info3 under 1.14's) must be listed by its versioned name. Those
// below have one signature from 1.10 to 1.14 (checked against Debian
// bookworm's 1.10.8 and trixie's 1.14.5 headers; hid_t is 64-bit in both),
// except the two that 1.12 deprecated, which come from
// HEADSUP_HDF5_VERSIONED_FUNCTIONS.
#define HEADSUP_HDF5_FUNCTIONS(X)                                                                                     \
    X(H5open) X(H5get_libversion) X(H5Eset_auto2) X(H5Fopen) X(H5Fclose) X(H5Pcreate) X(H5Pclose)                     \
    X(H5Pset_fapl_core) X(H5Pset_file_image) X(H5Lexists) X(H5Lget_name_by_idx) X(H5Gget_info) X(H5Oopen) X(H5Oclose) \
    X(H5Aexists) X(H5Aopen) X(H5Aclose) X(H5Aget_type) X(H5Aget_space) X(H5Aread) X(H5Tclose) X(H5Tcopy)             \
    X(H5Tget_class) X(H5Tset_cset) X(H5Tget_cset) X(H5Tis_variable_str) X(H5Tset_size) X(H5Tget_size)                 \
    X(H5Tset_strpad) X(H5Sclose) X(H5Sget_simple_extent_npoints) X(H5Sget_simple_extent_ndims)                        \
    X(H5Sget_simple_extent_dims) X(H5Dopen2) X(H5Dclose) X(H5Dget_type) X(H5Dget_space) X(H5Dread)                    \
    HEADSUP_HDF5_VERSIONED_FUNCTIONS(X)

/// 1.12 deprecated H5Fis_hdf5 and H5Dvlen_reclaim for H5Fis_accessible and
/// H5Treclaim (a library built without deprecated symbols has only the new
/// ones); 1.10 has no H5Fis_accessible. Each build uses its version's own.
#if H5_VERSION_GE(1, 12, 0)
#define HEADSUP_HDF5_VERSIONED_FUNCTIONS(X) X(H5Fis_accessible) X(H5Treclaim)
#else
#define HEADSUP_HDF5_VERSIONED_FUNCTIONS(X) X(H5Fis_hdf5) X(H5Dvlen_reclaim)
#endif

/// The libhdf5 version these headers are (the library loaded must match its
/// major and minor version), and the Debian package that ships that
/// library: the package is named after the ABI (1.10: 103, 1.12: 200, 1.14: 310).
#define HEADSUP_HDF5_STRINGIFY2(x) #x
#define HEADSUP_HDF5_STRINGIFY(x) HEADSUP_HDF5_STRINGIFY2(x)
#define HEADSUP_HDF5_BUILT_VERSION HEADSUP_HDF5_STRINGIFY(H5_VERS_MAJOR) "." HEADSUP_HDF5_STRINGIFY(H5_VERS_MINOR)
#if H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 10
#define HEADSUP_HDF5_DEBIAN_PACKAGE "libhdf5-103-1"
#elif H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 12
#define HEADSUP_HDF5_DEBIAN_PACKAGE "libhdf5-200"
#elif H5_VERS_MAJOR == 1 && H5_VERS_MINOR == 14
#define HEADSUP_HDF5_DEBIAN_PACKAGE "libhdf5-310"
#else
#define HEADSUP_HDF5_DEBIAN_PACKAGE "libhdf5 " HEADSUP_HDF5_BUILT_VERSION
#endif
static inline const char *headsup_hdf5_built_version(void) { return HEADSUP_HDF5_BUILT_VERSION; }
static inline const char *headsup_hdf5_debian_package(void) { return HEADSUP_HDF5_DEBIAN_PACKAGE; }

/// The global identifiers behind H5T_NATIVE_FLOAT, H5T_C_S1 and H5P_FILE_ACCESS.
#define HEADSUP_HDF5_VARIABLES(X) X(H5T_NATIVE_FLOAT_g) X(H5T_NATIVE_DOUBLE_g) X(H5T_C_S1_g) X(H5P_CLS_FILE_ACCESS_ID_g)

typedef struct headsup_hdf5 {
#define HEADSUP_HDF5_FUNCTION_FIELD(name) __typeof__(&name) name;
    HEADSUP_HDF5_FUNCTIONS(HEADSUP_HDF5_FUNCTION_FIELD)
#undef HEADSUP_HDF5_FUNCTION_FIELD
#define HEADSUP_HDF5_VARIABLE_FIELD(name) hid_t name;
    HEADSUP_HDF5_VARIABLES(HEADSUP_HDF5_VARIABLE_FIELD)
#undef HEADSUP_HDF5_VARIABLE_FIELD
} headsup_hdf5;

/// The constants of hdf5.h that are plain numbers (no global behind them).
static const hid_t headsup_H5P_DEFAULT = H5P_DEFAULT;
static const hid_t headsup_H5S_ALL = H5S_ALL;
static const hid_t headsup_H5E_DEFAULT = H5E_DEFAULT;
/// H5F_ACC_RDONLY's value: the macro also calls H5check() and H5open(), which are not linked.
static const unsigned headsup_H5F_ACC_RDONLY = 0x0000u;
/// A function, not a constant: Swift would read (size_t)-1 as a literal that overflows Int.
static inline size_t headsup_H5T_VARIABLE(void) { return H5T_VARIABLE; }

/// Whether `path` is an HDF5 file (> 0), with the function of the version built for.
static inline htri_t headsup_hdf5_is_hdf5(headsup_hdf5 api, const char *path) {
#if H5_VERSION_GE(1, 12, 0)
    return api.H5Fis_accessible(path, H5P_DEFAULT);
#else
    return api.H5Fis_hdf5(path);
#endif
}

/// Frees the strings H5Aread allocated for a variable-length string attribute.
static inline herr_t headsup_hdf5_reclaim(headsup_hdf5 api, hid_t type, hid_t space, void *buffer) {
#if H5_VERSION_GE(1, 12, 0)
    return api.H5Treclaim(type, space, H5P_DEFAULT, buffer);
#else
    return api.H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
#endif
}

/// The library's names to try, in order. Distributions name it after the
/// ABI (103 for 1.10, 200 for 1.12, 310 for 1.14) and Debian adds
/// `_serial`; each candidate is checked against the version of the headers
/// HeadsUp was built with, since the ABI changes between minor versions.
#define HEADSUP_HDF5_NAMES                                                                                \
    "libhdf5_serial.so.103", "libhdf5.so.103", "libhdf5_serial.so.200", "libhdf5.so.200",                \
        "libhdf5_serial.so.310", "libhdf5.so.310", "libhdf5_serial.so.320", "libhdf5.so.320", "libhdf5.so"

/// Binds every function and reads the globals of `library`; returns NULL or
/// why not (into `problem`).
static inline const char *headsup_hdf5_bind(void *library, headsup_hdf5 *api, char *problem, size_t size) {
#define HEADSUP_HDF5_BIND(name)                                                          \
    if ((api->name = (__typeof__(&name))dlsym(library, #name)) == NULL) {                \
        snprintf(problem, size, "it has no %s", #name);                                  \
        return problem;                                                                  \
    }
    HEADSUP_HDF5_FUNCTIONS(HEADSUP_HDF5_BIND)
#undef HEADSUP_HDF5_BIND
    unsigned major = 0, minor = 0, release = 0;
    if (api->H5get_libversion(&major, &minor, &release) < 0 || major != H5_VERS_MAJOR || minor != H5_VERS_MINOR) {
        snprintf(problem, size, "it is version %u.%u.%u; HeadsUp was built for %d.%d", major, minor, release,
                 H5_VERS_MAJOR, H5_VERS_MINOR);
        return problem;
    }
    if (api->H5open() < 0) {
        snprintf(problem, size, "H5open failed");
        return problem;
    }
#define HEADSUP_HDF5_READ(name)                                                          \
    {                                                                                    \
        const hid_t *value = (const hid_t *)dlsym(library, #name);                       \
        if (value == NULL) {                                                             \
            snprintf(problem, size, "it has no %s", #name);                              \
            return problem;                                                              \
        }                                                                                \
        api->name = *value;                                                              \
    }
    HEADSUP_HDF5_VARIABLES(HEADSUP_HDF5_READ)
#undef HEADSUP_HDF5_READ
    return NULL;
}

/// The `index`th name of HEADSUP_HDF5_NAMES, or NULL past the last: the
/// list stays here, where the package build reads the sonames too.
static inline const char *headsup_hdf5_name(size_t index) {
    static const char *const names[] = {HEADSUP_HDF5_NAMES};
    return index < sizeof names / sizeof names[0] ? names[index] : NULL;
}

#endif
