/* test_pprof.c - the pprof importer. */
#include "t.h"
