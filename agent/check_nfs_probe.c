/*
 * host.nfs.probe (docs/checks/host.nfs.probe.md): can this node use the RWX
 * shares? For every NFS endpoint in the probe targets, a userspace NFSv4.1
 * mount + GETATTR of the export root (nfs_probe.c: hvready's NFSv4.1 client,
 * libnfs for NFSv4.0-only servers), one finding per endpoint; for the canary export the operator named, also a
 * create/write/read/compare/remove round trip. Never a kernel mount, never a
 * write anywhere but the canary export.
 *
 * Time: each endpoint gets ctx->opts->timeout_s, and the whole check
 * NFS_PROBE_BUDGET_FACTOR times that. An endpoint is only started when (nearly)
 * a full timeout of budget is left, and then gets its full timeout, so a
 * timeout FAIL always means a full timeout elapsed; the check ends within the
 * budget plus a tenth of a timeout. Endpoints beyond it are UNKNOWN
 * "not probed".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "checks.h"
#include "judge.h"
#include "nfs_probe.h"

#define NFS_PROBE_BUDGET_FACTOR 3
#define LONGHORN_NS		"longhorn-system"

struct endpoint {
	const char *url; /* as given */
	bool canary;
	bool parsed;
	struct nfs_probe_url u;
	char volume[256]; /* "" when the export does not name a Longhorn volume */
	char err[256];	  /* why the URL is malformed */
};

/* A printable, bounded copy of a string from outside (for messages and objects). */
static char *printable(const char *s)
{
	size_t n = strnlen(s, 200);
	char *c = xstrndup(s, n);
	for (char *p = c; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return c;
}

static void seconds(int64_t ms, char *buf, size_t len)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%lld s", (long long)(ms / 1000));
	else
		snprintf(buf, len, "%.1f s", (double)ms / 1000.0);
}

static void endpoint_init(struct endpoint *e, const char *url, bool canary)
{
	*e = (struct endpoint){.url = url, .canary = canary};
	e->parsed = nfs_probe_url_parse((const uint8_t *)url, strlen(url), &e->u, e->err,
					sizeof(e->err)) == 0;
	if (e->parsed && !nfs_probe_url_volume(&e->u, e->volume, sizeof(e->volume)))
		e->volume[0] = '\0';
}

static struct finding *endpoint_finding(struct agent_ctx *ctx, const char *id,
					const struct endpoint *e)
{
	struct finding *f = agent_finding(ctx, id);
	if (e->volume[0]) {
		finding_set_object(f, "Volume/%s/%s", LONGHORN_NS, e->volume);
	} else {
		_cleanup_free_ char *p = printable(e->url);
		finding_set_object(f, "%s", p);
	}
	_cleanup_free_ char *p = printable(e->url);
	kv_add_str(&f->evidence, "url", p);
	if (e->canary)
		kv_add_bool(&f->evidence, "canary", true);
	if (!e->parsed)
		return f;
	kv_add_str(&f->evidence, "server", e->u.host);
	kv_add_int(&f->evidence, "port", e->u.port);
	kv_add_str(&f->evidence, "export", e->u.export_path);
	if (e->volume[0])
		kv_add_str(&f->evidence, "volume", e->volume);
	return f;
}

/* The minor versions tried, in the order the probe tries them: 4.1, 4.2, then 4.0. */
static void add_versions(struct kv_list *ev, const char *key, unsigned mask)
{
	static const unsigned order[] = {1, 2, 0};
	struct value_list *l = kv_add_list(ev, key);
	for (size_t i = 0; i < ELEMENTSOF(order); i++)
		if (mask & (1u << order[i]))
			vlist_add_strf(l, "4.%u", order[i]);
}

static void add_root_evidence(struct kv_list *ev, const struct nfs_probe_result *r)
{
	kv_add_str(ev, "root_type", S_ISDIR(r->root_mode) ? "directory" : "not a directory");
	if (r->root_known & NFS_ROOT_MODE)
		kv_add_strf(ev, "root_mode", "%04o", r->root_mode & 07777);
	if (r->root_known & NFS_ROOT_IDS) {
		kv_add_int(ev, "root_uid", (int64_t)r->root_uid);
		kv_add_int(ev, "root_gid", (int64_t)r->root_gid);
	}
	if (r->root_known & NFS_ROOT_NAMES) {
		kv_add_str(ev, "root_owner", r->root_owner);
		kv_add_str(ev, "root_group", r->root_group);
	}
}

