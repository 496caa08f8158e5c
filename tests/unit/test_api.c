/* test_api.c */
#include "t.h"
