/* api_view.c - the view endpoints of the JSON API (doc/api.md): view, children, flame,
 * thread-costs, source. */
#include "api.h"

int api_view(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	(void)a, (void)ps;
	return api_error(out, 501, "not implemented yet");
}

int api_children(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	(void)a, (void)ps;
	return api_error(out, 501, "not implemented yet");
}

int api_flame(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	(void)a, (void)ps;
	return api_error(out, 501, "not implemented yet");
}

int api_thread_costs(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	(void)a, (void)ps;
	return api_error(out, 501, "not implemented yet");
}

int api_source(struct pv_api *a, const struct api_params *ps, FILE *out)
{
	(void)a, (void)ps;
	return api_error(out, 501, "not implemented yet");
}