static void add_result_evidence(struct finding *f, const struct nfs_probe_result *r)
{
	struct kv_list *ev = &f->evidence;
	if (r->address[0])
		kv_add_str(ev, "address", r->address);
	const char *client = nfs_probe_client_name(r->client);
	if (client)
		kv_add_str(ev, "client", client);
	if (r->nfs_minor >= 0)
		kv_add_strf(ev, "nfs_version", "4.%d", r->nfs_minor);
	if (r->minors_refused) {
		add_versions(ev, "nfs_versions_tried", r->minors_tried);
		add_versions(ev, "nfs_versions_refused", r->minors_refused);
	}
	if (r->server_impl[0])
		kv_add_str(ev, "server_impl", r->server_impl);
	kv_add_int(ev, "timeout_ms", r->limit_ms);
	kv_add_int(ev, "elapsed_ms", r->elapsed_ms);
	if (r->outcome != NFS_PROBE_OK) {
		kv_add_str(ev, "failed_step", nfs_probe_step_name(r->step));
		kv_add_str(ev, "outcome", nfs_probe_outcome_name(r->outcome));
		kv_add_bool(ev, "tcp_connected", r->tcp_connected);
	}
	if (r->sock_errno) {
		const char *name = strerrorname_np(r->sock_errno);
		kv_add_str(ev, "errno", name ? name : "?");
		kv_add_str(ev, "error", strerror(r->sock_errno));
	}
	if (r->nfs_error[0])
		kv_add_str(ev, "nfs_error", r->nfs_error);
	if (r->nfs_status[0])
		kv_add_str(ev, "nfs_status", r->nfs_status);
	if (r->rpc_status[0])
		kv_add_str(ev, "rpc_status", r->rpc_status);
	if (r->connect_ms >= 0)
		kv_add_int(ev, "connect_ms", r->connect_ms);
	if (r->session_ms >= 0)
		kv_add_int(ev, "session_ms", r->session_ms);
	if (r->mount_ms >= 0)
		kv_add_int(ev, "mount_ms", r->mount_ms);
	if (r->getattr_ms >= 0)
		kv_add_int(ev, "getattr_ms", r->getattr_ms);
	if (r->have_root)
		add_root_evidence(ev, r);
	if (r->canary_file[0]) {
		kv_add_str(ev, "canary_file", r->canary_file);
		kv_add_int(ev, "canary_bytes", (int64_t)r->canary_bytes);
		if (r->canary_ms >= 0)
			kv_add_int(ev, "canary_ms", r->canary_ms);
		kv_add_bool(ev, "canary_left_behind", r->canary_left_behind);
	}
}

/* ---------------------------------------------------------------- remediation */

/* How to look at the share-manager and its Service, with names when known. */
static char *where(const struct endpoint *e)
{
	if (e->volume[0])
		return xasprintf("the share-manager pod (kubectl -n %s get pod share-manager-%s -o "
				 "wide; kubectl -n %s logs share-manager-%s) and its Service "
				 "endpoint (kubectl -n %s get endpoints %s)",
				 LONGHORN_NS, e->volume, LONGHORN_NS, e->volume, LONGHORN_NS,
				 e->volume);
	return xasprintf("the NFS server behind %s:%u and its logs", e->u.host, e->u.port);
}

static bool status_is(const struct nfs_probe_result *r, const char *s)
{
	return streq(r->nfs_status, s);
}

