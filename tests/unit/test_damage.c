/*
 * Truncation and damage are never silent: a file cut short or damaged either gets the positioned
 * error of the format it probes as, or imports with the damage said in its import report (the
 * lossy list of `profview info`). One case per way real files get cut.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pv/import.h"
#include "pv/profile.h"
#include "t.h"

/* The import report's line holding what, or NULL. */
static const char *diag(const struct pv_profile *p, const char *what)
{
	for (uint32_t i = 0; i < p->diags.len; i++)
		if (strstr(pv_str(p, p->diags.msg[i]), what))
			return pv_str(p, p->diags.msg[i]);
	return NULL;
}

/* Imports the first n bytes of text (n 0: all of it). */
static struct pv_profile *cut(const char *name, const char *text, size_t n, struct pv_error *err)
{
	struct pv_profile *p = NULL;
	pv_error_clear(err);
	if (pv_import_memory(name, text, n ? n : strlen(text), NULL, &p, err))
		return NULL;
	return p;
}

#define CALLGRIND                                                                                  \
	"# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 7\ncmd: ./a\npart: 1\n"   \
	"positions: line\nevents: Ir\nsummary: 30\n\nfl=a.c\nfn=main\n1 10\ncfn=work\ncalls=1 5\n" \
	"2 20\nfn=work\n5 20\n\ntotals: 30\n"

T_TEST(damage_callgrind)
{
	struct pv_error err;
	/* whole: nothing to say about its end */
	struct pv_profile *p = cut("a.callgrind", CALLGRIND, 0, &err);
	T_TRUE(p && !diag(p, "cut short"));
	pv_profile_free(p);
	/* cut after its last costs, before totals: (callgrind always writes it) */
	const char *at = strstr(CALLGRIND, "\ntotals:");
	p = cut("a.callgrind", CALLGRIND, (size_t)(at - CALLGRIND) + 1, &err);
	T_TRUE(p != NULL);
	if (p)
		T_EQ_STR(diag(p, "totals"), "no totals: line after the last costs (callgrind "
					    "writes one at the end): the file may be cut short");
	pv_profile_free(p);
	/* cut inside a cost line: the last line is said to be cut */
	at = strstr(CALLGRIND, "5 20");
	p = cut("a.callgrind", CALLGRIND, (size_t)(at - CALLGRIND) + 3, &err);
	T_TRUE(p && diag(p, "the last line has no newline and its record may be cut short"));
	pv_profile_free(p);
	/* cut in the header, before events: (valgrind's header still says callgrind) */
	static const char head[] = "version: 1\ncreator: callgrind-3.19.0\npid: 7\ncm";
	T_TRUE(cut("h.callgrind", head, 0, &err) == NULL);
	T_EQ_STR(err.msg, "h.callgrind: line 4, column 1: no events: line (not a callgrind file)");
}

T_TEST(damage_cachegrind_without_its_summary)
{
	static const char cg[] = "desc: I1 cache\ncmd: ./a\nevents: Ir\nfl=a.c\nfn=main\n1 10\n2 "
				 "5\n\nsummary: 15\n";
	struct pv_error err;
	struct pv_profile *p = cut("a.cgout", cg, 0, &err);
	T_TRUE(p && !diag(p, "cut short"));
	pv_profile_free(p);
	p = cut("a.cgout", cg, strstr(cg, "\nsummary") - cg + 1, &err);
	T_TRUE(p != NULL);
	if (p)
		T_EQ_STR(diag(p, "summary"), "no summary: line after the last costs (cachegrind "
					     "writes one at the end): the file may be cut short");
	pv_profile_free(p);
}

T_TEST(damage_collapsed_cut_in_its_last_count)
{
	static const char text[] = "main;foo 12\nmain;bar 15\n";
	struct pv_error err;
	/* "main;bar 1": a count cut short reads as a smaller one; the report says the line may
	 * be cut */
	struct pv_profile *p = cut("f.txt", text, 22, &err);
	T_TRUE(p != NULL);
	if (p) {
		T_EQ_INT(p->samples.len, 2);
		T_EQ_STR(diag(p, "newline"), "the last line has no newline and its record may be "
					     "cut short (read as it is)");
	}
	pv_profile_free(p);
	/* cut inside the stack of its last line: that line is skipped, and said */
	p = cut("f.txt", text, 17, &err);
	T_TRUE(p && diag(p, "skipped lines") && diag(p, "newline"));
	pv_profile_free(p);
}

