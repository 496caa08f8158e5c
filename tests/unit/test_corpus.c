/* tests of corpus: see below */
#include "t.h"
