/*
 * importer.h - one record per input format (dav1d's demuxer table). probe() scores the decoded
 * input (0 = not this format, higher = surer); import() fills the builder and returns 0 or an
 * error with a position. The registry sets meta.format to the importer's name.
 *
 * A probe judges the shape of a format (its magic, its keywords, the form of its lines), never
 * its values: a line of the format's form whose number is out of range is the importer's to
 * report, at its position. A file in part of the format's form (a few lines of it among others
 * that are not) is claimed with PROBE_DAMAGED, the lowest claim: when no other probe claims
 * the file, its importer says where it is damaged, rather than the registry's "not a profile
 * format" without a position.
 */
#ifndef PV_IMPORT_IMPORTER_H
#define PV_IMPORT_IMPORTER_H

#include "base/file.h"
#include "model/builder.h"

struct importer {
	const char *name;
	const char *description;
	/*
	 * Whether the threads of the format's profiles are parts of one program whose costs add
	 * up to the whole (an HPCToolkit database's execution contexts, callgrind's parts of one
	 * run, pprof): views open on all of them summed, as hpcviewer does; else they are
	 * independent threads and processes (a browser's, a system's), and the page opens on the
	 * busiest, as the Firefox Profiler does (pv_profile_one_program).
	 */
	bool one_program;
	/* Whether the input looks cut short at its end (a text's last record without its newline):
	 * the registry then says so in the import report. NULL: the format cannot tell. */
	int (*cut_short)(const struct pv_input *in);
	int (*probe)(const struct pv_input *in); /* NULL: chosen by name only */
	int (*import)(struct pv_input *in, struct pv_builder *b, struct pv_error *err);
	/*
	 * A format whose profile is a folder (HPCToolkit's databases): the file in it that the
	 * importer opens for the folder (it finds the others next to it); NULL for one-file
	 * formats.
	 */
	const char *dir_entry;
	/*
	 * Whether a file of that name (base), in a folder of that name (folder: the last
	 * component of its path, "" when unknown), starting with those bytes (up to 16) is one of
	 * the database's other files: 1 when it is in the database's folder (profile.db, a
	 * *.metric-db), 2 when it is in a folder of it (metrics/default.yaml), else 0. Given one,
	 * the registry opens the database's folder, as the file alone is not a profile. NULL:
	 * none is.
	 */
	int (*dir_member)(const char *folder, const char *base, const unsigned char *head,
			  size_t n);
	/*
	 * A format that holds the model itself (a snapshot, pv/snapshot.h): makes the profile
	 * without a builder, checks it (pv_profile_validate) and may keep in's bytes (input_take:
	 * the profile's columns point into them). Set instead of import.
	 */
	int (*open)(struct pv_input *in, struct pv_profile **out, struct pv_error *err);
};

#define PROBE_DAMAGED 1

extern const struct importer importer_firefox_processed;
extern const struct importer importer_firefox_gecko;
extern const struct importer importer_collapsed;
extern const struct importer importer_perf_script;
extern const struct importer importer_perf_data;
extern const struct importer importer_chrome;
extern const struct importer importer_speedscope;
extern const struct importer importer_pprof;
extern const struct importer importer_pprof_legacy;
extern const struct importer importer_callgrind;
extern const struct importer importer_hpctoolkit_v4;
extern const struct importer importer_hpctoolkit_summary;
extern const struct importer importer_hpctoolkit_xml;
extern const struct importer importer_snapshot;
extern const struct importer importer_dhat;
extern const struct importer importer_art_trace;
/* speedscope's other formats (issue 30) */
extern const struct importer importer_stackprof;
extern const struct importer importer_pmcstat;
extern const struct importer importer_ghc;
extern const struct importer importer_papyrus;
extern const struct importer importer_safari;
extern const struct importer importer_v8log;
extern const struct importer importer_instruments;
extern const struct importer importer_jfr;
/* issue 30: Android simpleperf, raw V8 logs */
extern const struct importer importer_simpleperf;
extern const struct importer importer_v8raw;
/* issue 30: Instruments .trace bundles, zipped */
extern const struct importer importer_instruments_trace;

/* pv_import_file_progress with every import option of o (its symbols' options too). */
struct pv_import_opts;
int import_path(const char *path, const struct pv_import_opts *o, struct pv_profile **out,
		struct pv_error *err);

/* Whether path is a folder that holds a profile database (one input, not a folder of them). */
bool import_folder_is_profile(const char *path);

struct pv_snapshot_source;
/*
 * Whether the snapshot in was made from src (its path, size, time and forced format): 1 yes,
 * 0 no, -1 when in is no readable snapshot (err says why).
 */
int snapshot_source_matches(const struct pv_input *in, const struct pv_snapshot_source *src,
			    struct pv_error *err);

/* Probe helpers: the first n bytes holding s (n capped at the input's size). */
int probe_has(const struct pv_input *in, size_t n, const char *s);
/* Whether the input's last byte is not a newline (a line-based text cut inside its last line). */
int input_ends_mid_line(const struct pv_input *in);
/* The first byte that is not whitespace, or 0. */
char probe_first_char(const struct pv_input *in);

#endif
