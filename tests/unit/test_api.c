/*
 * test_api.c - the JSON API of `profview serve` in process (web/api.c, doc/api.md): status,
 * profile, markers, marker, marker-summary, marker-chart, activity, the errors, the parameters
 * and the view cache. The expected texts were checked by hand against `profview info --json`,
 * `profview markers --json`, `profview marker --json` and `profview markers --summary --json` of
 * the same files (the API adds keys; the rows are the CLI's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "pv/import.h"
#include "pv/serve.h"
#include "t.h"
#include "tapi.h"

/* the view kinds, as /api/profile lists them (src/view/kinds.c) */
#define VIEWS                                                                                      \
	"\"views\": [{\"name\": \"tree\", \"label\": \"Top-down\", \"needs_center\": false, "      \
	"\"sort\": \"self\", \"outputs\": [\"tree\"]}, {\"name\": \"callers\", \"label\": "        \
	"\"Bottom-up\", \"needs_center\": false, \"sort\": \"self\", \"outputs\": [\"tree\"]}, "   \
	"{\"name\": \"flat\", \"label\": \"Flat\", \"needs_center\": false, \"sort\": \"total\", " \
	"\"outputs\": [\"flat\"]}, {\"name\": \"butterfly\", \"label\": \"Butterfly\", "           \
	"\"needs_center\": true, \"sort\": \"self\", \"outputs\": [\"tree\", \"callers\"]}, "      \
	"{\"name\": \"top\", \"label\": \"Top\", \"needs_center\": false, \"sort\": \"self\", "    \
	"\"outputs\": [\"flat\"]}]"
#define CALLTREE "firefox/generated-processed-v70-calltree.json"
#define MARKERS	 "firefox/generated-processed-v70-marker-table.json"
#define NETWORK	 "firefox/generated-processed-v70-network.json"

/* slots: 0 calltree, 1 marker table, 2 network (named by their file name only) */
static struct pv_api *api3(void)
{
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "calltree.json", t_load(t_data(CALLTREE))), 0);
	T_EQ_INT(pv_api_add_profile(a, "marker-table.json", t_load(t_data(MARKERS))), 1);
	T_EQ_INT(pv_api_add_profile(a, "network.json", t_load(t_data(NETWORK))), 2);
	return a;
}

#define CATEGORIES                                                                                 \
	"[{\"name\": \"Other\", \"color\": \"grey\"}, {\"name\": \"Idle\", \"color\": "            \
	"\"transparent\"}, {\"name\": \"Layout\", \"color\": \"purple\"}, {\"name\": "             \
	"\"JavaScript\", \"color\": \"yellow\"}, {\"name\": \"GC / CC\", \"color\": \"orange\"}, " \
	"{\"name\": \"Network\", \"color\": \"lightblue\"}, {\"name\": \"Graphics\", \"color\": "  \
	"\"green\"}, {\"name\": \"DOM\", \"color\": \"blue\"}]"

/*
 * Profiles without times: an HPCToolkit database (summary values per context, its trace apart)
 * and collapsed stacks: "timed": false, the span 0 to 0 (and the activity's default window the
 * 1 ns past it that the page no longer draws as a time axis)
 */
T_TEST(api_profile_untimed)
{
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_EQ_INT(pv_api_add_profile(a, "small.d", t_load(t_data("hpctoolkit/small.d"))), 0);
	T_EQ_INT(pv_api_add_profile(a, "c.txt", t_load(t_data("collapsed/contexts-4.txt"))), 1);
	for (int k = 0; k < 2; k++) {
		int st;
		char *b = t_api_call(a, "profile", k ? "p=1" : "p=0", &st);
		T_EQ_INT(st, 200);
		T_JSON_HAS(b, k ? "\"index\": 1, \"start\": 0, \"end\": 0, \"activity_end\": "
				  "0.000001, \"timed\": false, "
				: "\"index\": 0, \"start\": 0, \"end\": 0, \"activity_end\": "
				  "0.000001, \"timed\": false, ");
		free(b);
	}
	pv_api_free(a);
}