/* A 44-byte fragment of a perf script header ends in a number: it was read as folded stacks of
 * one frame and 1,001,001 samples. */
T_TEST(damage_perf_header_fragment)
{
	static const char text[] = "swapper     0 [000] 12345.678901:    1001001 cpu-clock: \n";
	for (size_t n = 40; n <= 52; n += 4) {
		struct pv_error err;
		T_TRUE(cut("p.txt", text, n, &err) == NULL);
		T_EQ_STR(err.msg, "p.txt: line 1, column 1: the file ends inside its first sample "
				  "header (cut short?): expected 'comm pid [cpu] time: [period] "
				  "event:' and its frames");
	}
}

T_TEST(damage_json_no_probe_knows)
{
	/* damaged after its first keys: the format it probes as reads it and says where */
	static const char text[] = "{\"meta\": {\"interval\" 1}, \"threads\": []}";
	struct pv_error err;
	T_TRUE(cut("d.json", text, 0, &err) == NULL);
	T_EQ_STR(err.msg, "d.json: line 1, column 22: expected ':' after a key, found '1'");
	/* damaged where no probe knows it: JSON's own error says where */
	static const char flip[] = "{\"m\x85ta\": {\"interval\": 1}, \"threads\": [1 2]}";
	T_TRUE(cut("f.json", flip, 0, &err) == NULL);
	T_EQ_STR(err.msg, "f.json: line 1, column 41: expected ',' or ']', found '2' (not valid "
			  "JSON: the file is damaged or cut short)");
	T_EQ_INT(err.line, 1);
	T_EQ_INT(err.column, 41);
	/* well-formed JSON of no known shape stays "not a profile format" */
	T_TRUE(cut("o.json", "{\"a\": 1}", 0, &err) == NULL);
	T_CONTAINS(err.msg, "o.json: not a profile format profview reads");
}

T_TEST(damage_chrome_array_without_its_end)
{
	static const char text[] = "[{\"pid\":1,\"tid\":1,\"ph\":\"X\",\"name\":\"a\",\"ts\":0,"
				   "\"dur\":5},\n{\"pid\":1,\"tid\":1,\"ph\":\"X\",\"name\":\"b\","
				   "\"ts\":1,\"dur\":2}]";
	struct pv_error err;
	struct pv_profile *p = cut("t.json", text, 0, &err);
	T_TRUE(p && !diag(p, "closing"));
	pv_profile_free(p);
	/* cut between the two events: allowed by the format, and said */
	p = cut("t.json", text, strchr(text, '\n') - text + 1, &err);
	T_TRUE(p != NULL);
	if (p)
		T_EQ_STR(diag(p, "closing"), "the event array has no closing ']' (allowed: a trace "
					     "is written as it goes; a file cut short between "
					     "two events looks the same)");
	pv_profile_free(p);
	/* cut inside the second event: dropped, and said */
	p = cut("t.json", text, strlen(text) - 10, &err);
	T_TRUE(p && diag(p, "event cut off by the end of the input"));
	pv_profile_free(p);
}

T_TEST(damage_empty_result_and_odd_utf16)
{
	struct pv_error err;
	/* a callgrind file with its header and no costs: nothing to show, and said */
	static const char cg[] = "# callgrind format\nevents: Ir\n";
	struct pv_profile *p = cut("e.callgrind", cg, 0, &err);
	T_TRUE(p != NULL);
	if (p)
		T_EQ_STR(diag(p, "no sample"),
			 "no sample and no marker in 30 bytes: the file may be "
			 "cut short or hold no profile");
	pv_profile_free(p);
	/* UTF-16 (little-endian, with its mark) cut inside a code unit */
	static const char u16[] = "\xff\xfe"
				  "a\0;\0b\0 \0001\0\n\0";
	p = cut("u.txt", u16, sizeof(u16) - 2, &err);
	T_TRUE(p != NULL);
	if (p)
		T_TRUE(diag(p, "UTF-16 text of an odd number of bytes") != NULL);
	pv_profile_free(p);
}