static char *remedy_nfs_error(const struct endpoint *e, const struct nfs_probe_result *r,
			      const char *w)
{
	if (r->step >= NFS_STEP_CREATE) {
		if (status_is(r, "NFS4ERR_ROFS") || status_is(r, "NFS4ERR_ACCESS") ||
		    status_is(r, "NFS4ERR_PERM"))
			return xasprintf("The canary export is read-only or denies this node "
					 "writes: name a read-write export as canary_export (a "
					 "Longhorn RWX volume made for this check, never a user "
					 "volume), or grant write access. Check %s.",
					 w);
		return xasprintf("The share mounts but %s fails: check the Longhorn volume "
				 "(kubectl -n %s get volumes.longhorn.io %s: state, robustness; "
				 "a full or read-only filesystem fails like this) and %s.",
				 nfs_probe_step_name(r->step), LONGHORN_NS,
				 e->volume[0] ? e->volume : "VOLUME", w);
	}
	if (status_is(r, "NFS4ERR_NOENT")) {
		if (e->volume[0])
			return xasprintf(
			    "The server does not export %s. Check the volume's share (kubectl -n "
			    "%s get volumes.longhorn.io %s -o "
			    "jsonpath='{.status.shareState} {.status.shareEndpoint}'): the "
			    "endpoint may be stale after the volume was detached or moved. Then "
			    "check %s.",
			    e->u.export_path, LONGHORN_NS, e->volume, w);
		return xasprintf("The server does not export %s: check the URL and the exports "
				 "of %s.",
				 e->u.export_path, w);
	}
	if (status_is(r, "NFS4ERR_ACCESS") || status_is(r, "NFS4ERR_PERM") ||
	    status_is(r, "NFS4ERR_WRONGSEC"))
		return xasprintf("The server denies this node: check the export's client and "
				 "security rules (Longhorn's share-manager exports with sec=sys to "
				 "every client) in %s.",
				 w);
	if (status_is(r, "NFS4ERR_GRACE") || status_is(r, "NFS4ERR_DELAY"))
		return xasprintf("The server kept answering %s until the timeout: it is in its "
				 "NFSv4 grace period after a restart, or overloaded (Longhorn's "
				 "share-manager runs Graceless and should not be). Rerun the check "
				 "in a minute; if it persists, check %s.",
				 r->nfs_status, w);
	if (status_is(r, "NFS4ERR_STALE_CLIENTID") || status_is(r, "NFS4ERR_BADSESSION") ||
	    status_is(r, "NFS4ERR_DEADSESSION"))
		return xasprintf("The server forgot this probe's NFSv4.1 client or session in the "
				 "middle of the probe: it most likely restarted. Look for restarts "
				 "of %s, then rerun the check.",
				 w);
	return xasprintf("The server answered with an error: check %s.", w);
}

static char *remedy_rpc(const struct endpoint *e, const struct nfs_probe_result *r, const char *w)
{
	if (startswith(r->rpc_status, "AUTH_"))
		return xasprintf("The server refuses AUTH_SYS (sec=sys) credentials of uid 0 (%s): "
				 "Longhorn's share-manager exports with SecType = sys to every "
				 "client; check the export's SecType and client rules in %s.",
				 r->rpc_status, w);
	if (streq(r->rpc_status, "PROG_UNAVAIL") || streq(r->rpc_status, "PROG_MISMATCH"))
		return xasprintf(
		    "Something other than an NFSv4 server answers on %s port %u: check "
		    "that the URL's host and port lead to the share-manager, and %s.",
		    r->address, e->u.port, w);
	return xasprintf("The server's RPC layer refused the call (%s): check %s.", r->rpc_status,
			 w);
}

