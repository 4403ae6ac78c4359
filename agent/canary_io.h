/* `hvready-agent canary-io write|read PATH TOKEN`: the I/O the aggregator's
 * canary (docs/canary.md) runs in its pods, from the agent's own image so
 * that nothing new is pulled. */
#pragma once

/* Exit status: 0 written / read back equal, 1 an I/O error or a different
 * token, 2 usage. One line on stdout says which (the canary reads it from the
 * pod's termination message or log); it is also written to
 * /dev/termination-log when that exists. */
int canary_io_main(int argc, char **argv);
