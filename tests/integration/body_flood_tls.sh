#!/usr/bin/env bash
# The body flood of body_flood.sh over TLS (docs/robustness.md): 800
# connections that complete their handshake and hold bodies, plus 300
# handshakes left half-done, under the same address-space limit.
set -euo pipefail
: "${HVREADY_SRC:?}"
FLOOD_TLS=1 exec bash "$HVREADY_SRC/tests/integration/body_flood.sh"
