"""JUnit XML, the test report CI systems read (GitHub Actions' test reporters, GitLab, Jenkins).

One ``<testsuite>`` element as the Apache Ant JUnit schema has it (``JUnit.xsd``, the one
Jenkins reads; ``tests/data/junit/`` holds a copy the tests validate against): ``name``,
``timestamp`` (ISO 8601 without a zone), ``hostname``, ``tests``, ``failures``, ``errors``,
``time``; then ``<properties>``, one ``<testcase name classname time>`` per case, with a
``<failure message type>`` whose text gives the detail, and ``<system-out>`` / ``<system-err>``.
Every text is made visible (:func:`ragcov_tui.shared.safe_text.visible`: XML 1.0 has no control characters)
and escaped by :mod:`xml.etree`.
"""

from __future__ import annotations

import datetime as dt
import socket
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ragcov_tui.shared.safe_text import visible, visible_line


@dataclass(frozen=True)
class TestCase:
    """One check: passed when ``failure`` is None, else failed with ``failure`` (one line) and ``detail``."""

    __test__ = False  # not a pytest test class despite the name

    name: str
    classname: str
    failure: str | None = None
    failure_type: str = "gate"
    detail: str = ""


def junit_xml(
    suite: str,
    cases: Sequence[TestCase],
    *,
    properties: Mapping[str, object] | None = None,
    seconds: float = 0.0,
    timestamp: dt.datetime | None = None,
) -> str:
    """The JUnit XML document of one test suite named ``suite`` (see the module docstring)."""
    when = (timestamp or dt.datetime.now(dt.UTC)).replace(microsecond=0, tzinfo=None)
    root = ET.Element(
        "testsuite",
        {
            "name": visible_line(suite),
            "timestamp": when.isoformat(),
            "hostname": socket.gethostname() or "localhost",
            "tests": str(len(cases)),
            "failures": str(sum(1 for c in cases if c.failure is not None)),
            "errors": "0",
            "skipped": "0",
            "time": f"{max(seconds, 0.0):.3f}",
        },
    )
    props = ET.SubElement(root, "properties")
    for name, value in (properties or {}).items():
        if value is not None:
            ET.SubElement(props, "property", {"name": visible_line(name), "value": visible_line(str(value))})
    for case in cases:
        element = ET.SubElement(
            root, "testcase", {"name": visible_line(case.name), "classname": visible_line(case.classname), "time": "0"}
        )
        if case.failure is not None:
            failure = ET.SubElement(
                element, "failure", {"message": visible_line(case.failure), "type": visible_line(case.failure_type)}
            )
            failure.text = visible(case.detail or case.failure)
    ET.SubElement(root, "system-out").text = ""
    ET.SubElement(root, "system-err").text = ""
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
