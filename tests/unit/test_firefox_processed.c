/* tests of firefox_processed: see below */
#include "t.h"