T_TEST(api_status)
{
	struct pv_api *a = NULL;
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	T_API(a, "status", NULL, 200, "{\"state\": \"ready\", \"files\": []}\n");
	T_EQ_INT(pv_api_add_profile(a, "calltree.json", t_load(t_data(CALLTREE))), 0);
	T_API(a, "status", "", 200,
	      "{\"state\": \"ready\", \"files\": [\n"
	      "  {\"path\": \"calltree.json\", \"state\": \"ready\", \"phase\": \"done\", "
	      "\"done\": 0, "
	      "\"total\": 0, \"error\": null}\n]}\n");
	/* one loading (half parsed), then one failed */
	T_EQ_INT(pv_api_add_file(a, "big.json"), 1);
	struct pv_progress *pr = pv_api_progress(a, 1);
	atomic_store(&pr->phase, PV_PROGRESS_PARSING);
	atomic_store(&pr->done, 500);
	atomic_store(&pr->total, 1000);
	T_API(a, "status", NULL, 200,
	      "{\"state\": \"loading\", \"files\": [\n"
	      "  {\"path\": \"calltree.json\", \"state\": \"ready\", \"phase\": \"done\", "
	      "\"done\": 0, "
	      "\"total\": 0, \"error\": null},\n"
	      "  {\"path\": \"big.json\", \"state\": \"loading\", \"phase\": \"parsing\", "
	      "\"done\": 500, "
	      "\"total\": 1000, \"error\": null}\n]}\n");
	/* a loading slot answers 503 with its progress */
	T_API(a, "profile", "p=1", 503,
	      "{\"error\": \"loading\", \"path\": \"big.json\", \"phase\": \"parsing\", \"done\": "
	      "500, "
	      "\"total\": 1000}");
	T_API(a, "markers", "p=1", 503,
	      "{\"error\": \"loading\", \"path\": \"big.json\", \"phase\": \"parsing\", \"done\": "
	      "500, "
	      "\"total\": 1000}");
	struct pv_error err;
	pv_error_set(&err, PV_EPARSE, "big.json: line 3, column 7: expected a value");
	pv_api_set_loaded(a, 1, NULL, &err);
	T_API(
	    a, "status", NULL, 200,
	    "{\"state\": \"failed\", \"files\": [\n"
	    "  {\"path\": \"calltree.json\", \"state\": \"ready\", \"phase\": \"done\", \"done\": "
	    "0, "
	    "\"total\": 0, \"error\": null},\n"
	    "  {\"path\": \"big.json\", \"state\": \"failed\", \"phase\": \"parsing\", \"done\": "
	    "500, "
	    "\"total\": 1000, \"error\": \"big.json: line 3, column 7: expected a value\"}\n]}\n");
	T_API(a, "activity", "p=1", 500,
	      "{\"error\": \"big.json: line 3, column 7: expected a value\"}");
	/* the others still answer */
	int st;
	char *b = t_api_call(a, "profile", "p=0", &st);
	T_EQ_INT(st, 200);
	free(b);
	pv_api_free(a);
}

T_TEST(api_profile)
{
	struct pv_api *a = api3();
	/* `profview info --json` of the file, the thread numbered, the categories listed, and the
	 * API's keys at the end: samples at 0..4 ms, no marker, no source */
	T_API(
	    a, "profile", NULL, 200,
	    "{\"file\": \"calltree.json\", \"format\": \"firefox-processed\", \"version\": \"70 "
	    "(gecko "
	    "36)\", \"product\": \"Firefox\", \"interval_ns\": 1000000, \"threads\": [\n"
	    "  {\"index\": 0, \"name\": \"Empty\", \"process\": null, \"pid\": 0, \"tid\": 0, "
	    "\"samples\": 5, \"first_sample_ns\": 0, \"last_sample_ns\": 4000000, \"active\": 5, "
	    "\"idle\": false}\n"
	    "], \"busiest_thread\": 0, \"one_program\": false, \"granularities\": [\"function\"], "
	    "\"inlines\": false, \"open_thread\": null, \"metrics\": "
	    "[\n"
	    "  {\"name\": \"samples\", \"unit\": \"count\", \"shown\": {\"unit\": \"count\", "
	    "\"per\": 1, \"decimals\": 0, \"named\": false}, \"total\": 5, \"default\": true}\n"
	    "], \"samples\": 5, \"samples_without_stack\": 0, \"functions\": 9, \"frames\": 9, "
	    "\"stacks\": 16, \"modules\": 0, \"nr_sources\": 0, \"categories\": " CATEGORIES
	    ", \"markers\": {\"total\": 0, \"instant\": 0, \"interval\": 0, \"start\": 0, \"end\": "
	    "0}, \"lossy\": [],\n"
	    "\"index\": 0, \"start\": 0, \"end\": 4, \"activity_end\": 5, \"timed\": true, "
	    "\"default_metric\": "
	    "\"samples\", \"sources\": "
	    "[], \"marker_names\": 0, " VIEWS "}\n");
	/* the marker table file: no samples, the span is its markers' (12.5 to 175 ms) */
	int st;
	char *b = t_api_call(a, "profile", "p=1", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b, "\"markers\": {\"total\": 7, \"instant\": 2, \"interval\": 5, \"start\": 0, "
		      "\"end\": 0}");
	T_JSON_HAS(b, "\"index\": 1, \"start\": 12.5, \"end\": 175, \"activity_end\": 176, "
		      "\"timed\": true, \"default_metric\": "
		      "\"samples\", \"sources\": [], \"marker_names\": 7, " VIEWS "}\n");
	free(b);
	pv_api_free(a);
}

