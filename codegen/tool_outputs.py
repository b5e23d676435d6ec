"""Each tool's share of its package, made once per definition: its module, its entry in each
payload file with the findings of what a format loses, its docs page, and its prompt section.

The back ends are pure functions of the tool and the little they need of its catalog (its source,
the names providers send it under, the providers chosen); this module keeps what they make in the
catalog's record (`catalog/reuse.py`), under one key per tool: all of those inputs and the Python
names the catalog gave the tool. A tool's output is made again only when one of them changed. Payload findings are kept relative to
the tool (a path inside its parameters) and anchored where the tool is now, so a tool that only
moved is not made again and its findings still name its new place.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.normalize import internal_error
from codegen.catalog.reuse import ToolResults, framed, unframed, unpickled
from codegen.diagnostics import CatalogError, Diagnostic
from codegen.package_files import Data
from codegen.payloads.files import Found, payload_diagnostics, sent_names, tool_entries
from codegen.payloads.schema import Finding
from codegen.python.format import format_python
from codegen.python.module_names import class_names
from codegen.python.render import environment as python_templates
from codegen.python.render import render_tool
from codegen.text.docs import render_tool_doc
from codegen.text.environment import environment as text_templates
from codegen.text.prompts import shares_fields, tool_section
from codegen.workers import map_in_workers

# Below this many tools to make for each worker, starting it costs more than it saves.
PARALLEL_FROM = 16


@dataclass(frozen=True)
class ToolOutput:
    """What one tool contributes to its package. Its files' texts are UTF-8 bytes (`Files`):
    those of an output kept in the catalog's record are slices of it, never decoded."""

    module: Data  # tools/<module>.py, formatted
    entries: Mapping[str, Data]  # payload constant → the tool's entry, as its text inside the list
    findings: tuple[Found, ...]  # what the payload formats lose, relative to the tool
    doc: Data  # docs/tools/<module>.md
    section: str  # the tool's section of the prompts (`tool_section`)
    shares: bool  # whether the section says `like <path>` (`shares_fields`): the legend explains it

    def record(self) -> bytes:
        """The output as one value of its catalog's record (`framed`): a pickle of its findings,
        section and legend flag and of its files' names and sizes, then the files' bytes as they
        are (`from_record` reads them as slices)."""
        texts = [self.module, self.doc, *self.entries.values()]
        found = [(fmt, f.path, f.message, f.code) for fmt, f in self.findings]
        sizes = [len(text) for text in texts]
        rest = pickle.dumps((found, self.section, self.shares, list(self.entries), sizes), 5)
        return framed(rest, texts)

    @staticmethod
    def from_record(record: Data) -> ToolOutput | None:
        """The output a record holds; None for one this codegen did not write."""
        view = memoryview(record)
        head = unframed(view)
        if head is None:
            return None
        rest, end = head
        try:
            found, section, shares, names, sizes = unpickled(rest)
        except Exception:  # noqa: BLE001 - not a value this codegen wrote: made again
            return None
        if not (
            isinstance(section, str)
            and isinstance(shares, bool)
            and isinstance(names, list)
            and _all_text(*names)
            and isinstance(sizes, list)
            and len(sizes) == len(names) + 2
            and all(type(n) is int and n >= 0 for n in sizes)
            and end + sum(sizes) == len(view)
            and isinstance(found, list)
        ):
            return None
        findings: list[Found] = []
        for item in found:
            if not (isinstance(item, tuple) and len(item) == 4):
                return None
            fmt, path, message, code = item
            if not (
                _all_text(fmt, message, code)
                and isinstance(path, tuple)
                and all(isinstance(part, str | int) for part in path)
            ):
                return None
            findings.append((fmt, Finding(path, message, code)))
        texts = []
        for n in sizes:
            texts.append(view[end : end + n])
            end += n
        module, doc, *entries = texts
        return ToolOutput(
            module, dict(zip(names, entries, strict=True)), tuple(findings), doc, section, shares
        )


