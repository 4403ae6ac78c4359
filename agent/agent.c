#include "agent.h"
#include "check_select.h"
#include "netguard.h"
#include "checks.h"
#include "helper.h"
#include "probe_netns.h"
#include "sys_uts.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

struct finding *agent_finding(struct agent_ctx *ctx, const char *id)
{
	struct finding *f = finding_list_add(&ctx->report->results, id);
	finding_set_node(f, ctx->report->node);
	return f;
}

bool agent_result(const struct agent_ctx *ctx, const char *id, enum status *ret)
{
	return finding_list_status(&ctx->report->results, id, ret);
}

void agent_opts_init(struct agent_opts *o)
{
	*o = (struct agent_opts){
	    .host_root = xstrdup("/"),
	    .timeout_s = 10,
	    .interval_s = 30,
	    .thr =
		{
		    .clock_maxerror_warn_us = 1500000,
		    .min_cpu_cores = 8,
		    .min_memory_bytes = INT64_C(32) << 30,
		    .longhorn_min_available_pct = 25,
		},
	};
}

void agent_opts_clear(struct agent_opts *o)
{
	free(o->host_root);
	free(o->node);
	free(o->probe_targets_file);
	free(o->probe_netns);
	free(o->aggregator_url);
	free(o->ca_file);
	free(o->token_file);
	strv_clear(&o->skip);
	strv_clear(&o->only);
	probe_targets_clear(&o->targets);
	*o = (struct agent_opts){0};
}

char *agent_node_name(const struct agent_opts *o, const char *hostname)
{
	return xstrdup(o->node ? o->node : hostname ? hostname : "unknown");
}

bool agent_network_check(const char *id)
{
	for (size_t i = 0; i < helper_network_checks_len; i++)
		if (streq(helper_network_checks[i], id))
			return true;
	return false;
}

/* A network check that cannot probe from the namespace it was asked to
 * probe from decides nothing: from another network its answer would be
 * about another path. */
static void netns_unknown(struct agent_ctx *ctx, const char *id, const char *err)
{
	struct finding *f = agent_finding(ctx, id);
	finding_set(f, STATUS_UNKNOWN, "not probed: cannot enter the network namespace %s",
		    ctx->opts->probe_netns);
	kv_add_str(&f->evidence, "probe_netns", ctx->opts->probe_netns);
	kv_add_str(&f->evidence, "error", err);
	finding_remedy(
	    f, "%s",
	    "Entering the host's network namespace needs CAP_SYS_ADMIN and the host's "
	    "PID namespace (the DaemonSet in deploy/ runs privileged with hostPID and "
	    "--probe-netns=/proc/1/ns/net); on the host itself, leave --probe-netns out.");
}

/* The NFS probe without endpoints says SKIP without going to the network:
 * a namespace it cannot enter changes nothing of that. */
static bool nothing_to_probe(const struct agent_ctx *ctx, const char *id)
{
	const struct probe_targets *t = &ctx->opts->targets;
	return streq(id, "host.nfs.probe") && t->nfs_endpoints.n == 0 && !t->canary_export;
}

void agent_run_check(struct agent_ctx *ctx, size_t i)
{
	const char *id = host_checks[i].id;
	const char *netns = NULL, *err = NULL;
	bool net = ctx->opts->probe_netns && agent_network_check(id) && !nothing_to_probe(ctx, id);
	if (net && probe_netns_enter(ctx->opts->probe_netns, &netns, &err) < 0) {
		netns_unknown(ctx, id, err);
		return;
	}
	struct finding_list *l = &ctx->report->results;
	size_t before = l->n;
	/* Probe targets come from cluster objects: no metadata service unless allowed. */
	netguard_set_probe_link_local(ctx->opts->allow_link_local_probes);
	host_checks[i].run(ctx, id);
	struct finding *none = check_no_result(l, before, id);
	if (none) {
		finding_set_node(none, ctx->report->node);
		return;
	}
	for (size_t j = before; net && j < l->n; j++)
		kv_add_str(&l->items[j].evidence, "network_namespace", netns);
}

void agent_run_checks(struct agent_ctx *ctx)
{
	struct node_report *r = ctx->report;
	if (!r->hostname)
		r->hostname = agent_hostname(&ctx->root);
	if (!r->node)
		r->node = agent_node_name(ctx->opts, r->hostname);
	if (!r->agent_version)
		r->agent_version = xstrdup(HVREADY_VERSION);
	if (!r->boot_id) {
		char *b = NULL;
		r->boot_id =
		    hostroot_read_line(&ctx->root, "proc/sys/kernel/random/boot_id", &b) == 0
			? b
			: xstrdup("");
	}
	r->schema_minor = NODE_SCHEMA_MINOR;
	struct procs_scan scan = {0};
	ctx->procs = &scan;
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		const char *why = check_left_out(&ctx->opts->skip, &ctx->opts->only, id);
		if (why) {
			finding_set(agent_finding(ctx, id), STATUS_SKIP, "%s", why);
			continue;
		}
		if (ctx->defer_network && agent_network_check(id))
			continue; /* the daemon's probe helper runs it (agent_add_deferred) */
		agent_run_check(ctx, i);
	}
	ctx->procs = NULL;
	procs_scan_clear(&scan);
	facts_collect(ctx);
	r->sent_ns = util_now_realtime_ns();
}

