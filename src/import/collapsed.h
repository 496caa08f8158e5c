/*
 * collapsed.h - the rule of folded stacks that their writer shares with their reader
 * (src/export/collapsed.c).
 */
#ifndef PV_IMPORT_COLLAPSED_H
#define PV_IMPORT_COLLAPSED_H

#include <stdint.h>

/*
 * Whether the first frame p..e names a thread: "comm-PID/TID" returns 2, "comm-PID" 1 (with
 * the parts: comm ends at *comm_end, *tid PV_ID_NONE for 1), anything else 0.
 */
int collapsed_task(const char *p, const char *e, const char **comm_end, int64_t *pid, int64_t *tid);

#endif
