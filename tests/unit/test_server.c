/* test_server.c */
#include "t.h"