static char *remedy(const struct endpoint *e, const struct nfs_probe_result *r)
{
	_cleanup_free_ char *w = where(e);
	char lim[32];
	seconds(r->limit_ms, lim, sizeof(lim));
	switch (r->outcome) {
	case NFS_PROBE_OK:
		return xstrdup("");
	case NFS_PROBE_NFS_ERROR:
		return remedy_nfs_error(e, r, w);
	case NFS_PROBE_REFUSED:
		return xasprintf("Nothing listens on %s port %u. Check that %s exist and run; "
				 "without a running share-manager Longhorn shows the volume's "
				 "shareState as stopped or error.",
				 r->address, e->u.port, w);
	case NFS_PROBE_TIMEOUT:
		if (r->step == NFS_STEP_RESOLVE)
			return xasprintf("Name resolution of %s did not finish within %s: check "
					 "/etc/resolv.conf on this node and CoreDNS "
					 "(api.dns.replicas), or use the Service IP.",
					 e->u.host, lim);
		if (r->tcp_connected)
			return xasprintf(
			    "The TCP connection was accepted but NFS did not answer: the "
			    "share-manager is likely hung. Look at %s, then delete the pod so that "
			    "Longhorn recreates it; workloads on this volume hang the same way.",
			    w);
		return xasprintf("No TCP connection to %s port %u: allow TCP %u from this node "
				 "to the share-manager pods (NetworkPolicies in %s, the host "
				 "firewall: iptables/nftables, cloud security groups), check that "
				 "kube-proxy routes the Service IP, and check %s.",
				 r->address, e->u.port, e->u.port, LONGHORN_NS, w);
	case NFS_PROBE_SOCKET_ERROR:
		return xasprintf("This node has no path to %s port %u: check its routes, "
				 "kube-proxy (the Service IP must be routed on every node), the "
				 "host firewall and NetworkPolicies in %s, and %s.",
				 r->address, e->u.port, LONGHORN_NS, w);
	case NFS_PROBE_DISCONNECTED:
		return xasprintf("The server closed the connection: look for crashes or restarts "
				 "of %s.",
				 w);
	case NFS_PROBE_RESOLVE:
		return xasprintf("%s does not resolve on this node: check /etc/resolv.conf and "
				 "CoreDNS (api.dns.replicas), or use the Service IP.",
				 e->u.host);
	case NFS_PROBE_NO_VERSION:
		return xasprintf(
		    "The server answers NFSv4 but accepts none of the minor versions "
		    "NFS clients speak (4.0, 4.1, 4.2): check its NFSv4 minor versions "
		    "(NFS-Ganesha: Minor_Versions in the NFSV4 block; Longhorn's "
		    "share-manager sets 1, 2) in %s.",
		    w);
	case NFS_PROBE_RPC_ERROR:
		return remedy_rpc(e, r, w);
	case NFS_PROBE_BAD_REPLY:
		return xasprintf(
		    "hvready could not decode the server's reply (see nfs_error): either "
		    "something other than an NFSv4.1 server answers on %s port %u, or hvready's "
		    "client misread a valid reply — report it with this finding's evidence. Check "
		    "the export by hand with the kernel client (mount.nfs4, see host.nfs.client): "
		    "mkdir -p /mnt/hvready && mount -t nfs4 -o vers=4.1,soft,timeo=50,retrans=1 "
		    "%s%s%s:%s /mnt/hvready && stat /mnt/hvready && umount /mnt/hvready",
		    r->address, e->u.port, e->u.host_is_v6 ? "[" : "", e->u.host,
		    e->u.host_is_v6 ? "]" : "", e->u.export_path);
	case NFS_PROBE_MISMATCH:
	case NFS_PROBE_SHORT_IO:
		return xasprintf("The server acknowledged the canary write but did not return "
				 "the same bytes: treat the share as unsafe for data. Check the "
				 "volume's replicas (api.longhorn.volume-health) and %s.",
				 w);
	case NFS_PROBE_INTERNAL:
		return xstrdup("The probe could not run on this host: rerun the check, and "
			       "report it with the agent's log if it persists.");
	}
	return xstrdup("");
}

/* ---------------------------------------------------------------- findings */