def _all_text(*values: object) -> bool:
    return all(isinstance(value, str) for value in values)


@dataclass(frozen=True)
class _Job:
    """All that making a tool's output reads: it crosses to a worker process."""

    source: str
    package: str
    tool: Tool
    sent: dict[str, str]
    providers: tuple[str, ...]

    @cached_property
    def entry(self) -> str:
        """The output's key in its catalog's record (whose own key holds the source and the
        generator)."""
        tool = self.tool
        return "\0".join(
            (
                tool.sha256,
                tool.module,
                class_names(tool)[0],  # the stem of every name the module defines
                repr(self.sent),  # names by provider, in provider order (`sent_names`)
                ",".join(self.providers),
            )
        )


def tool_outputs(catalog: Catalog, results: ToolResults) -> list[tuple[str, ToolOutput]]:
    """Each tool's output and its key in the catalog's record, in catalog order: from the
    `results` of the last build, or made now (in parallel when many are missing). Raise
    CatalogError with every tool codegen itself failed on."""
    jobs = [
        _Job(catalog.source, catalog.name, tool, sent_names(catalog, tool), catalog.providers)
        for tool in catalog.tools
    ]
    found = [stored_output(results, job.entry) for job in jobs]
    missing = [job for job, output in zip(jobs, found, strict=True) if output is None]
    made = dict(zip((job.entry for job in missing), _make_all(missing), strict=True))
    failures = [d for d in made.values() if isinstance(d, Diagnostic)]
    if failures:
        raise CatalogError(failures)
    outputs: list[tuple[str, ToolOutput]] = []
    for job, output in zip(jobs, found, strict=True):
        if output is None:
            new = made[job.entry]
            assert isinstance(new, ToolOutput)  # failures were raised above
            results.put_bytes("output", (job.entry,), new.record())
            output = new
        outputs.append((job.entry, output))
    return outputs


def stored_output(results: ToolResults, entry: str) -> ToolOutput | None:
    """A tool's output kept in its catalog's record under `entry`, if it is there whole."""
    output: ToolOutput | None = results.get(
        "output", entry, make=ToolOutput.from_record, pickled=False
    )
    return output


def findings(catalog: Catalog, outputs: list[ToolOutput]) -> list[Diagnostic]:
    """The payload findings of every tool, where each tool is now."""
    return [
        d
        for tool, output in zip(catalog.tools, outputs, strict=True)
        for d in payload_diagnostics(catalog.source, tool, list(output.findings))
    ]


def _make_all(jobs: list[_Job]) -> list[ToolOutput | Diagnostic]:
    if len(jobs) >= 2 * PARALLEL_FROM:
        # Compiled once here, before the workers are forked, instead of once in each.
        for name in ("tool_module.py.jinja", "coerce.jinja"):
            python_templates().get_template(name)
        text_templates().get_template("docs/tool.md.jinja")
    return map_in_workers(_make, jobs, least=PARALLEL_FROM, pickled=True)


def _make(job: _Job) -> ToolOutput | Diagnostic:
    """A tool's output, or the report of codegen's own failure on it (a value: it crosses
    processes)."""
    tool = job.tool
    try:
        # Rendering parses the module's body (for the names it imports): its syntax check.
        path = f"{job.package}/tools/{tool.module}.py"
        module = format_python(path, render_tool(job.source, tool), parsed=True)
        entries, found = tool_entries(job.source, tool, job.sent, job.providers)
        doc = render_tool_doc(job.source, tool, list(job.sent.items()))
        section, shares = tool_section(tool), shares_fields(tool)
    except CatalogError as exc:
        return exc.diagnostics[0]
    except Exception as exc:  # noqa: BLE001 - a bug of codegen's: report it, with the place
        return Diagnostic(job.source, tool.line, tool.path, internal_error(exc))
    texts = {name: text.encode("utf-8") for name, text in entries.items()}
    return ToolOutput(
        module.encode("utf-8"), texts, tuple(found), doc.encode("utf-8"), section, shares
    )
