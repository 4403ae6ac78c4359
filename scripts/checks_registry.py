"""The check registry, common/checks.def, as the Python tools read it without a
build: the tests' checkers and fakes and the bench need the host checks' IDs
in registry order (what `hvready-agent list-checks` prints), where no binary
is at hand or the registry is what is being checked.

    sys.path.insert(0, os.path.join(SRC, "scripts"))
    from checks_registry import host_checks
"""
import os
import re

_SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def host_checks():
    """The IDs of the HOST rows of common/checks.def, in its order."""
    with open(os.path.join(_SRC, "common", "checks.def")) as f:
        return re.findall(r'^CHECK\("(host\.[^"]+)", HOST,', f.read(), re.M)
