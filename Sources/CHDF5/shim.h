// Thin wrapper over libhdf5 (Debian: libhdf5-dev, pkg-config "hdf5").
// HDF5 exposes its property lists and native types as macros that expand to
// global variables behind H5open(); Swift cannot import them, so each one a
// caller needs gets a static inline function here.
#ifndef HEADSUP_CHDF5_SHIM_H
#define HEADSUP_CHDF5_SHIM_H
#include <hdf5.h>

static inline hid_t headsup_H5P_DEFAULT(void) { return H5P_DEFAULT; }
static inline hid_t headsup_H5S_ALL(void) { return H5S_ALL; }
static inline unsigned headsup_H5F_ACC_RDONLY(void) { return H5F_ACC_RDONLY; }
static inline hid_t headsup_H5T_NATIVE_FLOAT(void) { return H5T_NATIVE_FLOAT; }
static inline hid_t headsup_H5T_NATIVE_DOUBLE(void) { return H5T_NATIVE_DOUBLE; }
static inline hid_t headsup_H5T_NATIVE_INT64(void) { return H5T_NATIVE_INT64; }
static inline hid_t headsup_H5T_C_S1(void) { return H5T_C_S1; }
static inline size_t headsup_H5T_VARIABLE(void) { return H5T_VARIABLE; }
static inline hid_t headsup_H5E_DEFAULT(void) { return H5E_DEFAULT; }
static inline hid_t headsup_H5P_FILE_ACCESS(void) { return H5P_FILE_ACCESS; }
static inline hid_t headsup_H5T_NATIVE_CHAR(void) { return H5T_NATIVE_CHAR; }

/// Silences libhdf5's automatic error stack printing: HeadsUp reports errors itself.
static inline void headsup_H5_silence_errors(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

#endif
