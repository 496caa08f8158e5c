/* tests of collapsed: see below */
#include "t.h"
