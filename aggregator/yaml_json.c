#include "yaml_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "util.h"

struct anchor {
	char *name;
	json_object *node;
};

struct frame {
	json_object *container; /* object or array */
	char *key;		/* pending key of a mapping, or NULL */
};

struct builder {
	struct frame stack[YAML_JSON_MAX_DEPTH];
	int depth;
	size_t nodes;
	json_object *root;
	bool have_root;
	struct anchor *anchors;
	size_t n_anchors, cap_anchors;
	enum yaml_json_schema schema;
};

static void builder_free(struct builder *b)
{
	/* Containers still on the stack were never attached to a parent. */
	for (int i = 0; i < b->depth; i++) {
		free(b->stack[i].key);
		json_object_put(b->stack[i].container);
	}
	for (size_t i = 0; i < b->n_anchors; i++) {
		free(b->anchors[i].name);
		json_object_put(b->anchors[i].node);
	}
	free(b->anchors);
}

static void remember(struct builder *b, const yaml_char_t *anchor, json_object *node)
{
	if (!anchor)
		return;
	util_grow((void **)&b->anchors, &b->cap_anchors, b->n_anchors + 1, sizeof(struct anchor));
	b->anchors[b->n_anchors++] =
	    (struct anchor){xstrdup((const char *)anchor), json_object_get(node)};
}

static json_object *lookup(struct builder *b, const yaml_char_t *alias)
{
	for (size_t i = b->n_anchors; i-- > 0;)
		if (streq(b->anchors[i].name, (const char *)alias))
			return b->anchors[i].node;
	return NULL;
}

static bool plain_int(const char *s, int64_t *ret)
{
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (!*p)
		return false;
	for (const char *q = p; *q; q++)
		if (*q < '0' || *q > '9')
			return false;
	return util_parse_i64(s, ret) == 0;
}

static json_object *scalar(const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	int64_t i;
	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return json_object_new_string_len(v, (int)ev->data.scalar.length);
	if (!*v || streq(v, "~") || streq(v, "null") || streq(v, "Null") || streq(v, "NULL"))
		return NULL;
	if (streq(v, "true") || streq(v, "True") || streq(v, "TRUE"))
		return json_object_new_boolean(1);
	if (streq(v, "false") || streq(v, "False") || streq(v, "FALSE"))
		return json_object_new_boolean(0);
	if (plain_int(v, &i))
		return json_object_new_int64(i);
	return json_object_new_string_len(v, (int)ev->data.scalar.length);
}

/* yaml.v2's merge key (decode.go merge()): a mapping's entries are set on the
 * mapping in order, so keys after "<<" override them; of a sequence of
 * mappings the first wins (merged last to first). */
static void merge_key(json_object *dst, json_object *src)
{
	if (json_object_is_type(src, json_type_array)) {
		for (size_t i = json_object_array_length(src); i-- > 0;)
			merge_key(dst, json_object_array_get_idx(src, i));
		return;
	}
	if (!json_object_is_type(src, json_type_object))
		return;
	json_object_object_foreach(src, k, v)
	{
		json_object_object_add(dst, k, json_object_get(v));
	}
}

/* Attach node (a reference is taken over) to the current container. */
static int attach(struct builder *b, json_object *node, const char *keytext, char *err,
		  size_t errlen)
{
	if (b->depth == 0) {
		if (!b->have_root) {
			b->root = node;
			b->have_root = true;
		} else {
			json_object_put(node);
		}
		return 0;
	}
	struct frame *f = &b->stack[b->depth - 1];
	if (json_object_is_type(f->container, json_type_array)) {
		json_object_array_add(f->container, node);
		return 0;
	}
	if (!f->key) {
		/* A mapping key: scalars only (complex keys do not occur in values). */
		if (!keytext) {
			json_object_put(node);
			snprintf(err, errlen, "unsupported non-scalar mapping key");
			return -EINVAL;
		}
		f->key = xstrdup(keytext);
		json_object_put(node);
		return 0;
	}
	if (b->schema == YAML_JSON_HELM && streq(f->key, "<<") &&
	    (json_object_is_type(node, json_type_object) ||
	     json_object_is_type(node, json_type_array))) {
		merge_key(f->container, node);
		json_object_put(node);
	} else {
		json_object_object_add(f->container, f->key, node);
	}
	free(f->key);
	f->key = NULL;
	return 0;
}

/* Node count and height (a scalar is 0) of a finished subtree; the builder keeps
 * every tree within YAML_JSON_MAX_DEPTH, so the recursion is bounded. */
static void measure(json_object *o, size_t *nodes, int *height)
{
	int h = 0;
	(*nodes)++;
	if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v)
		{
			int ch = 0;
			(void)k;
			measure(v, nodes, &ch);
			h = ch + 1 > h ? ch + 1 : h;
		}
		if (h == 0)
			h = 1;
	} else if (json_object_is_type(o, json_type_array)) {
		h = 1;
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			int ch = 0;
			measure(json_object_array_get_idx(o, i), nodes, &ch);
			h = ch + 1 > h ? ch + 1 : h;
		}
	}
	*height = h;
}

/*
 * An alias becomes a copy of its anchor's node: consumers then walk a tree,
 * never a graph. Copies count against the node budget and the depth limit, so
 * "billion laughs" inputs and aliases of an enclosing node are refused.
 */
