/*
 * mhd_load.h - libmicrohttpd, loaded when the server starts instead of with the program.
 *
 * Linked directly, libmicrohttpd and what it needs (GnuTLS and its eight libraries) cost every
 * run of profview about 2.5 ms of loading and relocation before main, though only `serve`
 * uses them. mhd_load.c defines the few MHD_* functions the server calls; the first call opens
 * the library with dlopen and takes the real ones from it.
 */
#ifndef PV_WEB_MHD_LOAD_H
#define PV_WEB_MHD_LOAD_H

#include <stdbool.h>

/* Opens the library (once; later calls return the first answer). False when it cannot. */
bool mhd_load(void);
/* Why mhd_load failed: dlerror()'s text, or a fixed message. Never empty. */
const char *mhd_load_error(void);

#endif
