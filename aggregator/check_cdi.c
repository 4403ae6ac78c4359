/*
 * api.cdi.import-source (docs/checks/api.cdi.import-source.md): CDI imports from
 * flaky external URLs, imports that restart, and importers that cannot write
 * their volume.
 */
#include "checks_api.h"

#include <stdio.h>
#include <string.h>

#include "cidr.h"
#include "kubevirt_util.h"
#include "redact.h"

struct import_src {
	const char *kind; /* "http", "registry", … */
	const char *url;
	char host[256];
	bool internal;
};

/* Whether an image reference's first component (of n bytes, a '/' after it) is
 * a registry host: it has a '.' or a ':' (a port, an IPv6 literal) or is
 * localhost (distribution/reference); otherwise it is a Docker Hub path. */
static bool registry_component(const char *p, size_t n)
{
	if (p[n] != '/')
		return false; /* "docker://cirros": an image name only */
	return memchr(p, '.', n) || memchr(p, ':', n) || (n == 9 && !strncmp(p, "localhost", 9));
}

/* Host of "https://user@host:8443/x", "docker://quay.io/a/b:1", "docker://cirros". */
static void url_host(const char *url, const char *kind, char *buf, size_t len)
{
	const char *p = strstr(url, "://");
	p = p ? p + 3 : url;
	size_t n = strcspn(p, "/?#");
	const char *at = memchr(p, '@', n);
	if (at) {
		n -= (size_t)(at + 1 - p);
		p = at + 1;
	}
	/* docker://kubevirt/cirros or docker://cirros: no registry host, Docker Hub. */
	if (streq(kind, "registry") && !registry_component(p, n)) {
		snprintf(buf, len, "docker.io");
		return;
	}
	if (*p == '[') { /* IPv6 literal */
		const char *close = memchr(p, ']', n);
		n = close ? (size_t)(close - p - 1) : 0;
		p++;
	} else {
		const char *colon = memchr(p, ':', n);
		if (colon)
			n = (size_t)(colon - p);
	}
	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

static bool host_internal(const char *host)
{
	struct cidr c;
	if (cidr_parse(host, &c) == 0)
		return cidr_is_private(&c);
	if (!strchr(host, '.') || endswith(host, ".svc") || endswith(host, ".cluster.local") ||
	    endswith(host, ".local"))
		return true;
	return false;
}

static bool import_source(const struct jv *dv, struct import_src *ret)
{
	static const char *const kinds[] = {"http", "registry", "s3", "gcs", "imageio", "vddk"};
	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		const char *url = JQS(dv, "spec", "source", kinds[i], "url");
		if (!url || !*url)
			continue;
		ret->kind = kinds[i];
		ret->url = url;
		url_host(url, kinds[i], ret->host, sizeof(ret->host));
		ret->internal = host_internal(ret->host);
		return true;
	}
	return false;
}

/* The importer pod of a DataVolume: the PVC's import-pod annotation, else
 * importer-<dv>, else importer-prime-<pvc uid> (CDI's populator path). */
static const struct jv *importer_pod(struct agg_ctx *ctx, const struct jv *dv, const char *ns)
{
	const char *claim = JQS(dv, "status", "claimName");
	if (!claim)
		claim = jq_name(dv);
	const struct jv *pvc = claim ? cs_find(ctx->cs, RES_PVCS, ns, claim) : NULL;
	const char *ann =
	    JQS(pvc, "metadata", "annotations", "cdi.kubevirt.io/storage.import.importPodName");
	const struct jv *pod = ann ? cs_find(ctx->cs, RES_PODS, ns, ann) : NULL;
	if (!pod && jq_name(dv)) {
		_cleanup_free_ char *n = xasprintf("importer-%s", jq_name(dv));
		pod = cs_find(ctx->cs, RES_PODS, ns, n);
	}
	const char *uid = JQS(pvc, "metadata", "uid");
	if (!pod && uid) {
		_cleanup_free_ char *n = xasprintf("importer-prime-%s", uid);
		pod = cs_find(ctx->cs, RES_PODS, ns, n);
	}
	return pod;
}

struct import_state {
	int64_t restarts;
	const char *message; /* the last failure's text */
};

static void importer_state(const struct jv *dv, const struct jv *pod, struct import_state *st)
{
	*st = (struct import_state){0};
	jq_int(JQ(dv, "status", "restartCount"), &st->restarts);
	const struct jv *cs = JQ(pod, "status", "containerStatuses");
	for (size_t i = 0; i < jq_len(cs); i++) {
		const struct jv *c = jq_at(cs, i);
		int64_t r;
		if (jq_int(JQ(c, "restartCount"), &r) && r > st->restarts)
			st->restarts = r;
		const char *m = JQS(c, "lastState", "terminated", "message");
		if (!m || !*m)
			m = JQS(c, "state", "terminated", "message");
		if (m && *m)
			st->message = m;
	}
	if (!st->message) {
		static const char *const types[] = {"Running", "Ready"};
		const struct jv *conds = JQ(dv, "status", "conditions");
		for (size_t i = 0; i < ELEMENTSOF(types) && !st->message; i++) {
			const char *m = JQS(jq_condition(conds, types[i]), "message");
			if (m && *m)
				st->message = m;
		}
	}
}

