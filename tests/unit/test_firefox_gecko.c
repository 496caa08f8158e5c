/* tests of firefox_gecko: see below */
#include "t.h"
