/*
 * Instruments deep copies (src/import/instruments.c). The corpus files' values were computed by
 * an independent reading of the rule (a node's total is its weight column or its children's sum
 * when more, its self the rest), a Python script of a few lines over the same files; speedscope's
 * own reading of them is compared in tests/speedscope-oracle.
 */
#include <string.h>

#include "import/instruments/bplist.h"
#include "pv/import.h"
#include "pv/view.h"
#include "t.h"
#include "tp.h"
#include "view/calltree.h"

/* self and total of function name in p's top list (default metric), -1 when absent */
static void top_of(struct pv_profile *p, const char *name, int64_t *self, int64_t *total)
{
	struct pv_top *t;
	struct pv_error err;
	*self = *total = -1;
	if (pv_top_build(p, NULL, PV_TOP_BY_SELF, &t, &err))
		return;
	for (uint32_t i = 0; i < t->len; i++)
		if (strcmp(pv_str(p, p->funcs.name[t->func[i]]), name) == 0) {
			*self = t->self[i];
			*total = t->total[i];
		}
	pv_top_free(t);
}

T_TEST(instruments_16_weights_keep_their_fraction)
{
	struct pv_profile *p =
	    t_load(t_corpus("speedscope/Instruments/16.0/simple-time-profile-deep-copy.txt"));
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "instruments");
	T_EQ_INT(p->threads.len, 1);
	T_EQ_INT(p->metrics.len, 1);
	T_EQ_INT(p->metrics.unit[0], PV_UNIT_NS);
	int64_t s, t;
	top_of(p, "start", &s, &t);
	T_EQ_INT(s, 0);
	T_EQ_INT(t, 4934000000); /* its column says 4.93 s, its children add up to 4934 ms */
	top_of(p, "delta()", &s, &t);
	T_EQ_INT(s, 845000000);
	T_EQ_INT(t, 2450000000); /* "2.45 s": speedscope reads 2 s */
	top_of(p, "alpha()", &s, &t);
	T_EQ_INT(s, 1574000000);
	T_EQ_INT(t, 1600000000);
	top_of(p, "leakMemory()", &s, &t);
	T_EQ_INT(s, 2000000);
	T_EQ_INT(t, 65000000);
	T_EQ_INT(p->diags.len, 0);
	pv_profile_free(p);
}

T_TEST(instruments_allocations_bytes_and_count)
{
	struct pv_profile *p =
	    t_load(t_corpus("speedscope/Instruments/7.3.1/random-allocations-deep-copy.txt"));
	if (!p)
		return;
	T_EQ_INT(p->metrics.len, 2);
	T_EQ_INT(p->metrics.unit[0], PV_UNIT_BYTES);
	T_EQ_STR(pv_str(p, p->metrics.name[1]), "allocations");
	T_EQ_INT(t_total(p, 0), 450814280); /* children's sum: 429.93 MB is 450812559 */
	T_EQ_INT(t_total(p, 1), 84671);	    /* start's Count */
	int64_t s, t;
	top_of(p, "delta()", &s, &t);
	T_EQ_INT(s, 0);
	T_EQ_INT(t, 227635364);
	top_of(p, "malloc_zone_malloc", &s, &t);
	T_EQ_INT(s, 450814280);
	pv_profile_free(p);
}

T_TEST(instruments_cycles)
{
	struct pv_profile *p =
	    t_load(t_corpus("speedscope/Instruments/13.4/cycles-example-deep-copy.txt"));
	if (!p)
		return;
	T_EQ_INT(p->metrics.unit[0], PV_UNIT_CYCLES);
	T_EQ_INT(t_total(p, 0), 96080000000); /* "96.08 Gc" */
	pv_profile_free(p);
}

