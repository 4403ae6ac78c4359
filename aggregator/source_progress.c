#include "source_progress.h"

#include "util.h"

static FILE *out;
static bool on_tty;
static size_t objects_so_far;

void source_progress_enable(FILE *f, bool tty)
{
	out = f;
	on_tty = tty;
	objects_so_far = 0;
}

bool source_progress_enabled(void)
{
	return out != NULL;
}

/* 20123 -> "20,123": counts an operator reads at a glance. */
static const char *grouped(size_t n, char *buf, size_t len)
{
	char tmp[32];
	int k = snprintf(tmp, sizeof(tmp), "%zu", n);
	size_t o = 0;
	for (int i = 0; i < k && o + 2 < len; i++) {
		if (i > 0 && (k - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = 0;
	return buf;
}

void source_progress_resource(const char *name, enum resource_status st, size_t objects,
			      const char *why, int done, int total)
{
	if (!out)
		return;
	char b[32];
	objects_so_far += objects;
	if (on_tty)
		fputs("\r\033[K", out);
	if (st == RES_FORBIDDEN)
		fprintf(out,
			"forbidden: %s — grant get, list, watch on %s to this identity; the checks "
			"that need it will be UNKNOWN\n",
			name, name);
	else if (st == RES_FAILED)
		fprintf(out, "failed: %s — %s\n", name, why ? why : "no reason given");
	if (on_tty)
		fprintf(out, "reading the API: %d/%d resources, %s %s (%s)", done, total,
			grouped(objects_so_far, b, sizeof(b)),
			plural(objects_so_far, "object", "objects"), name);
	fflush(out);
}

void source_progress_summary(const char *server, const size_t counts[], size_t objects,
			     int64_t elapsed_ns)
{
	if (!out)
		return;
	char b[32];
	if (on_tty)
		fputs("\r\033[K", out);
	size_t total = 0;
	for (int s = 0; s <= RES_FAILED; s++)
		total += counts[s];
	fprintf(out, "read %zu %s from %s in %.1f s: %zu collected (%s %s)", total,
		plural(total, "resource", "resources"), server, (double)elapsed_ns / NSEC_PER_SEC,
		counts[RES_COLLECTED], grouped(objects, b, sizeof(b)),
		plural(objects, "object", "objects"));
	if (counts[RES_NOT_INSTALLED])
		fprintf(out, ", %zu not installed", counts[RES_NOT_INSTALLED]);
	if (counts[RES_FORBIDDEN])
		fprintf(out, ", %zu forbidden", counts[RES_FORBIDDEN]);
	if (counts[RES_FAILED])
		fprintf(out, ", %zu failed", counts[RES_FAILED]);
	fputs("\n", out);
	fflush(out);
}
