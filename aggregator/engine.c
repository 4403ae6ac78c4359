#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "check_select.h"
#include "json_query.h"
#include "judge.h"

enum status vm_row_status(const struct vm_row *r)
{
	if (r->can_migrate)
		return STATUS_PASS;
	return r->status == STATUS_PASS ? STATUS_FAIL : r->status;
}

struct vm_row *vm_table_add(struct vm_table *t, const char *ns, const char *name, const char *node)
{
	util_grow((void **)&t->items, &t->cap, t->n + 1, sizeof(struct vm_row));
	struct vm_row *r = &t->items[t->n++];
	*r = (struct vm_row){
	    .namespace = xstrdup(ns),
	    .name = xstrdup(name),
	    .node = xstrdup(node ? node : ""),
	    .can_migrate = true,
	    .status = STATUS_PASS,
	};
	return r;
}

void vm_table_clear(struct vm_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->items[i].namespace);
		free(t->items[i].name);
		free(t->items[i].node);
		strv_clear(&t->items[i].reasons);
	}
	free(t->items);
	*t = (struct vm_table){0};
}

struct finding *agg_finding(struct agg_ctx *ctx, const char *id)
{
	return finding_list_add(ctx->out, id);
}

struct finding *agg_object_finding(struct agg_ctx *ctx, const char *id, const struct jv *obj)
{
	struct finding *f = finding_list_add(ctx->out, id);
	const char *kind = jq_kind(obj), *ns = jq_namespace(obj), *name = jq_name(obj);
	if (ns && *ns)
		finding_set_object(f, "%s/%s/%s", kind ? kind : "?", ns, name ? name : "?");
	else
		finding_set_object(f, "%s/%s", kind ? kind : "?", name ? name : "?");
	return f;
}

void agg_not_applicable(struct agg_ctx *ctx, const char *id, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	_cleanup_free_ char *why = xvasprintf(fmt, ap);
	va_end(ap);
	struct judge j = {0};
	judge_note(&j, STATUS_SKIP, "%s", why);
	judge_decide(&j, agg_finding(ctx, id), "");
}

bool agg_not_installed(struct agg_ctx *ctx, const char *id, enum resource_id res, const char *why)
{
	if (ctx->cs->res[res].status != RES_NOT_INSTALLED)
		return false;
	agg_not_applicable(ctx, id, "%s", why);
	return true;
}

const struct jv *agg_items_or_skip(struct agg_ctx *ctx, const char *id, enum resource_id res,
				   const char *absent, const char *none)
{
	const struct jv *items = cs_items(ctx->cs, res);
	if (!items || (none && jq_len(items) == 0)) {
		agg_not_applicable(ctx, id, "%s", items ? none : absent);
		return NULL;
	}
	return items;
}

bool engine_harvester_installed(const struct cluster_state *cs)
{
	if (cs_find(cs, RES_DEPLOYMENTS, "harvester-system", "harvester"))
		return true;
	/* Served harvesterhci.io resources mean the CRDs are installed. */
	return cs->res[RES_HV_SETTINGS].status == RES_COLLECTED ||
	       cs->res[RES_HV_VMIMAGES].status == RES_COLLECTED;
}

/* Why --skip/--only leave id out (a static string), or NULL. */
static const char *left_out(const struct engine_opts *o, const char *id)
{
	return o ? check_left_out(&o->skip, &o->only, id) : NULL;
}

/* The first need that was not collected, or NULL. NOT_INSTALLED is a fact the
 * check itself interprets. */
static const struct resource_data *missing_need(const struct agg_ctx *ctx,
						const struct api_check *c, enum resource_id *ret)
{
	for (size_t i = 0; i < CHECK_MAX_NEEDS; i++) {
		enum resource_id r = c->needs[i];
		if (r == RES_NONE)
			break;
		const struct resource_data *d = &ctx->cs->res[r];
		if (d->status == RES_COLLECTED || d->status == RES_NOT_INSTALLED)
			continue;
		*ret = r;
		return d;
	}
	return NULL;
}

/* The findings of the reports, with their node. Borrowed (shallow) or copied:
 * see agg_ctx.borrow_host_results. */
