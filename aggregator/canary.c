/* The canary's run: its steps in order, then the cleanup (docs/canary.md). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "canary.h"
#include "log.h"

/* The cleanup's share of --timeout: a quarter, at least 5 s (never more
 * than the whole), at most 60 s. */
static int64_t cleanup_budget_ns(int64_t timeout_ns)
{
	int64_t b = timeout_ns / 4;
	if (b < 5000000000LL)
		b = 5000000000LL;
	if (b > 60000000000LL)
		b = 60000000000LL;
	return b < timeout_ns / 2 ? b : timeout_ns / 2;
}

static void on_signal(int sig)
{
	canary_signal = sig;
}

static void catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

const struct canary_check canary_checks[] = {
#define CHECK(id, prog, runner, ...) CHECK_ROW_##prog(id, runner)
#define CHECK_ROW_HOST(id, runner)
#define CHECK_ROW_CLUSTER(id, runner)
#define CHECK_ROW_API(id, runner)
#define CHECK_ROW_CANARY(id, runner) {id, runner},
#include "checks.def"
#undef CHECK
};
const size_t canary_checks_len = ELEMENTSOF(canary_checks);

#define CLEANUP_ID "canary.cleanup"

int canary_run(struct canary *c)
{
	const struct canary_opts *o = c->o;
	unsigned char rb[8];
	if (getrandom(rb, sizeof(rb), 0) != (ssize_t)sizeof(rb))
		fatal("getrandom");
	for (size_t i = 0; i < sizeof(rb); i++)
		sprintf(c->run_id + 2 * i, "%02x", rb[i]);
	c->start_ns = util_now_mono_ns();
	c->started_at_ns = util_now_realtime_ns();
	int64_t timeout_ns = o->timeout_ms * 1000000;
	/* 0.5 s for the report itself, and the time to write it to a ConfigMap */
	c->end_ns =
	    c->start_ns + timeout_ns - 500000000LL - (o->result_cm ? CANARY_RESULT_WRITE_NS : 0);
	c->steps_end_ns = o->cleanup_only ? c->start_ns : c->end_ns - cleanup_budget_ns(timeout_ns);
	c->diag_end_ns = c->steps_end_ns + (c->end_ns - c->steps_end_ns) / 3;
	catch_signals();

	const struct canary_check *cleanup = NULL;
	for (size_t s = 0; s < canary_checks_len; s++)
		if (streq(canary_checks[s].id, CLEANUP_ID))
			cleanup = &canary_checks[s];
	for (size_t s = 0; s < canary_checks_len; s++) {
		if (&canary_checks[s] == cleanup || o->cleanup_only || !(o->steps & (1u << s)))
			continue;
		struct finding *f = finding_list_add(&c->findings, canary_checks[s].id);
		kv_add_str(&f->evidence, "run", c->run_id);
		kv_add_str(&f->evidence, "namespace", o->ns);
		if (canary_signal)
			finding_set(f, STATUS_UNKNOWN, "not run: interrupted by signal %d",
				    (int)canary_signal);
		else
			canary_checks[s].run(c, f);
		if (c->refused)
			break;
	}
	if (!cleanup)
		abort(); /* the registry has the row */
	struct finding *cf = finding_list_add(&c->findings, cleanup->id);
	cleanup->run(c, cf);
	c->ended_at_ns = util_now_realtime_ns();

	if (c->refused)
		return 2;
	enum status worst = STATUS_SKIP;
	for (size_t i = 0; i < c->findings.n; i++)
		worst = status_worst(worst, c->findings.items[i].status);
	return worst == STATUS_FAIL ? 1 : worst == STATUS_UNKNOWN ? 3 : 0;
}

int canary_parse_duration(const char *s, int64_t *ret_ms)
{
	char *end = NULL;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno || end == s || n < 1)
		return -EINVAL;
	long long mult = 1000;
	if (streq(end, "") || streq(end, "s"))
		mult = 1000;
	else if (streq(end, "m"))
		mult = 60000;
	else if (streq(end, "h"))
		mult = 3600000;
	else
		return -EINVAL;
	if (n > 86400000LL / mult)
		return -ERANGE;
	*ret_ms = n * mult;
	return 0;
}

int canary_parse_steps(const char *arg, unsigned *ret, char *err, size_t errlen)
{
	struct strv v = {0}, names = {0};
	strv_split(&v, arg, ",");
	for (size_t s = 0; s < canary_checks_len; s++)
		if (!streq(canary_checks[s].id, CLEANUP_ID))
			strv_add(&names, canary_checks[s].id + strlen("canary."));
	_cleanup_free_ char *known = strv_join(&names, ", ");
	unsigned steps = 0;
	int r = 0;
	for (size_t i = 0; i < v.n && r == 0; i++) {
		_cleanup_free_ char *id = xasprintf("canary.%s", v.items[i]);
		/* "vm" names canary.vm.start: the first word of an ID is its step too */
		_cleanup_free_ char *prefix = xasprintf("%s.", id);
		size_t s = 0;
		while (s < canary_checks_len && !streq(canary_checks[s].id, id) &&
		       !startswith(canary_checks[s].id, prefix))
			s++;
		if (s == canary_checks_len || streq(id, CLEANUP_ID)) {
			snprintf(err, errlen, "--steps: \"%s\" is not a step: %s", v.items[i],
				 known);
			r = -EINVAL;
		} else
			steps |= 1u << s;
	}
	if (r == 0 && !steps) {
		snprintf(err, errlen, "--steps: no step given: %s", known);
		r = -EINVAL;
	}
	strv_clear(&v);
	strv_clear(&names);
	*ret = steps;
	return r;
}
