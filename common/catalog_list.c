#include "catalog_list.h"

#include <string.h>

static const char *const gate_short[_GATE_MAX] = {
    [GATE_PREINSTALL] = "pre",
    [GATE_PLATFORM] = "plat",
    [GATE_RWX] = "rwx",
    [GATE_LIVE_MIGRATION] = "lm",
};

static void gates_join(unsigned gates, const char *const *names, const char *sep, char *buf,
		       size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int g = 0; g < _GATE_MAX; g++) {
		if (!(gates & (1u << g)))
			continue;
		int w = snprintf(buf + n, len - n, "%s%s", n ? sep : "", names[g]);
		if (w < 0 || (size_t)w >= len - n)
			return; /* cut: the buffers here hold every gate */
		n += (size_t)w;
	}
}

void catalog_gates_short(unsigned gates, char *buf, size_t len)
{
	if ((gates & G_ALL) == G_ALL)
		snprintf(buf, len, "all");
	else
		gates_join(gates, gate_short, ", ", buf, len);
}

void catalog_print_row(FILE *f, const struct check_info *ci, const char *needs)
{
	const char *names[_GATE_MAX];
	for (int g = 0; g < _GATE_MAX; g++)
		names[g] = gate_name((enum gate)g);
	char gates[96];
	gates_join(ci->gates, names, ",", gates, sizeof(gates));
	fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", ci->id, check_source_name(ci->source), gates,
		ci->network ? "network" : "local", ci->stem ? ci->stem : "-", ci->runner,
		needs && *needs ? needs : "-", ci->title);
}

static const struct {
	enum check_source source;
	const char *heading;
} sections[] = {
    {CHECK_HOST, "Host checks (agent, per node)"},
    {CHECK_CLUSTER, "Cross-node checks (aggregator, from agent reports)"},
    {CHECK_API, "API checks (aggregator, Kubernetes API)"},
    {CHECK_CANARY, "Canary steps (aggregator `canary`, opt-in, creates objects)"},
};

void catalog_print_markdown(FILE *f)
{
	for (size_t s = 0; s < ELEMENTSOF(sections); s++) {
		fprintf(f, "%s## %s\n\n| ID | gates | what it decides |\n|---|---|---|\n",
			s ? "\n" : "", sections[s].heading);
		for (size_t i = 0; i < catalog_len; i++) {
			const struct check_info *ci = &catalog[i];
			if (ci->source != sections[s].source)
				continue;
			char gates[64];
			catalog_gates_short(ci->gates, gates, sizeof(gates));
			fprintf(f, "| [`%s`](%s) | %s | %s |\n", ci->id, ci->doc, gates,
				ci->summary);
		}
	}
}
