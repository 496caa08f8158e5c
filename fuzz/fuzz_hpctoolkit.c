/*
 * fuzz_hpctoolkit.c - the fuzz targets of the binary files of an HPCToolkit database read alone
 * (src/import/hpctoolkit/hpctoolkit.h): profile.db, trace.db, cct.db (format 4) and the older
 * per-thread metric-db / experiment-N.mdb. meta.db and experiment.xml go through fuzz_import.c
 * (targets hpctoolkit and hpctoolkit-xml), whose input is the database's main file.
 *
 * Built once per file with -DHPC_KIND="profile.db" (...); replay.c replays the seed folder
 * fuzz/corpus/hpctoolkit-<kind>/ in `make test`. A file must read or fail with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/hpctoolkit/hpctoolkit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pv_error err;
	pv_error_clear(&err);
	int rc = strcmp(HPC_KIND, "metric-db") == 0 ? hpc_xml_file(HPC_KIND, data, size, &err)
						    : hpc_v4_file(HPC_KIND, data, size, &err);
	if (rc > 0 || (rc < 0 && !err.msg[0])) {
		fprintf(stderr, "fuzz: reading a %s failed without a message (status %d)\n",
			HPC_KIND, rc);
		abort();
	}
	return 0;
}
