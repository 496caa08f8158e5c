/*
 * markers.c - seeded generator of a Firefox processed profile (format v70) heavy in markers.
 *
 *   gen-markers COUNT OUT [SEED]    COUNT raw marker rows in all; OUT "-" is standard output
 *
 * The same arguments give the same bytes on every run and machine (splitmix64, integers only).
 * 8 threads of one process share the rows. Each thread's markers come in time order, about
 * 20 µs apart, and each thread is sampled every millisecond over its whole span (one function,
 * so the call tree is trivial and the cost is the markers'). Of the rows:
 *   - 45 % intervals (DOMEvent, UserTiming, Text, FileIO, GCMinor, Styles payloads);
 *   - 12 % instants;
 *   - 36 % interval starts and ends of "tracing" markers, nested up to 8 deep and closed last in,
 *     first out; a quarter of the ends carry a payload other than their start's (a merge);
 *   - 5 % Network loads, a STATUS_START and a STATUS_STOP row with the same id;
 *   - 2 % ends without a start and starts without an end (incomplete markers).
 * 48 marker names, 6 schemas in meta.markerSchema. The derived count is about 0.79 x COUNT.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NTHREADS 8
#define MAX_OPEN 8

static uint64_t rng_state;

static uint64_t next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return (uint32_t)(next() % n);
}

static void die(const char *what)
{
	fprintf(stderr, "gen-markers: %s\n", what);
	exit(1);
}

/* ---- names: string-array indexes 0..NNAMES-1, then "main" ---- */

static const char *const interval_names[] = {
    "DOMEvent", "UserTiming",	     "setTimeout", "FileIO",	     "MinorGC",	      "Styles",
    "Paint",	"RefreshDriverTick", "Runnable",   "JSActorMessage", "CSSTransition", "ImageDecode",
};
static const char *const tracing_names[] = {
    "Reflow",	      "Rasterize", "Composite",	       "DisplayList",
    "Layerization",   "CC",	   "FireScrollEvent",  "ContentParse",
    "NotifyDidPaint", "Scripts",   "DOMContentLoaded", "ForgetSkippable",
};
static const char *const instant_names[] = {
    "VsyncTimestamp",	"TTFI",	   "Navigation::Start", "LogMessages",
    "Preference Read",	"Jank",	   "MemoryPressure",	"FirstContentfulPaint",
    "BrowserTabOpened", "Bailout", "IdleTask",		"TimeToFirstInteractive",
};
static const char *const load_names[] = {
    "Load 0: https://example.com/",
    "Load 1: https://example.com/app.js",
    "Load 2: https://example.com/style.css",
    "Load 3: https://cdn.example.net/font.woff2",
    "Load 4: https://example.com/api/items",
    "Load 5: https://example.com/logo.png",
    "Load 6: https://example.com/data.json",
    "Load 7: https://ads.example.org/pixel.gif",
    "Load 8: https://example.com/worker.js",
    "Load 9: https://example.com/index.html",
    "Load 10: https://example.com/manifest.json",
    "Load 11: https://example.com/feed.xml",
};

#define NGROUP 12
enum {
	G_INTERVAL = 0,
	G_TRACING = NGROUP,
	G_INSTANT = 2 * NGROUP,
	G_LOAD = 3 * NGROUP,
	NNAMES = 4 * NGROUP
};

static const char *name_of(uint32_t i)
{
	const char *const *g[] = {interval_names, tracing_names, instant_names, load_names};
	return g[i / NGROUP][i % NGROUP];
}

/* ---- output ---- */

static FILE *out;

static void put(const char *s)
{
	if (fputs(s, out) < 0)
		die("write error");
}

/* One thread's marker columns, built in memory then written column by column. */
struct col {
	char *p;
	size_t len, cap;
	uint64_t n;
};

static void col_put(struct col *c, const char *s, size_t n)
{
	if (c->len + n + 2 > c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 1 << 16;
		while (nc < c->len + n + 2)
			nc *= 2;
		c->p = realloc(c->p, nc);
		if (!c->p)
			die("out of memory");
		c->cap = nc;
	}
	if (c->n++)
		c->p[c->len++] = ',';
	memcpy(c->p + c->len, s, n);
	c->len += n;
}