static int alias(struct builder *b, const yaml_event_t *ev, char *err, size_t errlen)
{
	const char *name = (const char *)ev->data.alias.anchor;
	json_object *n = lookup(b, ev->data.alias.anchor);
	for (int i = 0; n && i < b->depth; i++)
		if (b->stack[i].container == n) {
			snprintf(err, errlen, "alias *%s refers to a node that contains it", name);
			return -EINVAL;
		}
	size_t nodes = 0;
	int height = 0;
	if (n)
		measure(n, &nodes, &height);
	b->nodes += nodes;
	if (b->nodes > YAML_JSON_MAX_NODES || b->depth + height > YAML_JSON_MAX_DEPTH) {
		snprintf(err, errlen, "alias *%s expands beyond %d nodes or %d levels", name,
			 YAML_JSON_MAX_NODES, YAML_JSON_MAX_DEPTH);
		return -EINVAL;
	}
	json_object *copy = NULL;
	if (n && json_object_deep_copy(n, &copy, NULL) < 0) {
		snprintf(err, errlen, "cannot copy alias *%s", name);
		return -ENOMEM;
	}
	/* An unknown alias reads as null, as a dangling reference would. */
	const char *keytext = copy && json_object_is_type(copy, json_type_string)
				  ? json_object_get_string(copy)
				  : NULL;
	return attach(b, copy, keytext, err, errlen);
}

static int push(struct builder *b, json_object *container, const yaml_char_t *anchor, char *err,
		size_t errlen)
{
	if (b->depth >= YAML_JSON_MAX_DEPTH || ++b->nodes > YAML_JSON_MAX_NODES) {
		json_object_put(container);
		snprintf(err, errlen, "nesting deeper than %d levels or more than %d nodes",
			 YAML_JSON_MAX_DEPTH, YAML_JSON_MAX_NODES);
		return -EINVAL;
	}
	remember(b, anchor, container);
	b->stack[b->depth++] = (struct frame){container, NULL};
	return 0;
}

static int pop(struct builder *b, char *err, size_t errlen)
{
	struct frame f = b->stack[--b->depth];
	free(f.key);
	return attach(b, f.container, NULL, err, errlen);
}

static int handle(struct builder *b, const yaml_event_t *ev, char *err, size_t errlen)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT: {
		if (++b->nodes > YAML_JSON_MAX_NODES) {
			snprintf(err, errlen, "more than %d nodes", YAML_JSON_MAX_NODES);
			return -EINVAL;
		}
		const char *text = (const char *)ev->data.scalar.value;
		bool plain =
		    ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag;
		/* An explicit !!str decides the type in both schemas (YAML 1.2's
		 * core schema and yaml.v2 alike): `mode: !!str 0755` is text. */
		if (ev->data.scalar.tag && streq((const char *)ev->data.scalar.tag, YAML_STR_TAG)) {
			json_object *s =
			    json_object_new_string_len(text, (int)ev->data.scalar.length);
			remember(b, ev->data.scalar.anchor, s);
			return attach(b, s, text, err, errlen);
		}
		if (b->schema != YAML_JSON_HELM || !plain) {
			json_object *s = scalar(ev);
			remember(b, ev->data.scalar.anchor, s);
			return attach(b, s, text, err, errlen);
		}
		json_object *s = NULL;
		if (yaml_json_v2_scalar(text, &s, err, errlen) < 0)
			return -EINVAL;
		remember(b, ev->data.scalar.anchor, s);
		_cleanup_free_ char *key = yaml_json_v2_key(text);
		return attach(b, s, key, err, errlen);
	}
	case YAML_ALIAS_EVENT:
		return alias(b, ev, err, errlen);
	case YAML_MAPPING_START_EVENT:
		return push(b, json_object_new_object(), ev->data.mapping_start.anchor, err,
			    errlen);
	case YAML_SEQUENCE_START_EVENT:
		return push(b, json_object_new_array(), ev->data.sequence_start.anchor, err,
			    errlen);
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		return pop(b, err, errlen);
	default:
		return 0;
	}
}

int yaml_json_parse(const uint8_t *buf, size_t len, json_object **ret, char *err, size_t errlen)
{
	return yaml_json_parse_schema(buf, len, YAML_JSON_CORE, ret, err, errlen);
}

int yaml_json_parse_schema(const uint8_t *buf, size_t len, enum yaml_json_schema schema,
			   json_object **ret, char *err, size_t errlen)
{
	yaml_parser_t parser;
	struct builder b = {.schema = schema};
	int r = 0;
	if (!yaml_parser_initialize(&parser)) {
		snprintf(err, errlen, "cannot initialise the YAML parser");
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&parser, buf, len);
	for (;;) {
		yaml_event_t ev;
		if (!yaml_parser_parse(&parser, &ev)) {
			snprintf(err, errlen, "YAML error at line %zu: %s",
				 (size_t)parser.problem_mark.line + 1,
				 parser.problem ? parser.problem : "syntax error");
			r = -EINVAL;
			break;
		}
		bool done = ev.type == YAML_STREAM_END_EVENT || ev.type == YAML_DOCUMENT_END_EVENT;
		r = handle(&b, &ev, err, errlen);
		yaml_event_delete(&ev);
		if (r < 0 || done)
			break;
	}
	yaml_parser_delete(&parser);
	if (r == 0) {
		*ret = b.root;
		b.root = NULL;
	} else {
		json_object_put(b.root);
	}
	builder_free(&b);
	return r;
}