bool agent_deferred(const struct agent_ctx *ctx, const char *id)
{
	return ctx->defer_network && agent_network_check(id) &&
	       !check_left_out(&ctx->opts->skip, &ctx->opts->only, id);
}

static void move_finding(struct finding_list *l, struct finding *f)
{
	util_grow((void **)&l->items, &l->cap, l->n + 1, sizeof(*l->items));
	l->items[l->n++] = *f;
	*f = (struct finding){0};
}

/* Move the findings of id from `from` to the end of `to`, in their order. */
static void move_check(struct finding_list *to, struct finding_list *from, const char *id)
{
	for (size_t j = 0; j < from->n; j++)
		if (from->items[j].check && streq(from->items[j].check, id))
			move_finding(to, &from->items[j]);
}

void agent_add_deferred(struct agent_ctx *ctx, struct node_report *probed, const char *why)
{
	struct node_report *r = ctx->report;
	struct finding_list out = {0};
	for (size_t i = 0; i < host_checks_len; i++) {
		const char *id = host_checks[i].id;
		if (!agent_deferred(ctx, id)) {
			move_check(&out, &r->results, id);
			continue;
		}
		size_t before = out.n;
		if (probed) {
			move_check(&out, &probed->results, id);
			check_no_result(&out, before, id);
			for (size_t j = before; j < out.n; j++)
				finding_set_node(&out.items[j], r->node);
			continue;
		}
		struct finding *u = finding_list_add(&out, id);
		finding_set_node(u, r->node);
		finding_set(u, STATUS_UNKNOWN, "not probed: %s", why);
		kv_add_str(&u->evidence, "probe_process", why);
		finding_remedy(u, "%s",
			       "See the agent's log (journalctl -u hvready-agent, "
			       "or the pod's log); the probe runs again next cycle.");
	}
	/* Findings of no row of the table (none today): kept, after the others. */
	for (size_t j = 0; j < r->results.n; j++)
		if (r->results.items[j].check)
			move_finding(&out, &r->results.items[j]);
	for (size_t j = 0; j < r->results.n; j++)
		finding_clear(&r->results.items[j]);
	free(r->results.items);
	r->results = out;
}

int agent_procs_find(struct agent_ctx *ctx, const char *comm, struct procs_found *ret)
{
	return ctx->procs ? procs_scan_find(ctx->procs, &ctx->root, comm, ret)
			  : procs_find(&ctx->root, comm, ret);
}

/* systemd's is_localhost(): such a static hostname counts as unset, and the kernel's
 * (DHCP's, the installer's) is the one in use. */
static bool is_localhost(const char *h)
{
	return strcasecmp(h, "localhost") == 0 || strcasecmp(h, "localhost.") == 0 ||
	       strcasecmp(h, "localhost.localdomain") == 0 ||
	       strcasecmp(h, "localhost.localdomain.") == 0 || endswith(h, ".localhost") ||
	       endswith(h, ".localhost.");
}

/* hostname(5): the first line that is neither blank nor a comment. */
static char *etc_hostname(const struct hostroot *root)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	if (hostroot_read(root, "etc/hostname", 4096, &buf, &len) < 0 || memchr(buf, '\0', len))
		return NULL;
	for (char *line = buf, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *s = strstrip(line);
		if (*s && *s != '#')
			return is_localhost(s) ? NULL : xstrdup(s);
	}
	return NULL;
}

char *agent_kernel_hostname(const struct hostroot *root)
{
	char host_ns[64], own_ns[64], name[256];
	_cleanup_close_ int nsdir = hostroot_openat(root, "proc/1/ns", O_PATH | O_DIRECTORY);
	/* No proc/1/ns under the root (a copied tree, no /proc): only the file is left. */
	if (nsdir != -ENOENT) {
		ssize_t a = nsdir >= 0 ? readlinkat(nsdir, "uts", host_ns, sizeof(host_ns)) : -1;
		ssize_t b = readlink("/proc/self/ns/uts", own_ns, sizeof(own_ns));
		/* Whose namespace the file would show cannot be told. */
		if (a <= 0 || b <= 0)
			return NULL;
		if (a != b || memcmp(host_ns, own_ns, (size_t)a) != 0) {
			/* Another UTS namespace (a pod without hostNetwork): the file gives the
			 * pod's name. Ask PID 1's namespace, or know nothing. */
			_cleanup_close_ int fd = openat(nsdir, "uts", O_RDONLY | O_CLOEXEC);
			if (fd < 0 || sys_uts_nodename(fd, name, sizeof(name)) < 0 || !*name)
				return NULL;
			return xstrdup(name);
		}
	}
	char *h = NULL;
	if (hostroot_read_line(root, "proc/sys/kernel/hostname", &h) == 0 && *h)
		return h;
	free(h);
	return NULL;
}

char *agent_hostname(const struct hostroot *root)
{
	char *h = etc_hostname(root);
	return h ? h : agent_kernel_hostname(root);
}