static void col_printf(struct col *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void col_printf(struct col *c, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(buf))
		die("a row too long");
	col_put(c, buf, (size_t)n);
}

struct cols {
	struct col name, start, end, phase, cat, data;
	uint64_t rows;
};

/* Times: microseconds as "ms" text with 3 decimals. */
static void ms(char *buf, size_t n, uint64_t us)
{
	snprintf(buf, n, "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
}

static void row(struct cols *c, uint32_t name, int phase, int64_t start_us, int64_t end_us,
		uint32_t cat, const char *data)
{
	char a[32], b[32];
	col_printf(&c->name, "%u", name);
	if (start_us < 0)
		col_put(&c->start, "null", 4);
	else
		ms(a, sizeof(a), (uint64_t)start_us), col_put(&c->start, a, strlen(a));
	if (end_us < 0)
		col_put(&c->end, "null", 4);
	else
		ms(b, sizeof(b), (uint64_t)end_us), col_put(&c->end, b, strlen(b));
	col_printf(&c->phase, "%d", phase);
	col_printf(&c->cat, "%u", cat);
	col_put(&c->data, data, strlen(data));
	c->rows++;
}

static const char *const events[] = {"click",  "mousemove", "keydown",
				     "scroll", "load",	    "pointerdown"};

/* An interval's payload, by its name. */
static void interval_data(uint32_t name, char *buf, size_t n, uint32_t k)
{
	switch (name % 6) {
	case 0:
		snprintf(buf, n, "{\"type\":\"DOMEvent\",\"eventType\":\"%s\",\"latency\":%u.%u}",
			 events[k % 6], k % 40, k % 10);
		break;
	case 1:
		snprintf(buf, n,
			 "{\"type\":\"UserTiming\",\"name\":\"measure-%u\",\"entryType\":"
			 "\"measure\"}",
			 k % 100);
		break;
	case 2: snprintf(buf, n, "{\"type\":\"Text\",\"name\":\"callback %u\"}", k % 50); break;
	case 3:
		snprintf(buf, n,
			 "{\"type\":\"FileIO\",\"source\":\"PoisonIOInterposer\","
			 "\"operation\":\"%s\",\"filename\":\"/profile/file-%u.sqlite\"}",
			 k % 2 ? "read" : "write", k % 20);
		break;
	case 4:
		snprintf(buf, n, "{\"type\":\"GCMinor\",\"nursery\":{\"bytes_tenured\":%u}}",
			 k % 100000);
		break;
	default:
		snprintf(buf, n,
			 "{\"type\":\"Styles\",\"elementsTraversed\":%u,"
			 "\"elementsStyled\":%u}",
			 k % 5000, k % 300);
		break;
	}
}

static const char schemas[] =
    "[{\"name\":\"DOMEvent\",\"tooltipLabel\":\"{marker.data.eventType} \\u2014 DOMEvent\","
    "\"tableLabel\":\"{marker.data.eventType}\",\"display\":[\"marker-chart\","
    "\"marker-table\"],\"fields\":[{\"key\":\"latency\",\"label\":\"Latency\","
    "\"format\":\"duration\"},{\"key\":\"eventType\",\"label\":\"Event Type\","
    "\"format\":\"string\"}]},"
    "{\"name\":\"UserTiming\",\"tableLabel\":\"{marker.data.name}\",\"display\":"
    "[\"marker-chart\",\"marker-table\"],\"fields\":[{\"key\":\"name\",\"label\":\"Name\","
    "\"format\":\"string\"},{\"key\":\"entryType\",\"label\":\"Entry Type\","
    "\"format\":\"string\"}]},"
    "{\"name\":\"Text\",\"tableLabel\":\"{marker.name} \\u2014 {marker.data.name}\","
    "\"display\":[\"marker-chart\",\"marker-table\"],\"fields\":[{\"key\":\"name\","
    "\"label\":\"Details\",\"format\":\"string\"}]},"
    "{\"name\":\"FileIO\",\"display\":[\"marker-chart\",\"marker-table\"],\"fields\":["
    "{\"key\":\"operation\",\"label\":\"Operation\",\"format\":\"string\"},{\"key\":"
    "\"source\",\"label\":\"Source\",\"format\":\"string\"},{\"key\":\"filename\","
    "\"label\":\"Filename\",\"format\":\"file-path\"}]},"
    "{\"name\":\"Styles\",\"display\":[\"marker-chart\",\"marker-table\"],\"fields\":["
    "{\"key\":\"elementsTraversed\",\"label\":\"Elements traversed\",\"format\":"
    "\"integer\"},{\"key\":\"elementsStyled\",\"label\":\"Elements styled\",\"format\":"
    "\"integer\"}]},"
    "{\"name\":\"tracing\",\"display\":[\"marker-chart\",\"marker-table\"],\"fields\":["
    "{\"key\":\"category\",\"label\":\"Type\",\"format\":\"string\"}]}]";

/* One thread: rows markers, then samples every ms over the span. */
static void thread(uint32_t t, uint64_t rows, uint64_t *net_id)
{
	struct cols c = {0};
	uint32_t open[MAX_OPEN];
	uint32_t nopen = 0;
	int64_t now = 1000 + t * 7; /* µs */
	char data[512];
	while (c.rows < rows) {
		now += 5 + below(30);
		uint32_t r = below(100), k = (uint32_t)next();
		if (r < 45) {
			uint32_t nm = G_INTERVAL + below(NGROUP);
			interval_data(nm, data, sizeof(data), k);
			row(&c, nm, 1, now, now + 1 + below(2000), 1, data);
		} else if (r < 57) {
			row(&c, G_INSTANT + below(NGROUP), 0, now, -1, 0,
			    k % 3 ? "null" : "{\"type\":\"tracing\",\"category\":\"Navigation\"}");
		} else if (r < 93) {
			/* a start when nothing is open or by chance, else close the latest */
			if (nopen == 0 || (nopen < MAX_OPEN && below(2))) {
				uint32_t nm = G_TRACING + below(NGROUP);
				open[nopen++] = nm;
				row(&c, nm, 2, now, -1, 2,
				    "{\"type\":\"tracing\",\"category\":\"Paint\"}");
			} else {
				uint32_t nm = open[--nopen];
				row(&c, nm, 3, -1, now, 2,
				    k % 4 ? "{\"type\":\"tracing\",\"category\":\"Paint\"}"
					  : "{\"type\":\"tracing\",\"category\":\"Paint\","
					    "\"first\":true}");
			}
		} else if (r < 98) {
			uint64_t id = (*net_id)++;
			uint32_t nm = G_LOAD + (uint32_t)(id % NGROUP);
			int64_t mid = now + 10 + below(100), end = mid + 50 + below(5000);
			snprintf(data, sizeof(data),
				 "{\"type\":\"Network\",\"id\":%" PRIu64
				 ",\"status\":\"STATUS_START\","
				 "\"startTime\":%" PRId64
				 ".%03d,\"URI\":\"https://example.com/%" PRIu64 "\",\"pri\":0}",
				 id, now / 1000, (int)(now % 1000), id % 1000);
			row(&c, nm, 1, now, mid, 3, data);
			if (c.rows < rows) {
				snprintf(data, sizeof(data),
					 "{\"type\":\"Network\",\"id\":%" PRIu64 ",\"status\":"
					 "\"STATUS_STOP\",\"URI\":\"https://example.com/%" PRIu64
					 "\","
					 "\"pri\":0,\"contentType\":\"text/html\",\"count\":%u}",
					 id, id % 1000, k % 100000);
				row(&c, nm, 1, mid, end, 3, data);
			}
		} else if (r < 99) {
			row(&c, G_TRACING + below(NGROUP), 3, -1, now, 2, "null"); /* no start */
		} else {
			row(&c, G_INTERVAL + below(NGROUP), 2, now, -1, 1, "null"); /* no end */
		}
	}
	/* the thread: samples every ms from 1 ms to past the last marker */
	uint64_t nsamples = (uint64_t)(now / 1000) + 2;
	fprintf(out,
		"%s{\"processType\":\"default\",\"processStartupTime\":0,"
		"\"processShutdownTime\":null,\"registerTime\":0,\"unregisterTime\":null,"
		"\"pausedRanges\":[],\"name\":\"%s\",\"isMainThread\":%s,\"pid\":\"100\","
		"\"tid\":%u,\"samples\":{\"weight\":null,\"weightType\":\"samples\","
		"\"length\":%" PRIu64 ",\"stack\":[",
		t ? "," : "", t ? "Worker" : "GeckoMain", t ? "false" : "true", 100 + t, nsamples);
	for (uint64_t s = 0; s < nsamples; s++)
		put(s ? ",0" : "0");
	put("],\"timeDeltas\":[");
	for (uint64_t s = 0; s < nsamples; s++)
		put(s ? ",1" : "1");
	fprintf(out, "]},\"markers\":{\"length\":%" PRIu64 ",\"name\":[", c.rows);
	struct col *cs[] = {&c.name, &c.start, &c.end, &c.phase, &c.cat, &c.data};
	static const char *const keys[] = {"name",  "startTime", "endTime",
					   "phase", "category",	 "data"};
	for (int i = 0; i < 6; i++) {
		if (i)
			fprintf(out, "],\"%s\":[", keys[i]);
		if (cs[i]->len && fwrite(cs[i]->p, 1, cs[i]->len, out) != cs[i]->len)
			die("write error");
		free(cs[i]->p);
	}
	put("]}}");
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 4) {
		fputs("usage: gen-markers COUNT OUT [SEED]\n", stderr);
		return 2;
	}
	char *end;
	uint64_t count = strtoull(argv[1], &end, 10);
	if (*end || count == 0 || count > 1000000000)
		die("COUNT takes a number of markers from 1 to 10^9");
	rng_state = argc == 4 ? strtoull(argv[3], NULL, 10) : 42;
	out = strcmp(argv[2], "-") ? fopen(argv[2], "w") : stdout;
	if (!out)
		die("cannot open the output");
	put("{\"meta\":{\"interval\":1,\"startTime\":0,\"product\":\"Firefox\","
	    "\"preprocessedProfileVersion\":70,\"version\":36,\"symbolicated\":true,"
	    "\"categories\":[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":"
	    "[\"Other\"]},{\"name\":\"DOM\",\"color\":\"blue\",\"subcategories\":[\"Other\"]},"
	    "{\"name\":\"Layout\",\"color\":\"purple\",\"subcategories\":[\"Other\"]},"
	    "{\"name\":\"Network\",\"color\":\"lightblue\",\"subcategories\":[\"Other\"]}],"
	    "\"markerSchema\":");
	put(schemas);
	put("},\"libs\":[],\"pages\":[],\"shared\":{"
	    "\"stackTable\":{\"frame\":[0],\"prefixOffset\":[0],\"length\":1},"
	    "\"frameTable\":{\"address\":[-1],\"inlineDepth\":[0],\"category\":[0],"
	    "\"subcategory\":[0],\"func\":[0],\"lib\":[null],\"nativeSymbol\":[null],"
	    "\"innerWindowID\":[null],\"line\":[null],\"column\":[null],\"length\":1},"
	    "\"funcTable\":{\"isJS\":[false],\"relevantForJS\":[false],\"name\":[48],"
	    "\"resource\":[-1],\"source\":[null],\"lineNumber\":[null],\"columnNumber\":[null],"
	    "\"length\":1},"
	    "\"resourceTable\":{\"name\":[],\"host\":[],\"type\":[],\"length\":0},"
	    "\"nativeSymbols\":{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],"
	    "\"length\":0},"
	    "\"sources\":{\"id\":[],\"filename\":[],\"startLine\":[],\"startColumn\":[],"
	    "\"sourceMapURL\":[],\"content\":[],\"length\":0},"
	    "\"stringArray\":[");
	for (uint32_t i = 0; i < NNAMES; i++)
		fprintf(out, "\"%s\",", name_of(i));
	put("\"main\"]},\"threads\":[");
	uint64_t net_id = 1;
	for (uint32_t t = 0; t < NTHREADS; t++)
		thread(t, count / NTHREADS + (t < count % NTHREADS), &net_id);
	put("]}\n");
	if (out != stdout && fclose(out))
		die("write error");
	return 0;
}
