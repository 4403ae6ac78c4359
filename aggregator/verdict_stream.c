#include "verdict_stream.h"

#include <string.h>

#include "render_json.h"
#include "render_verdict.h"

#define JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
#define STREAM_BUF (64u << 10)

/* Small writes are gathered: a verdict is hundreds of thousands of them. */
struct ws {
	const struct verdict_stream_out *out;
	char buf[STREAM_BUF];
	size_t len;
};

static void ws_flush(struct ws *w)
{
	if (w->len)
		w->out->write(w->out->ctx, w->buf, w->len);
	w->len = 0;
}

static void ws_put(struct ws *w, const char *p, size_t n)
{
	if (w->len + n > sizeof(w->buf)) {
		ws_flush(w);
		if (n > sizeof(w->buf)) {
			w->out->write(w->out->ctx, p, n);
			return;
		}
	}
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void ws_lit(struct ws *w, const char *s)
{
	ws_put(w, s, strlen(s));
}

/* A JSON string as json-c writes it (json_escape_str): \b \n \r \t \f \" \\
 * by name, other control characters as \u00xx, '/' as is (NOSLASHESCAPE). */
static void ws_string(struct ws *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	ws_put(w, "\"", 1);
	size_t start = 0, i = 0;
	for (; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[7];
		size_t n = 2;
		if (c >= ' ' && c != '"' && c != '\\')
			continue;
		esc[0] = '\\';
		switch (c) {
		case '\b':
			esc[1] = 'b';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '"':
		case '\\':
			esc[1] = (char)c;
			break;
		default:
			memcpy(esc + 1, "u00", 3);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			n = 6;
			break;
		}
		ws_put(w, s + start, i - start);
		ws_put(w, esc, n);
		start = i + 1;
	}
	ws_put(w, s + start, i - start);
	ws_put(w, "\"", 1);
}

static void ws_json(struct ws *w, json_object *o)
{
	size_t n;
	const char *s = json_object_to_json_string_length(o, JSON_FLAGS, &n);
	ws_put(w, s, n);
	json_object_put(o);
}

char *verdict_stream_fragment(const struct finding *f, size_t *ret_len)
{
	struct finding bare = *f;
	bare.node = bare.object = NULL;
	json_object *o = render_finding_json(&bare);
	size_t n;
	const char *s = json_object_to_json_string_length(o, JSON_FLAGS, &n);
	char *frag = xstrndup(s, n - 1); /* without the closing brace */
	json_object_put(o);
	*ret_len = n - 1;
	return frag;
}

static void ws_finding(struct ws *w, const struct verdict *v, size_t i)
{
	const struct finding *f = &v->findings.items[i];
	size_t n;
	const char *frag =
	    i < v->n_borrowed && w->out->fragment ? w->out->fragment(w->out->ctx, i, &n) : NULL;
	if (!frag) {
		ws_json(w, verdict_finding_json(v, i));
		return;
	}
	ws_put(w, frag, n);
	if (f->node) {
		ws_lit(w, ",\"node\":");
		ws_string(w, f->node);
	}
	if (f->object) {
		ws_lit(w, ",\"object\":");
		ws_string(w, f->object);
	}
	json_object *wv = verdict_waiver_json(v, i);
	if (wv) {
		ws_lit(w, ",\"waiver\":");
		ws_json(w, wv);
	}
	ws_put(w, "}", 1);
}

void verdict_stream_json(const struct verdict *v, const struct verdict_stream_out *out)
{
	struct ws *w = xmalloc(sizeof(*w));
	w->out = out;
	w->len = 0;
	json_object *head = verdict_head_json(v);
	size_t n;
	const char *s = json_object_to_json_string_length(head, JSON_FLAGS, &n);
	ws_put(w, s, n - 1); /* continued below: without the closing brace */
	json_object_put(head);
	ws_lit(w, ",\"gates\":{");
	for (int g = 0; g < _GATE_MAX; g++) {
		if (g)
			ws_put(w, ",", 1);
		ws_string(w, gate_name(g));
		ws_lit(w, ":{\"status\":");
		ws_string(w, status_name(v->gates[g].status));
		ws_lit(w, ",\"blockers\":[");
		for (size_t i = 0; i < v->gates[g].n_blockers; i++) {
			if (i)
				ws_put(w, ",", 1);
			ws_finding(w, v, v->gates[g].blockers[i]);
		}
		ws_lit(w, "]");
		/* the canary's word on the gate (docs/outputs.md) */
		char *proof = render_verdict_canary_proof(v, g);
		if (proof) {
			ws_lit(w, ",\"canary\":");
			ws_string(w, proof);
			free(proof);
		}
		ws_lit(w, "}");
	}
	ws_lit(w, "},\"findings\":[");
	for (size_t i = 0; i < v->findings.n; i++) {
		if (i)
			ws_put(w, ",", 1);
		ws_finding(w, v, i);
	}
	ws_lit(w, "],\"groups\":");
	ws_json(w, verdict_groups_json(v));
	ws_lit(w, ",\"nodes\":[");
	for (size_t i = 0; i < v->n_nodes; i++) {
		if (i)
			ws_put(w, ",", 1);
		ws_json(w, verdict_node_json(&v->nodes[i]));
	}
	ws_lit(w, "],\"vms\":[");
	for (size_t i = 0; i < v->vms.n; i++) {
		if (i)
			ws_put(w, ",", 1);
		ws_json(w, verdict_vm_json(&v->vms.items[i]));
	}
	ws_lit(w, "]}");
	ws_flush(w);
	free(w);
}
