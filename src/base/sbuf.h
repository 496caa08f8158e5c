/* sbuf.h - the library's one text builder lives in the public header (pv/sbuf.h): the public
 * functions that write text (marker fields, timestamps) take a struct sbuf. */
#ifndef PV_BASE_SBUF_H
#define PV_BASE_SBUF_H
#include "pv/sbuf.h"
#endif
