/*
 * The report model: findings and node reports.
 *
 * A finding is one check's verdict on one subject (the node, or one object such
 * as a volume): status, a one-line message, the evidence it was decided on, and
 * what an operator should do. A check never prints; it fills findings.
 */
#pragma once
#include "kv.h"

enum status {
	STATUS_PASS,
	STATUS_WARN,
	STATUS_FAIL,
	STATUS_UNKNOWN,
	STATUS_SKIP,
	_STATUS_MAX,
};

const char *status_name(enum status s);
/* Returns the status, or -EINVAL for an unknown name. */
int status_from_name(const char *name);
/* Severity for "worst of": SKIP < PASS < WARN < UNKNOWN < FAIL
 * (docs/design.md#statuses-and-gates). */
int status_severity(enum status s);
enum status status_worst(enum status a, enum status b);

struct finding {
	char *check; /* catalog ID, e.g. "host.nfs.kernel" */
	enum status status;
	char *message; /* one line */
	struct kv_list evidence;
	char *remediation; /* may be empty, never NULL once set; steps, one a line */
	char *node;	   /* optional */
	char *object;	   /* optional, "Kind/namespace/name" */
};

struct finding_list {
	struct finding *items;
	size_t n, cap;
};

/* Append a finding for check (status UNKNOWN, empty message until set). */
struct finding *finding_list_add(struct finding_list *l, const char *check);
void finding_set(struct finding *f, enum status st, const char *fmt, ...) _printf_(3, 4);
void finding_remedy(struct finding *f, const char *fmt, ...) _printf_(2, 3);
/*
 * A remediation is one or more steps with a blank line between them ("\n\n";
 * docs/protocol.md, docs/decisions.md#remedies-as-numbered-steps). A single
 * "\n" stays inside its step: a line break, as before steps existed (a
 * configuration block to paste). An agent of an earlier version, which writes
 * no blank line, sends one step. Text between a pair of backticks on one line
 * of a step is a command, shown to be copied as is.
 */
#define REMEDY_STEP_SEP "\n\n"
/* The steps of remediation into ret: the parts between blank lines, trimmed
 * of blanks at both ends, empty ones dropped ("" and NULL have none). */
void remedy_steps(const char *remediation, struct strv *ret);
void finding_set_node(struct finding *f, const char *node);
void finding_set_object(struct finding *f, const char *fmt, ...) _printf_(2, 3);
void finding_copy(struct finding *dst, const struct finding *src);
void finding_clear(struct finding *f);
void finding_list_clear(struct finding_list *l);
/* First finding of check in l, or NULL. */
const struct finding *finding_list_find(const struct finding_list *l, const char *check);
/* Worst status among findings of check in l; returns false if there is none. */
bool finding_list_status(const struct finding_list *l, const char *check, enum status *ret);

#define NODE_SCHEMA	  "hvready.node/v1"
#define NODE_SCHEMA_MAJOR 1
#define NODE_SCHEMA_MINOR 0

struct node_report {
	char *node;	/* Kubernetes node name */
	char *hostname; /* the host's own hostname */
	char *agent_version;
	char *boot_id;
	int64_t sent_ns;     /* realtime ns when the agent sent (or wrote) it */
	uint64_t seq;	     /* per-boot sequence number of the agent process */
	uint32_t interval_s; /* the agent's reporting interval, 0 for one-shot `check` */
	uint32_t schema_minor;
	struct finding_list results;
	struct kv_list facts;
};

void node_report_clear(struct node_report *r);