T_TEST(api_markers)
{
	struct pv_api *a = api3();
	/* rows 1 and 2 of `profview markers --json`, with the total and the offset */
	T_API(
	    a, "markers", "p=1&limit=2&offset=1", 200,
	    "{\"total\": 7, \"offset\": 1, \"rows\": [\n"
	    "  {\"index\": 1, \"start\": 14.5, \"end\": null, \"duration\": null, \"name\": "
	    "\"NotifyDidPaint\", \"category\": \"Other\", \"thread\": 0, \"thread_name\": "
	    "\"Empty\", "
	    "\"tid\": 0, \"instant\": true, \"incomplete\": false, \"synthetic\": false, "
	    "\"type\": \"tracing\", \"label\": "
	    "\"\", \"fields\": [{\"key\": \"category\", \"label\": \"Type\", \"value\": \"Paint\", "
	    "\"hidden\": false}], \"data\": {\"type\":\"tracing\",\"category\":\"Paint\"}, "
	    "\"raw\": "
	    "[1]},\n"
	    "  {\"index\": 2, \"start\": 120, \"end\": 120, \"duration\": null, \"name\": "
	    "\"IPCOut\", \"category\": \"Other\", \"thread\": 0, \"thread_name\": \"Empty\", "
	    "\"tid\": "
	    "0, \"instant\": false, \"incomplete\": true, \"synthetic\": false, \"type\": \"IPC\", "
	    "\"label\": "
	    "\"PContent::Msg_PreferenceUpdate — sent to 2222\", \"fields\": [{\"key\": "
	    "\"messageType\", \"label\": \"Type\", \"value\": \"PContent::Msg_PreferenceUpdate\", "
	    "\"hidden\": false}, {\"key\": \"sync\", \"label\": \"Sync\", \"value\": \"false\", "
	    "\"hidden\": false}, {\"key\": \"sendThreadName\", \"label\": \"From\", \"value\": "
	    "\"Empty (Thread ID: 0)\", \"hidden\": false}, {\"key\": \"otherPid\", \"label\": "
	    "\"Other Pid\", \"value\": \"PID: 2222\", \"hidden\": false}], \"data\": "
	    "{\"type\":\"IPC\",\"startTime\":120,\"otherPid\":\"2222\",\"messageType\":"
	    "\"PContent::Msg_PreferenceUpdate\",\"messageSeqno\":1,\"side\":\"parent\","
	    "\"direction\":\"sending\",\"phase\":\"endpoint\",\"sync\":false,\"niceDirection\":"
	    "\"sent to 2222\",\"sendTid\":0,\"sendThreadName\":\"Empty (Thread ID: 0)\"}, \"raw\": "
	    "[2]}\n]}\n");
	/* past the end: the total, no rows */
	T_API(a, "markers", "p=1&offset=99", 200, "{\"total\": 7, \"offset\": 7, \"rows\": []}\n");
	/* search, window, thread, order: FileIO (174..175) is the longest of the window */
	int st;
	char *b = t_api_call(a, "markers",
			     "p=1&start=100&end=180&sort=duration&limit=1&thread=Empty", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b,
		   "{\"total\": 5, \"offset\": 0, \"rows\": [\n  {\"index\": 6, \"start\": 174, ");
	free(b);
	b = t_api_call(a, "markers", "p=1&search=paint&limit=10", &st);
	T_JSON_HAS(b, "{\"total\": 1, \"offset\": 0, \"rows\": [\n  {\"index\": 1, ");
	free(b);
	/* one marker in full: `profview marker --json FILE 1` */
	T_API(
	    a, "marker", "p=1&i=1", 200,
	    "{\"index\": 1, \"start\": 14.5, \"end\": null, \"duration\": null, \"name\": "
	    "\"NotifyDidPaint\", \"category\": \"Other\", \"thread\": 0, \"thread_name\": "
	    "\"Empty\", "
	    "\"tid\": 0, \"instant\": true, \"incomplete\": false, \"synthetic\": false, "
	    "\"type\": \"tracing\", \"label\": "
	    "\"\", \"tooltip_label\": \"NotifyDidPaint\", \"chart_label\": \"\", \"description\": "
	    "null, \"fields\": [{\"key\": \"category\", \"label\": \"Type\", \"value\": \"Paint\", "
	    "\"hidden\": false}], \"data\": {\"type\":\"tracing\",\"category\":\"Paint\"}, "
	    "\"raw\": "
	    "[1], \"cause\": null}\n");
	T_API(a, "marker", "p=1&i=7", 404, "{\"error\": \"no marker 7 (the profile has 7)\"}");
	T_API(a, "marker", "p=1", 400, "{\"error\": \"marker needs i (a marker index)\"}");
	T_API(a, "marker", "p=1&i=-1", 400, "{\"error\": \"i takes a count, not '-1'\"}");
	/* the per-name summary: `profview markers --summary --json --search ipc,file` */
	T_API(a, "marker-summary", "p=1&search=ipc,file", 200,
	      "{\"rows\": [\n"
	      "  {\"name\": \"FileIO\", \"count\": 1, \"instant\": 0, \"incomplete\": 0, "
	      "\"timed\": 1, "
	      "\"total\": 1, \"min\": 1, \"median\": 1, \"max\": 1},\n"
	      "  {\"name\": \"IPCOut\", \"count\": 1, \"instant\": 0, \"incomplete\": 1, "
	      "\"timed\": 0, "
	      "\"total\": null, \"min\": null, \"median\": null, \"max\": null}\n]}\n");
	T_API(a, "markers", "p=1&thread=nope", 400,
	      "{\"error\": \"no thread named 'nope' (see 'profview info')\"}");
	T_API(a, "markers", "p=1&sort=name", 400,
	      "{\"error\": \"sort takes start or duration, not 'name'\"}");
	T_API(a, "markers", "p=1&start=abc", 400,
	      "{\"error\": \"start takes a time in ms within ±1e12 of the profile's zero, not "
	      "'abc'\"}");
	pv_api_free(a);
}

