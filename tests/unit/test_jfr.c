/*
 * Java Flight Recorder (src/import/jfr.c). The expected values were printed once by the JDK's
 * own reader (OpenJDK 17, Debian openjdk-17-jdk-headless) on the same file:
 *   jfr print --events jdk.ExecutionSample heavy.jfr | grep sampledThread | sort | uniq -c
 *   jfr print --events jdk.NativeMethodSample heavy.jfr | grep sampledThread | sort | uniq -c
 *   jfr print --events jdk.ObjectAllocationSample heavy.jfr | grep eventThread | sort | uniq -c
 *   jfr print --json --events jdk.ObjectAllocationSample heavy.jfr | grep '"weight"' (summed)
 *   jfr summary heavy.jfr (the event counts)
 * speedscope's reading of the same file, function by function, is tests/speedscope-oracle's.
 */
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "t.h"
#include "tp.h"

static pv_thread_ix thread_named(const struct pv_profile *p, const char *name)
{
	for (uint32_t i = 0; i < p->threads.len; i++)
		if (strcmp(pv_str(p, p->threads.name[i]), name) == 0)
			return i;
	return PV_NONE;
}

/* metric m's weight over the samples of thread t */
static int64_t thread_total(const struct pv_profile *p, pv_thread_ix t, pv_metric_ix m)
{
	int64_t sum = 0;
	for (uint32_t s = p->threads.sample_begin[t]; s < p->threads.sample_end[t]; s++)
		sum += pv_sample_weight(p, m, s);
	return sum;
}

T_TEST(jfr_heavy_as_jfr_print_reads_it)
{
	struct pv_profile *p = t_load(t_corpus("speedscope/java-flight-recorder/heavy.jfr"));
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "jfr");
	T_EQ_INT(p->metrics.len, 3);
	T_EQ_STR(pv_str(p, p->metrics.name[0]), "samples");
	T_EQ_STR(pv_str(p, p->metrics.name[1]), "native samples");
	T_EQ_STR(pv_str(p, p->metrics.name[2]), "allocated bytes");
	T_EQ_INT(p->metrics.unit[2], PV_UNIT_BYTES);
	/* 346 + 44 + 25 events */
	T_EQ_INT(p->samples.len, 415);
	T_EQ_INT(t_total(p, 0), 346);
	T_EQ_INT(t_total(p, 1), 44);
	T_EQ_INT(t_total(p, 2), 878277960);
	T_EQ_INT(p->threads.len, 4);
	pv_thread_ix main = thread_named(p, "main");
	pv_thread_ix jfrt = thread_named(p, "JFR Periodic Tasks");
	T_TRUE(main != PV_NONE && jfrt != PV_NONE);
	if (main == PV_NONE || jfrt == PV_NONE) {
		pv_profile_free(p);
		return;
	}
	T_EQ_INT(thread_total(p, main, 0), 346);
	T_EQ_INT(thread_total(p, jfrt, 1), 44);
	T_EQ_INT(p->threads.tid[main], 17284);
	T_TRUE(thread_named(p, "C1 CompilerThread1") != PV_NONE);
	T_TRUE(thread_named(p, "C1 CompilerThread2") != PV_NONE);
	/* jfr summary: 5058 events, of which 415 samples kept, the others lossy */
	T_EQ_INT(p->diags.len, 2);
	T_EQ_U64(p->diags.count[0], 4643);
	pv_profile_free(p);
}

T_TEST(jfr_errors)
{
	size_t len;
	char *buf = t_read_file(t_corpus("speedscope/java-flight-recorder/heavy.jfr"), &len);
	if (!buf)
		return;
	struct pv_profile *p;
	struct pv_error err;
	/* cut: the chunk header's size is past the end */
	T_EQ_INT(t_import_text("cut.jfr", buf, 4096, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "cut.jfr: byte 8: the chunk's size runs past the end of the file");
	/* a metadata offset outside the chunk */
	char *bad = malloc(len);
	memcpy(bad, buf, len);
	memset(bad + 24, 0x7f, 8);
	T_EQ_INT(t_import_text("meta.jfr", bad, len, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "meta.jfr: byte 32: the metadata offset is outside the chunk");
	/* an event whose size runs past its chunk: the first event (a constant pool)'s size */
	memcpy(bad, buf, len);
	bad[68] = (char)0xff;
	bad[69] = (char)0xff;
	bad[70] = (char)0xff;
	bad[71] = (char)0x7f;
	T_EQ_INT(t_import_text("ev.jfr", bad, len, NULL, &p, &err), PV_EPARSE);
	T_CONTAINS(err.msg, "ev.jfr: byte 68: the constant-pool event's size runs past the chunk");
	free(bad);
	free(buf);
}

/* a string re-encoded to UTF-8 (a char array here) is kept whole, however long (it was cut at
 * 4 KiB, and a thread's name at 512 bytes) */
T_TEST(jfr_long_string_kept_whole)
{
	struct pv_profile *p = t_load(t_data("jfr/long-thread-name.jfr"));
	if (!p)
		return;
	char want[8006] = "main-";
	for (int i = 0; i < 4000; i++)
		memcpy(want + 5 + 2 * i, "\xc3\xa9", 2);
	want[8005] = 0;
	pv_thread_ix th = thread_named(p, want);
	T_TRUE(th != PV_NONE);
	if (th != PV_NONE) {
		T_EQ_INT(strlen(pv_str(p, p->threads.name[th])), 8005);
		T_EQ_INT(thread_total(p, th, 0), 346);
		T_EQ_INT(p->threads.tid[th], 17284);
	}
	T_EQ_INT(p->threads.len, 4);
	T_EQ_INT(t_total(p, 0), 346);
	pv_profile_free(p);
}
