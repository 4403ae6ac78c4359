/*
 * containerd's configuration as containerd itself loads it: the main
 * config.toml, then every file its `imports` name (globs expanded, in order,
 * breadth first, each file once), merged the way the config's version is
 * merged:
 *
 *  - version 3 (containerd 2.x): plugin settings merge key by key, so an
 *    imported drop-in can set one option;
 *  - version 1 and 2 (containerd 1.x): an imported file that has a plugin's
 *    section replaces that whole section.
 *
 * containerd 2.x migrates every file older than version 3 before it merges it
 * (a drop-in without `version` is version 1): the CRI runtime options of
 * [plugins."io.containerd.grpc.v1.cri"] (or [plugins.cri]) move to
 * [plugins."io.containerd.cri.v1.runtime"], unless the file sets them there too.
 * So under a version 3 main file, an imported v1/v2 drop-in's old-style option counts.
 *
 * All paths are host paths, read under the host root.
 */
#pragma once
#include "hostroot.h"
#include "toml.h"

/* At most this many files (main + imports) and this many bytes each. */
#define CONTAINERD_MAX_FILES	 32
#define CONTAINERD_MAX_FILE_SIZE (1u << 20)

struct containerd_file {
	char *path; /* host path, absolute */
	struct toml_table *root;
	int64_t version; /* its own `version`; 0 when absent */
};

struct containerd_config {
	struct containerd_file *files; /* merge order; files[0] is the main file */
	size_t n, cap;
	int64_t version;   /* the main file's `version`; 1 when absent */
	struct strv notes; /* e.g. import patterns that matched nothing */
};

/* Load path (a host path) and its imports. Returns 0; -ENOENT when path does not
 * exist; other -errno or -EINVAL with a one-line "FILE:LINE: reason" in err. */
int containerd_config_load(const struct hostroot *root, const char *path,
			   struct containerd_config *ret, char *err, size_t errlen);
/* Same, from memory, for a main file without imports (tests, fuzzing). */
int containerd_config_parse(const uint8_t *buf, size_t len, const char *name,
			    struct containerd_config *ret, char *err, size_t errlen);
void containerd_config_clear(struct containerd_config *c);

/* The plugin table that holds the CRI runtime options in this config version:
 * "io.containerd.cri.v1.runtime" (3), "io.containerd.grpc.v1.cri" (2), "cri" (1). */
const char *containerd_cri_runtime_plugin(int64_t version);

struct containerd_setting {
	const struct toml_value *value; /* NULL: not set */
	const char *file;		/* the file it comes from (NULL if not set) */
	unsigned line;
};

/* The effective value of plugins.<plugin>.<key> after the merge. */
void containerd_config_plugin_key(const struct containerd_config *c, const char *plugin,
				  const char *key, struct containerd_setting *ret);

/* Every place key appears in any file, as "FILE:LINE: dotted.path" (at most max). */
void containerd_config_find_key(const struct containerd_config *c, const char *key,
				struct strv *ret, size_t max);

/* The places of key (as containerd_config_find_key() gives them) that containerd does
 * not read as plugins.<plugin>.<key>: another table, or an old table it does not
 * migrate. */
void containerd_config_find_ignored(const struct containerd_config *c, const char *plugin,
				    const char *key, struct strv *ret, size_t max);
