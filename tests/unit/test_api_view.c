/* test_api_view.c - the view endpoints (placeholder; filled by the api_view.c owner) */
#include "t.h"