static void fail_message(struct judge *j, const char *url, const struct endpoint *e,
			 const struct nfs_probe_result *r)
{
	char lim[32];
	seconds(r->limit_ms, lim, sizeof(lim));
	const char *step = nfs_probe_step_name(r->step);
	switch (r->outcome) {
	case NFS_PROBE_OK:
		break;
	case NFS_PROBE_NFS_ERROR:
		if (r->step >= NFS_STEP_CREATE)
			judge_note(j, STATUS_FAIL, "%s: canary %s failed: %s", url, step,
				   r->nfs_error);
		else
			judge_note(j, STATUS_FAIL, "%s: %s failed: %s", url, step, r->nfs_error);
		break;
	case NFS_PROBE_REFUSED:
		judge_note(j, STATUS_FAIL, "%s: connection to %s port %u refused", url, r->address,
			   e->u.port);
		break;
	case NFS_PROBE_SOCKET_ERROR:
		judge_note(j, STATUS_FAIL, "%s: cannot connect to %s port %u: %s", url, r->address,
			   e->u.port, strerror(r->sock_errno));
		break;
	case NFS_PROBE_TIMEOUT:
		if (r->step == NFS_STEP_RESOLVE)
			judge_note(j, STATUS_FAIL,
				   "%s: name resolution of %s got no answer within %s", url,
				   e->u.host, lim);
		else
			judge_note(j, STATUS_FAIL,
				   "%s: no answer within %s (%s): the share-manager may be hung or "
				   "a NetworkPolicy blocks %u",
				   url, lim,
				   r->tcp_connected ? step : "TCP connection not established",
				   e->u.port);
		break;
	case NFS_PROBE_DISCONNECTED:
		judge_note(j, STATUS_FAIL, "%s: the server closed the connection during %s", url,
			   step);
		break;
	case NFS_PROBE_RESOLVE:
		judge_note(j, STATUS_FAIL, "%s: host name %s does not resolve: %s", url, e->u.host,
			   r->nfs_error);
		break;
	case NFS_PROBE_NO_VERSION:
		judge_note(j, STATUS_FAIL,
			   "%s: the NFS server refuses NFSv4.0, 4.1 and 4.2 "
			   "(NFS4ERR_MINOR_VERS_MISMATCH): no NFS client can mount it",
			   url);
		break;
	case NFS_PROBE_RPC_ERROR:
		judge_note(j, STATUS_FAIL, "%s: %s failed: %s", url, step, r->nfs_error);
		break;
	case NFS_PROBE_BAD_REPLY:
		judge_note(j, STATUS_UNKNOWN,
			   "%s: could not decode the server's reply during %s (%s); the export "
			   "was not checked",
			   url, step, r->nfs_error);
		break;
	case NFS_PROBE_MISMATCH:
	case NFS_PROBE_SHORT_IO:
		judge_note(j, STATUS_FAIL, "%s: canary %s failed: %s", url, step, r->nfs_error);
		break;
	case NFS_PROBE_INTERNAL:
		judge_note(j, STATUS_UNKNOWN, "%s: the probe could not run: %s", url, r->nfs_error);
		break;
	}
}

/* What one probed endpoint's result says. */
static void judge_result(struct finding *f, struct judge *j, const struct endpoint *e,
			 const struct nfs_probe_result *r)
{
	_cleanup_free_ char *url = printable(e->url);
	add_result_evidence(f, r);
	if (r->outcome == NFS_PROBE_OK) {
		if (e->canary)
			judge_note(j, STATUS_PASS,
				   "%s: mounted with NFSv4.%d; canary file created, written, read "
				   "back identical and removed in %lld ms",
				   url, r->nfs_minor, (long long)r->canary_ms);
		else if (r->session_ms >= 0)
			judge_note(
			    j, STATUS_PASS,
			    "%s: mounted with NFSv4.%d and read the export root's attributes "
			    "(session %lld ms, lookup and getattr %lld ms)",
			    url, r->nfs_minor, (long long)r->session_ms, (long long)r->mount_ms);
		else
			judge_note(
			    j, STATUS_PASS,
			    "%s: mounted with NFSv4.%d and read the export root's attributes "
			    "(mount %lld ms, getattr %lld ms)",
			    url, r->nfs_minor, (long long)r->mount_ms, (long long)r->getattr_ms);
		return;
	}
	fail_message(j, url, e, r);
	_cleanup_free_ char *rem = remedy(e, r);
	judge_remedy(j, "%s", rem);
	if (r->canary_left_behind)
		judge_remedy(j,
			     "The canary file %s%s %s left behind: remove it from the export by "
			     "hand%s.",
			     streq(e->u.export_path, "/") ? "" : e->u.export_path, r->canary_file,
			     r->canary_left_maybe ? "may have been" : "was",
			     r->canary_left_maybe ? " if it is there" : "");
}

/* The finding for one probed endpoint, judged once. */
static void report_result(struct finding *f, const struct endpoint *e,
			  const struct nfs_probe_result *r)
{
	_cleanup_(judge_clear) struct judge j = {.status = STATUS_PASS};
	judge_result(f, &j, e, r);
	judge_apply(&j, f, "");
}

