/* The agent's config file (--config, /etc/hvready/agent.yaml): YAML, every key
 * optional; command-line options given after it win. See docs/configuration.md. */
#pragma once
#include "agent.h"

/* Returns 0, or -EINVAL/-errno with a one-line reason in err (naming the file). */
int config_load(const char *path, struct agent_opts *o, char *err, size_t errlen);
/* Parse a YAML document from memory (for the fuzzer and tests). */
int config_parse(const uint8_t *buf, size_t len, const char *name, struct agent_opts *o, char *err,
		 size_t errlen);
