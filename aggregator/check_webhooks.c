/*
 * api.webhooks.harvester (docs/checks/api.webhooks.harvester.md): Harvester's
 * admission webhooks are registered, each entry inside its configuration.
 */
#include "checks_api.h"

#include <string.h>

#include "kubevirt_util.h"

/* The configuration that holds the webhook entry named entry, or NULL. */
static const struct jv *find_webhook(const struct jv *configs, const char *entry,
				     const struct jv **ret_hook)
{
	for (size_t i = 0; i < jq_len(configs); i++) {
		const struct jv *cfg = jq_at(configs, i), *hooks = JQ(cfg, "webhooks");
		for (size_t j = 0; j < jq_len(hooks); j++)
			if (streq(JQS(jq_at(hooks, j), "name"), entry)) {
				*ret_hook = jq_at(hooks, j);
				return cfg;
			}
	}
	return NULL;
}

static void webhook_one(struct agg_ctx *ctx, const char *id, enum resource_id rid,
			const char *entry, const char *expected_cfg)
{
	const struct jv *hook = NULL, *configs = cs_items(ctx->cs, rid);
	const struct jv *cfg = find_webhook(configs, entry, &hook);
	struct finding *f = agg_finding(ctx, id);
	struct judge j = {0};
	const char *kind = rid == RES_VWEBHOOKS ? "ValidatingWebhookConfiguration"
						: "MutatingWebhookConfiguration";
	if (!cfg) {
		struct value_list *l = kv_add_list(&f->evidence, "configurations");
		for (size_t i = 0; i < jq_len(configs); i++) {
			const struct jv *hooks = JQ(jq_at(configs, i), "webhooks");
			for (size_t k = 0; k < jq_len(hooks); k++)
				vlist_add_strf(
				    l, "%s: %s", kubevirt_util_str(jq_name(jq_at(configs, i))),
				    JQS(jq_at(hooks, k), "name") ? JQS(jq_at(hooks, k), "name")
								 : "?");
		}
		judge_note(&j, STATUS_FAIL,
			   "no webhook entry %s in any %s (Harvester's configuration is %s)", entry,
			   kind, expected_cfg);
		judge_remedy(&j,
			     "the harvester-webhook pod registers it at start: kubectl -n "
			     "harvester-system rollout status deploy/harvester-webhook; kubectl -n "
			     "harvester-system logs deploy/harvester-webhook --tail=50");
		goto out;
	}
	finding_set_object(f, "%s/%s", kind, jq_name(cfg) ? jq_name(cfg) : "?");
	kv_add_str(&f->evidence, "configuration", jq_name(cfg) ? jq_name(cfg) : "?");
	kv_add_str(&f->evidence, "entry", entry);
	const char *sns = JQS(hook, "clientConfig", "service", "namespace");
	const char *sname = JQS(hook, "clientConfig", "service", "name");
	if (sname)
		kv_add_strf(&f->evidence, "service", "%s/%s", sns ? sns : "", sname);
	if (JQS(hook, "failurePolicy"))
		kv_add_str(&f->evidence, "failurePolicy", JQS(hook, "failurePolicy"));
	judge_note(&j, STATUS_PASS, "webhook entry %s is registered in %s %s", entry, kind,
		   jq_name(cfg) ? jq_name(cfg) : "?");
out:
	judge_decide(&j, f, "");
}

void check_webhooks_harvester(struct agg_ctx *ctx, const char *id)
{
	if (!ctx->harvester_installed) {
		agg_not_applicable(ctx, id, "Harvester is not installed");
		return;
	}
	webhook_one(ctx, id, RES_VWEBHOOKS, "validator.harvesterhci.io", "harvester-validator");
	webhook_one(ctx, id, RES_MWEBHOOKS, "mutator.harvesterhci.io", "harvester-mutator");
}