static void import_remedy(struct judge *j, const struct import_src *src,
			  const struct import_state *st, const char *ns)
{
	const char *m = st->message ? st->message : "";
	bool network = strstr(m, "curl") || strstr(m, "SSL") || strstr(m, "Connection reset") ||
		       strstr(m, "connection reset") || strstr(m, "timeout") ||
		       strstr(m, "no such host");
	if (strstr(m, "cdi-block-volume") && strstr(m, "Permission denied"))
		judge_remedy(j,
			     "the importer (non-root) cannot open the block device: set "
			     "nonroot-devices: true in /etc/rancher/rke2/config.yaml on every node "
			     "(containerd device_ownership_from_security_context) and restart "
			     "rke2-server/rke2-agent; see host.containerd.device-ownership");
	else if (strstr(m, "qemu-img") && !network)
		judge_remedy(j, "the write to the volume failed, not the download: for RWX "
				"Filesystem disks check the NFS share (api.longhorn.rwx-share)");
	else if (!src->internal)
		judge_remedy(
		    j,
		    "do not import production disks from an Internet URL (%s): create a "
		    "VirtualMachineImage (harvesterhci.io/v1beta1) from it once and create VMs "
		    "from "
		    "the image, or serve the file from an in-cluster/intranet mirror; a blank "
		    "source (spec.source.blank: {}) verifies the storage path without a download",
		    src->host);
	else
		judge_remedy(j,
			     "kubectl -n %s get pod -l cdi.kubevirt.io=importer -o "
			     "jsonpath='{range .items[*]}{.metadata.name} "
			     "{.status.containerStatuses[0].lastState.terminated.message}{\"\\n\"}"
			     "{end}'",
			     ns);
}

static bool import_one(struct agg_ctx *ctx, const char *id, const struct jv *dv, size_t *n_url)
{
	struct import_src src = {0};
	if (!import_source(dv, &src))
		return false;
	(*n_url)++;
	const char *ns = jq_namespace(dv) ? jq_namespace(dv) : "";
	const char *phase = JQS(dv, "status", "phase");
	const struct jv *pod = importer_pod(ctx, dv, ns);
	struct import_state st;
	importer_state(dv, pod, &st);
	if (st.restarts == 0 || streq(phase, "Succeeded"))
		return false;

	struct finding *f = agg_object_finding(ctx, id, dv);
	struct judge j = {0};
	kv_add_str(&f->evidence, "source", src.kind);
	_cleanup_free_ char *shown = redact_url(src.url); /* presigned URLs, user:pass@ */
	kv_add_str(&f->evidence, "url", shown);
	kv_add_str(&f->evidence, "host", src.host);
	kv_add_bool(&f->evidence, "in_cluster", src.internal);
	kv_add_str(&f->evidence, "phase", phase ? phase : "");
	if (JQS(dv, "status", "progress"))
		kv_add_str(&f->evidence, "progress", JQS(dv, "status", "progress"));
	kv_add_int(&f->evidence, "restarts", st.restarts);
	if (pod)
		kv_add_str(&f->evidence, "importer_pod", jq_name(pod));
	if (st.message) {
		_cleanup_free_ char *m = kubevirt_util_trunc(st.message, 600);
		kv_add_str(&f->evidence, "last_error", m);
	}
	if (src.internal)
		judge_note(&j, STATUS_WARN,
			   "import from in-cluster source %s restarted %lld %s (the source is "
			   "not the likely cause)",
			   src.host, (long long)st.restarts, plural(st.restarts, "time", "times"));
	else
		judge_note(&j, STATUS_WARN,
			   "import from external %s URL %s restarted %lld %s at %s: every "
			   "failure starts the download again",
			   src.kind, src.host, (long long)st.restarts,
			   plural(st.restarts, "time", "times"),
			   JQS(dv, "status", "progress") ? JQS(dv, "status", "progress") : "?");
	import_remedy(&j, &src, &st, ns);
	judge_decide(&j, f, "");
	return true;
}

void check_cdi_import_source(struct agg_ctx *ctx, const char *id)
{
	const struct jv *dvs = agg_items_or_skip(
	    ctx, id, RES_DATAVOLUMES,
	    "CDI is not installed (datavolumes.cdi.kubevirt.io is not served)", "no DataVolumes");
	if (!dvs)
		return;
	size_t n_url = 0, flagged = 0;
	for (size_t i = 0; i < jq_len(dvs); i++)
		flagged += import_one(ctx, id, jq_at(dvs, i), &n_url);
	if (flagged == 0) {
		struct finding *f = agg_finding(ctx, id);
		struct judge j = {0};
		kv_add_int(&f->evidence, "datavolumes", (int64_t)jq_len(dvs));
		kv_add_int(&f->evidence, "url_imports", (int64_t)n_url);
		judge_note(&j, STATUS_PASS, "%zu %s, %zu from a URL; no importer restarted",
			   jq_len(dvs), plural((int64_t)jq_len(dvs), "DataVolume", "DataVolumes"),
			   n_url);
		judge_decide(&j, f, "");
	}
}