T_TEST(instruments_text_forms)
{
	/* a source path column, CRLF lines, a row without a weight (lossy) */
	struct pv_profile *p = t_load_text("a.txt",
					   "Weight\tSelf Weight\tSource Path\tSymbol Name\r\n"
					   "10.00 ms  100.0%\t0 s\t/src/m.c\tmain\r\n"
					   "4.50 ms  45.0%\t4.50 ms\t/src/f.c\t f\r\n"
					   "?\t-\t\t g\r\n",
					   NULL);
	if (!p)
		return;
	T_EQ_STR(pv_str(p, p->meta.format), "instruments");
	int64_t s, t;
	top_of(p, "main", &s, &t);
	T_EQ_INT(s, 5500000);
	T_EQ_INT(t, 10000000);
	top_of(p, "f", &s, &t);
	T_EQ_INT(s, 4500000);
	T_EQ_INT(p->sources.len, 2);
	T_EQ_INT(p->diags.len, 1);
	T_CONTAINS(pv_str(p, p->diags.msg[0]), "first at line 4");
	pv_profile_free(p);
}

T_TEST(instruments_errors)
{
	t_expect_error("u.txt", "Weight\tSymbol Name\n3 parsecs  1.0%\tmain\n", "instruments",
		       PV_EPARSE, "u.txt: line 2, column 3: unknown unit 'parsecs'", NULL);
	t_expect_error("d.txt", "Weight\tSymbol Name\n3 ms  1.0%\tmain\n2 ms  1.0%\t   f\n",
		       "instruments", PV_EPARSE, "d.txt: line 3, column 12: a row of depth 3",
		       NULL);
	t_expect_error("h.txt", "Weight\tSymbol Name\n", "instruments", PV_EPARSE,
		       "h.txt: line 2, column 1: expected a row of the call tree", NULL);
	t_expect_error("n.txt", "Self\tSymbol Name\n1\tmain\n", "instruments", PV_EPARSE,
		       "n.txt: line 1, column 1: expected a 'Weight', 'Running Time'", NULL);
	t_expect_error("m.txt", "Weight\tSymbol Name\n3 ms  1.0%\tmain\n3 MB  1.0%\t f\n",
		       "instruments", PV_EPARSE, "m.txt: line 3, column 1: a weight in bytes",
		       NULL);
}

/*
 * A keyed archive whose $version is a UID into $objects (plistlib.dumps of {"$archiver":
 * "NSKeyedArchiver", "$version": UID(1), "$top": {"root": UID(2)}, "$objects": ["$null",
 * 100000, {"a": 1}]}, FMT_BINARY): read, with the archive's fields left from an earlier one
 * (garbage here) never used. A fuzz find: $version was dereferenced before $objects was read.
 */
T_TEST(bplist_version_by_uid)
{
	static const unsigned char b[] =
	    "bplist00\xd4\x01\x02\x03\x04\x05\x06\x0c\x0fY$archiverX$objectsT$topX$version"
	    "_\x10\x0fNSKeyedArchiver\xa3\x07\x08\x09U$null\x12\x00\x01\x86\xa0\xd1\x0a\x0b"
	    "Qa\x10\x01\xd1\x0d\x0eTroot\x80\x02\x80\x01\x08\x11\x1b\x24\x29\x32\x44\x48\x4e"
	    "\x53\x56\x58\x5a\x5d\x62\x64\x00\x00\x00\x00\x00\x00\x01\x01\x00\x00\x00\x00"
	    "\x00\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
	    "\x66";
	T_EQ_INT(sizeof(b) - 1, 150);
	struct karchive ka;
	memset(&ka, 0xa5, sizeof(ka));
	T_TRUE(ka_open(&ka, b, sizeof(b) - 1));
	T_EQ_INT(ka.objects.n, 3);
	struct bp_obj root, o;
	uint64_t v = 0;
	T_TRUE(ka_field(&ka, &ka.top, "root", &root) && ka_deref(&ka, &root, &o));
	T_TRUE(ka_field(&ka, &o, "a", &o) && ka_int(&ka, &o, &v));
	T_EQ_INT(v, 1);
	/* the same bytes with "NSKeyedArchiver" misspelt: one error with its byte */
	unsigned char c[sizeof(b)];
	memcpy(c, b, sizeof(b));
	c[53] = 'n';
	T_TRUE(!ka_open(&ka, c, sizeof(c) - 1));
	T_TRUE(ka.bp.bad);
	T_CONTAINS(ka.bp.why, "an NSKeyedArchiver archive");
}