/* Probe e into r and return true, or note in j why it is not probed. */
static bool run_probe(struct finding *f, struct judge *j, const struct endpoint *e,
		      int64_t timeout_ns, int64_t budget_end, int64_t budget_ns,
		      struct nfs_probe_result *r)
{
	_cleanup_free_ char *url = printable(e->url);
	if (!e->parsed) {
		judge_note(j, STATUS_UNKNOWN, "malformed NFS endpoint \"%s\": %s", url, e->err);
		kv_add_str(&f->evidence, "parse_error", e->err);
		judge_remedy(j,
			     "Fix the %s: it must read nfs://HOST[:PORT]/EXPORT as Longhorn "
			     "writes a volume's status.shareEndpoint (IPv6 in brackets).",
			     e->canary ? "canary_export" : "endpoint in the probe targets");
		return false;
	}
	int64_t now = util_now_mono_ns();
	/* A tenth of a timeout of slack for our own overhead between probes. */
	if (budget_end - now < timeout_ns - timeout_ns / 10) {
		char b[32];
		seconds(budget_ns / NSEC_PER_MSEC, b, sizeof(b));
		judge_note(j, STATUS_UNKNOWN,
			   "%s: not probed: budget exhausted (%s for the whole check)", url, b);
		kv_add_int(&f->evidence, "budget_ms", budget_ns / NSEC_PER_MSEC);
		judge_remedy(j,
			     "Earlier endpoints used up this check's time, most likely by timing "
			     "out (see their findings): fix those first, or raise --timeout (the "
			     "check may take %d times the timeout).",
			     NFS_PROBE_BUDGET_FACTOR);
		return false;
	}
	nfs_probe_run(&e->u, now + timeout_ns, e->canary, r);
	return true;
}

static void probe_endpoint(struct agent_ctx *ctx, const char *id, const struct endpoint *e,
			   int64_t timeout_ns, int64_t budget_end, int64_t budget_ns)
{
	struct finding *f = endpoint_finding(ctx, id, e);
	_cleanup_(judge_clear) struct judge j = {.status = STATUS_PASS};
	struct nfs_probe_result r;
	if (run_probe(f, &j, e, timeout_ns, budget_end, budget_ns, &r))
		report_result(f, e, &r);
	else
		judge_apply(&j, f, "");
}

static void run_all(struct agent_ctx *ctx, const char *id, int64_t timeout_ns, int64_t budget_ns)
{
	const struct probe_targets *t = &ctx->opts->targets;
	int64_t budget_end = util_now_mono_ns() + budget_ns;
	struct endpoint e;
	/* The canary first: the operator asked for it by name. */
	if (t->canary_export) {
		endpoint_init(&e, t->canary_export, true);
		probe_endpoint(ctx, id, &e, timeout_ns, budget_end, budget_ns);
	}
	for (size_t i = 0; i < t->nfs_endpoints.n; i++) {
		endpoint_init(&e, t->nfs_endpoints.items[i], false);
		probe_endpoint(ctx, id, &e, timeout_ns, budget_end, budget_ns);
	}
}

void check_nfs_probe(struct agent_ctx *ctx, const char *id)
{
	const struct probe_targets *t = &ctx->opts->targets;
	if (t->nfs_endpoints.n == 0 && !t->canary_export) {
		struct finding *f = agent_finding(ctx, id);
		_cleanup_(judge_clear) struct judge j = {0};
		judge_note(&j, STATUS_SKIP, "no RWX share endpoints to probe");
		kv_add_int(&f->evidence, "nfs_endpoints", 0);
		kv_add_bool(&f->evidence, "canary_export", false);
		if (ctx->opts->probe_targets_file)
			kv_add_str(&f->evidence, "probe_targets_file",
				   ctx->opts->probe_targets_file);
		judge_apply(&j, f, "");
		return;
	}
	int64_t timeout_ns = (int64_t)ctx->opts->timeout_s * NSEC_PER_SEC;
	run_all(ctx, id, timeout_ns, timeout_ns * NFS_PROBE_BUDGET_FACTOR);
}