T_TEST(api_marker_chart)
{
	struct pv_api *a = api3();
	/* rows by thread, category, name; the window is the timeline's: the profile's span (12.5
	 * to 175 ms) and one sampling interval (1 ms), so a marker at 175 would be in it;
	 * labels are the schemas' chart labels (UserTiming: its name; IPC: the message type); the
	 * incomplete IPCOut reaches its thread's end (120: the thread has no sample) */
	T_API(
	    a, "marker-chart", "p=1&width=100&search=UserTiming,FileIO,ipc", 200,
	    "{\"start\": 12.5, \"end\": 176, \"rows\": [\n"
	    "  {\"thread\": 0, \"thread_name\": \"Empty\", \"name\": \"FileIO\", \"category\": "
	    "\"Other\", \"color\": \"grey\", \"markers\": [{\"i\": 6, \"start\": 174, \"end\": "
	    "175, "
	    "\"label\": \"\"}]},\n"
	    "  {\"thread\": 0, \"thread_name\": \"Empty\", \"name\": \"IPCOut\", \"category\": "
	    "\"Other\", \"color\": \"grey\", \"markers\": [{\"i\": 2, \"start\": 120, \"end\": "
	    "120, "
	    "\"label\": \"PContent::Msg_PreferenceUpdate\"}]},\n"
	    "  {\"thread\": 0, \"thread_name\": \"Empty\", \"name\": \"UserTiming\", \"category\": "
	    "\"Other\", \"color\": \"grey\", \"markers\": [{\"i\": 0, \"start\": 12.5, \"end\": "
	    "12.5, \"label\": \"foobar\"}]}\n]}\n");
	/* a window: markers overlapping 3..5 ms only */
	int st;
	char *b = t_api_call(a, "marker-chart", "p=2&width=10&start=3&end=5", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b,
		   "{\"start\": 3, \"end\": 5, \"rows\": [\n  {\"thread\": 0, \"thread_name\": "
		   "\"Empty\", \"name\": \"Load\", \"category\": \"Other\", \"color\": \"grey\", "
		   "\"markers\": [{\"i\": 10, \"start\": 4, \"end\": 6, \"label\": \"\"}]},\n");
	T_TRUE(!strstr(b, "DOMContentLoaded")); /* 6..7 */
	free(b);
	T_API(a, "marker-chart", "p=1&width=0", 400,
	      "{\"error\": \"width takes 1 to 100000 pixels, not 0\"}");
	T_API(a, "marker-chart", "p=1&start=10&end=5", 400, "{\"error\": \"end is before start\"}");
	{ /* the widest window allowed: every marker on the first pixel, no overflow */
		int wst;
		char *wb =
		    t_api_call(a, "marker-chart", "p=1&start=-1e12&end=1e12&width=100000", &wst);
		T_EQ_INT(wst, 200);
		T_JSON_HAS(wb, "\"start\": -1000000000000, \"end\": 1000000000000");
		free(wb);
	}
	pv_api_free(a);

	/* narrow markers of one row that touch are merged: ChromeUtils.importESModule 5 and 6 of
	 * the bundled example (0.4 ms and 0.04 ms apart, on a 1.6 ms pixel) */
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	pv_api_add_profile(a, "argument-values.json",
			   t_load(t_data("firefox/argument-values.json")));
	b = t_api_call(a, "marker-chart", "width=100&search=importESModule", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b, "\"merged\": 2}");
	free(b);
	pv_api_free(a);
}

