/*
 * cmd_info.c - the commands about a file or profview itself: info (what a file holds and what
 * its import lost), formats (the formats profview reads) and query (the options' query in its
 * three notations).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "pv/format.h"
#include "pv/import.h"
#include "say.h"

int cmd_info(const struct cli *c, const char *path, const struct pv_profile *p)
{
	int rc = pv_print_info(stdout, p, path, c->json);
	if (rc)
		cli_say("error", "%s", pv_strerror(rc));
	return rc ? EXIT_RUNTIME : 0;
}

int cmd_formats(const struct cli *c, const char *path, const struct pv_profile *p)
{
	(void)c, (void)path, (void)p;
	for (size_t i = 0; i < pv_importer_count(); i++)
		printf("%-20s %s\n", pv_importer_name(i), pv_importer_description(i));
	return 0;
}

/* The query in its three notations, each of which reads back to the same query. */
int cmd_query(const struct cli *c, const char *path, const struct pv_profile *p)
{
	(void)path, (void)p;
	char *args = pv_query_to_args(&c->q), *url = pv_query_to_url(&c->q),
	     *json = pv_query_to_json(&c->q);
	int rc = 0;
	if (!args || !url || !json)
		rc = EXIT_RUNTIME;
	else
		printf("args: %s\nurl:  %s\njson: %s\n", args, url, json);
	free(args);
	free(url);
	free(json);
	return rc;
}
