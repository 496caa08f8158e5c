/* tests of model: see below */
#include "t.h"