T_TEST(api_activity)
{
	struct pv_api *a = api3();
	/* 5 samples at 0, 1, 2, 3, 4 ms (interval 1 ms: the span ends at 5), one per bucket; the
	 * frames have no category, so the leaf's is the profile's "Other" (0) */
	T_API(a, "activity", "buckets=5", 200,
	      "{\"start\": 0, \"end\": 5, \"bucket\": 1, \"categories\": " CATEGORIES
	      ", \"threads\": [\n"
	      "  {\"index\": 0, \"name\": \"Empty\", \"tid\": 0, \"samples\": 5, \"buckets\": "
	      "[[[0,1]],[[0,1]],[[0,1]],[[0,1]],[[0,1]]]}\n"
	      "], \"overview\": []}\n");
	/* a window of two buckets (1 <= t < 3) and the query's range (2 <= t < 4) */
	T_API(a, "activity", "buckets=2&start=1&end=3", 200,
	      "{\"start\": 1, \"end\": 3, \"bucket\": 1, \"categories\": " CATEGORIES
	      ", \"threads\": [\n"
	      "  {\"index\": 0, \"name\": \"Empty\", \"tid\": 0, \"samples\": 2, \"buckets\": "
	      "[[[0,1]],[[0,1]]]}\n], \"overview\": []}\n");
	T_API(a, "activity", "buckets=1&range=2:4", 200,
	      "{\"start\": 0, \"end\": 5, \"bucket\": 5, \"categories\": " CATEGORIES
	      ", \"threads\": [\n"
	      "  {\"index\": 0, \"name\": \"Empty\", \"tid\": 0, \"samples\": 2, \"buckets\": "
	      "[[[0,2]]]}\n], \"overview\": []}\n");
	/* the network file: no samples; its track shows the Network loads (no schema in the file)
	 * and the "tracing" markers (the file's schema lists timeline-overview), not TTI,
	 * FirstContentfulPaint or Navigation::Start (no schema) */
	int st;
	char *b = t_api_call(a, "activity", "p=2&buckets=2", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(
	    b, "{\"start\": 3, \"end\": 9, \"bucket\": 3, \"categories\": " CATEGORIES
	       ", \"threads\": [\n  {\"index\": 0, \"name\": \"Empty\", \"tid\": 0, \"samples\": "
	       "0, \"buckets\": [[],[]]}\n], \"overview\": [\n  {\"thread\": 0, \"i\": 0, "
	       "\"name\": \"Load 0: https://mozilla.org\", \"start\": 3, \"end\": 4, \"color\": "
	       "\"grey\"},\n");
	T_CONTAINS(
	    b,
	    "  {\"thread\": 0, \"i\": 10, \"name\": \"Load\", \"start\": 4, \"end\": 6, "
	    "\"color\": \"grey\"},\n  {\"thread\": 0, \"i\": 12, \"name\": \"DOMContentLoaded\", "
	    "\"start\": 6, \"end\": 7, \"color\": \"grey\"},\n  {\"thread\": 0, \"i\": 13, "
	    "\"name\": \"Navigation::Start\", \"start\": 7, \"end\": null, \"color\": "
	    "\"grey\"}\n]}\n");
	T_TRUE(!strstr(b, "TTI") && !strstr(b, "FirstContentfulPaint") &&
	       !t_json_has(b, "\"i\": 15"));
	free(b);
	T_API(a, "activity", "buckets=0", 400, "{\"error\": \"buckets takes 1 to 4000, not 0\"}");
	T_API(a, "activity", "buckets=4001", 400,
	      "{\"error\": \"buckets takes 1 to 4000, not 4001\"}");
	T_API(a, "activity", "thread=nope", 400,
	      "{\"error\": \"no thread named 'nope' (see 'profview info')\"}");
	T_API(a, "activity", "metric=bytes", 400, "{\"error\": \"no metric named 'bytes'\"}");
	T_API(a, "activity", "start=3&end=1", 400, "{\"error\": \"end must be after start\"}");
	/* very wide windows: refused past ±1e12 ms; at the bound, answered (no signed overflow) */
	T_API(a, "activity", "start=-9e12&end=9e12", 400,
	      "{\"error\": \"start takes a time in ms within ±1e12 of the profile's zero, not "
	      "'-9e12'\"}");
	b = t_api_call(a, "activity", "buckets=4000&start=-1e12&end=1e12", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b, "\"bucket\": 500000000");
	free(b);
	pv_api_free(a);

	/* a real profile: every sample of the thread lands in some bucket */
	T_EQ_INT(pv_api_new(&a, NULL), 0);
	pv_api_add_profile(a, "argument-values.json",
			   t_load(t_data("firefox/argument-values.json")));
	b = t_api_call(a, "activity", "buckets=400", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b, "\"name\": \"GeckoMain\", \"tid\": 2503164, \"samples\": 32, ");
	T_JSON_HAS(b, "{\"thread\": 0, \"i\": 3, \"name\": \"DOMEvent\", ");
	free(b);
	/* the center and the stack filters select samples too: mousedown's 5 samples of 32 (its
	 * total in `profview tree --center mousedown`), the 27 others with --drop mousedown */
	b = t_api_call(a, "activity", "buckets=400&center=mousedown", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b, "\"name\": \"GeckoMain\", \"tid\": 2503164, \"samples\": 5, ");
	free(b);
	b = t_api_call(a, "activity", "buckets=400&filter=drop:mousedown", &st);
	T_EQ_INT(st, 200);
	T_JSON_HAS(b, "\"name\": \"GeckoMain\", \"tid\": 2503164, \"samples\": 27, ");
	free(b);
	T_API(a, "activity", "center=nosuch", 400,
	      "{\"error\": \"center 'nosuch' matches no function of the profile\"}");
	pv_api_free(a);
}

T_TEST(api_errors)
{
	struct pv_api *a = api3();
	T_API(a, "nope", NULL, 404, "{\"error\": \"no endpoint 'nope'\"}");
	T_API(a, "", NULL, 404, "{\"error\": \"no endpoint ''\"}");
	T_API(a, "profile", "p=3", 404, "{\"error\": \"no profile 3\"}");
	T_API(a, "profile", "p=x", 404, "{\"error\": \"no profile 'x'\"}");
	T_API(a, "profile", "p=-1", 404, "{\"error\": \"no profile '-1'\"}");
	T_API(a, "markers", "p=1&offset=1e3", 400,
	      "{\"error\": \"offset takes a count, not '1e3'\"}");
	T_API(a, "markers", "p=1&limit=99999999999", 400,
	      "{\"error\": \"limit takes a count, not '99999999999'\"}");
	T_API(a, "markers", "p=1&search=%zz", 400,
	      "{\"error\": \"a broken percent escape in the query\"}");
	T_API(a, "markers", "p=1&search=%00", 400,
	      "{\"error\": \"a broken percent escape in the query\"}");
	T_API(a, "activity", "view=bogus", 400,
	      "{\"error\": \"view takes tree, callers, flat, butterfly or top, not 'bogus'\"}");
	T_API(a, "activity", "bogus=1", 400, "{\"error\": \"unknown query key 'bogus'\"}");
	/* each endpoint its own parameters: another endpoint's is unknown, with or without a query
	 */
	T_API(a, "activity", "bins=4", 400, "{\"error\": \"unknown query key 'bins'\"}");
	T_API(a, "status", "p=0", 400, "{\"error\": \"unknown query key 'p'\"}");
	T_API(a, "marker", "p=1&i=0&view=tree", 400, "{\"error\": \"unknown query key 'view'\"}");
	/* too many parameters */
	char q[8 * 300];
	size_t n = 0;
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(q + n, sizeof(q) - n, "%sn=1", i ? "&" : "");
	T_API(a, "status", q, 400, "{\"error\": \"too many parameters\"}");
	pv_api_free(a);
}

T_TEST(api_params)
{
	struct api_params ps;
	T_EQ_INT(api_params_parse(&ps, "center=a+b&center=%41%3bc&&open=c%2Ff12&flag&p=1"), 0);
	T_EQ_INT(ps.len, 5);
	const char *v[4];
	T_EQ_INT(api_param_all(&ps, "center", v, 4), 2);
	T_EQ_STR(v[0], "a b");
	T_EQ_STR(v[1], "A;c");
	T_EQ_STR(api_param(&ps, "open"), "c/f12");
	T_EQ_STR(api_param(&ps, "flag"), "");
	T_TRUE(api_param(&ps, "nope") == NULL);
	api_params_free(&ps);
	T_EQ_INT(api_params_parse(&ps, "center=a+b&center=%41%3bc&&open=c%2Ff12&p=1"), 0);
	/* the query: the endpoint's own parameters left out, the rest read as pv_query_from_url */
	ps.own = (const char *const[]){"p", "open", NULL};
	struct pv_query q;
	struct pv_json *out = pv_json_new(NULL);
	T_EQ_INT(api_query(&ps, &q, out), 0);
	T_EQ_INT(q.nr_center, 2);
	T_EQ_STR(q.center[0], "a b");
	T_EQ_STR(q.center[1], "A;c");
	pv_query_release(&q);
	api_params_free(&ps);
	T_EQ_INT(api_params_parse(&ps,
				  "view=flat&filter=merge%3Afoo%26bar&range=1.5:2&open=x&key=y&"
				  "i=3&max-nodes=5&width=3&buckets=2&file=0"),
		 0);
	ps.own = (const char *const[]){"open",	"key",	   "i",	   "max-nodes",
				       "width", "buckets", "file", NULL};
	T_EQ_INT(api_query(&ps, &q, out), 0);
	T_EQ_INT(q.view, PV_VIEW_FLAT);
	T_EQ_INT(q.nr_filters, 1);
	T_EQ_STR(q.filters[0].arg, "foo&bar");
	T_TRUE(q.has_range && q.range_start_ns == 1500000 && q.range_end_ns == 2000000);
	pv_query_release(&q);
	api_params_free(&ps);
	T_EQ_STR(pv_json_text(out, NULL), "");
	pv_json_free(out);
	T_EQ_INT(api_params_parse(&ps, "a=%4"), PV_EPARSE);
	T_EQ_INT(api_params_parse(&ps, NULL), 0);
	T_EQ_INT(ps.len, 0);
}

T_TEST(api_view_cache)
{
	struct pv_api *a = api3();
	struct pv_json *out = pv_json_new(NULL);
	int st = 0;
	struct pv_query q;
	pv_query_init(&q);
	struct pv_view *v1 = api_view_get(a, 0, &q, out, &st);
	struct pv_view *v2 = api_view_get(a, 0, &q, out, &st);
	T_TRUE(v1 && v1 == v2); /* the same canonical query: computed once */
	api_view_release(a, v1);
	api_view_release(a, v2);
	/* another slot is another key */
	struct pv_view *v3 = api_view_get(a, 1, &q, out, &st);
	T_TRUE(v3 && v3 != v1);
	api_view_release(a, v3);
	/* more queries than entries: the least recently used unreferenced ones go */
	struct pv_view *held = api_view_get(a, 0, &q, out, &st);
	for (int i = 0; i < API_VIEW_CACHE + 3; i++) {
		struct pv_query q2;
		pv_query_init(&q2);
		q2.depth = (uint32_t)i + 1;
		struct pv_view *v = api_view_get(a, 0, &q2, out, &st);
		T_TRUE(v != NULL);
		api_view_release(a, v);
		pv_query_release(&q2);
	}
	struct pv_view *again = api_view_get(a, 0, &q, out, &st);
	T_TRUE(again == held); /* referenced, so kept */
	api_view_release(a, again);
	api_view_release(a, held);
	/* every entry held: the next view lives for its request only */
	struct pv_view *hold[API_VIEW_CACHE];
	for (int i = 0; i < API_VIEW_CACHE; i++) {
		struct pv_query q2;
		pv_query_init(&q2);
		q2.depth = (uint32_t)i + 100;
		hold[i] = api_view_get(a, 0, &q2, out, &st);
		pv_query_release(&q2);
	}
	struct pv_query q3;
	pv_query_init(&q3);
	q3.depth = 999;
	struct pv_view *extra = api_view_get(a, 0, &q3, out, &st);
	T_TRUE(extra != NULL);
	api_view_release(a, extra); /* freed (ASan sees a leak or a double free otherwise) */
	pv_query_release(&q3);
	for (int i = 0; i < API_VIEW_CACHE; i++)
		api_view_release(a, hold[i]);
	/* a query that does not fit: 400 and the engine's message */
	pv_query_add_center(&q, "no_such_function");
	T_TRUE(api_view_get(a, 0, &q, out, &st) == NULL);
	T_EQ_INT(st, 400);
	pv_query_release(&q);
	T_CONTAINS(pv_json_text(out, NULL), "{\"error\": \"");
	pv_json_free(out);
	pv_api_free(a);
}

/*
 * The dispatcher parses the query before the handler (api_dispatch): a handler runs only with
 * the query parsed from every parameter but its endpoint's own; a request with an unknown key,
 * a bad query value, a broken escape or (endpoint without a query) any query key never reaches
 * it. The spy endpoint's own parameter is "mine".
 */
static struct {
	int calls;
	enum pv_view_kind view;
	uint32_t nr_center;
	char center0[32], mine[32], url[256];
} spy;

static int spy_handler(struct pv_api *a, const struct api_params *ps, const struct pv_query *q,
		       struct pv_json *out)
{
	(void)a;
	spy.calls++;
	spy.view = q->view;
	spy.nr_center = q->nr_center;
	snprintf(spy.center0, sizeof(spy.center0), "%s", q->nr_center ? q->center[0] : "-");
	const char *m = api_param(ps, "mine");
	snprintf(spy.mine, sizeof(spy.mine), "%s", m ? m : "-");
	char *url = pv_query_to_url(q);
	snprintf(spy.url, sizeof(spy.url), "%s", url ? url : "(oom)");
	free(url);
	pv_json_object(out);
	pv_json_kstr(out, "spy", "called");
	pv_json_end(out);
	return 200;
}

/* The status and body of the spy endpoint's answer to query (with or without a query). */
static int spy_call(bool with_query, const char *query, char *body, size_t cap)
{
	const struct api_endpoint e = {"spy", spy_handler, with_query,
				       (const char *const[]){"p", "mine", NULL}};
	struct pv_json *out = pv_json_new(NULL);
	T_TRUE(out != NULL);
	if (!out)
		return -1;
	int st = api_dispatch(NULL, &e, query, out);
	snprintf(body, cap, "%s", pv_json_text(out, NULL));
	pv_json_free(out);
	return st;
}

T_TEST(api_dispatch_parses_before_handler)
{
	char body[512];
	memset(&spy, 0, sizeof(spy));
	/* refused by the dispatcher: the handler never runs */
	T_EQ_INT(spy_call(true, "mine=1&bogus=1", body, sizeof(body)), 400);
	T_EQ_STR(body, "{\"error\": \"unknown query key 'bogus'\"}");
	T_EQ_INT(spy_call(true, "view=bogus", body, sizeof(body)), 400);
	T_EQ_STR(body,
		 "{\"error\": \"view takes tree, callers, flat, butterfly or top, not 'bogus'\"}");
	T_EQ_INT(spy_call(true, "center=%zz", body, sizeof(body)), 400);
	T_EQ_STR(body, "{\"error\": \"a broken percent escape in the query\"}");
	T_EQ_INT(spy_call(false, "mine=1&view=flat", body, sizeof(body)), 400);
	T_EQ_STR(body, "{\"error\": \"unknown query key 'view'\"}");
	T_EQ_INT(spy.calls, 0);
	/* accepted: the handler gets the query parsed (decoded once), its own parameter apart */
	T_EQ_INT(spy_call(true, "mine=a%26b&view=flat&center=x+y", body, sizeof(body)), 200);
	T_EQ_STR(body, "{\"spy\": \"called\"}");
	T_EQ_INT(spy.calls, 1);
	T_EQ_INT(spy.view, PV_VIEW_FLAT);
	T_EQ_INT(spy.nr_center, 1);
	T_EQ_STR(spy.center0, "x y");
	T_EQ_STR(spy.mine, "a&b");
	T_EQ_STR(spy.url, "view=flat&center=x%20y"); /* the cache key: mine not in it */
	/* without a query: its own parameters only, and an empty query */
	T_EQ_INT(spy_call(false, "p=0&mine=2", body, sizeof(body)), 200);
	T_EQ_INT(spy.calls, 2);
	T_EQ_INT(spy.view, PV_VIEW_TREE);
	T_EQ_INT(spy.nr_center, 0);
	T_EQ_STR(spy.mine, "2");
	/* a real endpoint: the query's error comes before the handler's (no profile 9) */
	struct pv_api *a = api3();
	T_API(a, "view", "p=9", 404, "{\"error\": \"no profile 9\"}");
	T_API(a, "view", "p=9&bogus=1", 400, "{\"error\": \"unknown query key 'bogus'\"}");
	T_API(a, "trace", "p=9&depth=2&view=bogus", 400,
	      "{\"error\": \"view takes tree, callers, flat, butterfly or top, not 'bogus'\"}");
	pv_api_free(a);
}