static void copy_host_results(struct agg_ctx *ctx, const struct engine_opts *opts)
{
	struct finding_list *out = ctx->out;
	size_t refs_cap = 0;
	for (size_t n = 0; n < ctx->n_nodes; n++) {
		const struct node_report *r = ctx->nodes[n].report;
		for (size_t i = 0; i < r->results.n; i++) {
			const struct finding *src = &r->results.items[i];
			const struct check_info *ci = catalog_find(src->check);
			if (!ci || ci->source != CHECK_HOST)
				continue; /* a newer agent's check this aggregator does not know */
			const char *why = left_out(opts, src->check);
			bool skip = why != NULL;
			if (ctx->borrow_host_results) {
				util_grow((void **)&out->items, &out->cap, out->n + 1,
					  sizeof(struct finding));
				struct finding *f = &out->items[out->n++];
				*f = *src;
				f->node = r->node;
				if (skip) { /* why is a static string */
					f->status = STATUS_SKIP;
					f->message = (char *)why;
				}
				util_grow((void **)&ctx->host_refs, &refs_cap,
					  ctx->host_borrowed + 1, sizeof(struct host_ref));
				ctx->host_refs[ctx->host_borrowed++] =
				    (struct host_ref){(uint32_t)n, (uint32_t)i};
				continue;
			}
			struct finding *f = finding_list_add(out, src->check);
			finding_clear(f);
			finding_copy(f, src);
			finding_set_node(f, r->node);
			if (skip)
				finding_set(f, STATUS_SKIP, "%s", why);
		}
	}
}

/* HVREADY_TIMINGS=1 (a benchmark hook, docs/benchmarks.md): each check's
 * elapsed time on stderr, one "timing<TAB>ID<TAB>ms" line per check. */
static void timing(bool on, const char *id, int64_t t0)
{
	if (on)
		fprintf(stderr, "timing\t%s\t%.3f\n", id,
			(double)(util_now_mono_ns() - t0) / (double)NSEC_PER_MSEC);
}

void engine_run(struct agg_ctx *ctx, const struct engine_opts *opts)
{
	const char *tv = getenv("HVREADY_TIMINGS");
	bool timings = tv && *tv && !streq(tv, "0");
	int64_t t0 = util_now_mono_ns();
	ctx->harvester_installed = engine_harvester_installed(ctx->cs);
	copy_host_results(ctx, opts);
	timing(timings, "(host results)", t0);
	for (size_t i = 0; i < api_checks_len; i++) {
		const struct api_check *c = &api_checks[i];
		const char *why = left_out(opts, c->id);
		enum resource_id rid;
		const struct resource_data *d;
		if (why) {
			finding_set(agg_finding(ctx, c->id), STATUS_SKIP, "%s", why);
			continue;
		}
		if (ctx->harvester_installed && startswith(c->id, "api.preinstall.")) {
			struct finding *f = agg_finding(ctx, c->id);
			finding_set(f, STATUS_SKIP,
				    "Harvester is installed: its own components are no conflict");
			continue;
		}
		if ((d = missing_need(ctx, c, &rid))) {
			struct finding *f = agg_finding(ctx, c->id);
			_cleanup_free_ char *res = resource_display_name(&resource_defs[rid]);
			finding_set(f, STATUS_UNKNOWN, "%s %s%s%s", res,
				    resource_status_name(d->status), d->error ? ": " : "",
				    d->error ? d->error : "");
			kv_add_str(&f->evidence, "resource", res);
			kv_add_str(&f->evidence, "status", resource_status_name(d->status));
			if (d->status == RES_FORBIDDEN)
				finding_remedy(
				    f,
				    "grant the aggregator's service account get/list on %s "
				    "(deploy/base/rbac.yaml)",
				    res);
			else if (d->status == RES_NOT_COLLECTED)
				finding_remedy(f,
					       "collect %s too (hvready-aggregator collect, or "
					       "docs/collect.md)",
					       res);
			continue;
		}
		size_t before = ctx->out->n;
		t0 = util_now_mono_ns();
		c->run(ctx, c->id);
		timing(timings, c->id, t0);
		check_no_result(ctx->out, before, c->id);
	}
}

int64_t engine_report_age_ns(const struct node_entry *e, int64_t now_ns, int64_t now_mono_ns)
{
	int64_t age = e->generated_mono_ns && now_mono_ns
			  ? util_sub_sat_i64(now_mono_ns, e->generated_mono_ns)
			  : util_sub_sat_i64(now_ns, e->report->sent_ns);
	return age < 0 ? 0 : age;
}
