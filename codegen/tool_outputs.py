"""Each tool's share of its package, made once per definition: its module, its entry in each
payload file with the findings of what a format loses, its docs page, and its prompt section.

The back ends are pure functions of the tool and the little they need of its catalog (its source,
the names providers send it under, the providers chosen): a tool's `OutputJob` holds all of them,
and its `repr` names them (the tool by its definition's digest and the Python names the catalog
gave it), so that the build's memo (`codegen.memo`) makes a tool's output again only when one of
them changed. Payload findings are kept relative to the tool (a path inside its parameters) and
anchored where the tool is now, so a tool that only moved is not made again and its findings
still name its new place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from codegen.catalog.ir import Catalog, Tool
from codegen.catalog.normalize import internal_error
from codegen.catalog.relative import Relative, anchored, relative
from codegen.diagnostics import CatalogError, Diagnostic
from codegen.package_files import Data
from codegen.payloads.files import Found, payload_diagnostics, sent_names, tool_entries
from codegen.python.format import format_python
from codegen.python.namespace import PackageNames, ToolNames
from codegen.python.render import render_tool
from codegen.text.docs import render_tool_doc
from codegen.text.prompts import shares_fields, tool_section
from codegen.workers import Mapper, map_in_workers

# Below this many tools to make for each worker, starting it costs more than it saves.
PARALLEL_FROM = 16


@dataclass(frozen=True)
class ToolOutput:
    """What one tool contributes to its package; its files' texts as UTF-8 bytes (`Files`)."""

    module: Data  # tools/<module>.py, formatted
    entries: Mapping[str, Data]  # payload constant → the tool's entry, as its text inside the list
    findings: tuple[Found, ...]  # what the payload formats lose, relative to the tool
    doc: Data  # docs/tools/<module>.md
    section: str  # the tool's section of the prompts (`tool_section`)
    shares: bool  # whether the section says `like <path>` (`shares_fields`): the legend explains it


@dataclass(frozen=True)
class OutputJob:
    """All that making a tool's output reads: it crosses to a worker process."""

    source: str
    package: str
    tool: Tool
    names: ToolNames  # its names at the package's top: its module and its classes' stem
    sent: dict[str, str]
    providers: tuple[str, ...]

    def __repr__(self) -> str:
        # All that `make_output` reads, for a memo's key (`workers.Mapper`): the tool by its
        # definition's digest and the names the catalog gave it (its module and the stem of
        # every name its module defines, `module_names`).
        names = (self.names.module, self.names.stem)
        return repr((self.source, self.package, self.tool.sha256, names, self.sent, self.providers))


def output_jobs(catalog: Catalog, names: PackageNames) -> list[OutputJob]:
    """What making each tool's output reads, in catalog order; `names` are the catalog's."""
    return [
        OutputJob(
            catalog.source,
            catalog.name,
            tool,
            names[tool],
            sent_names(catalog, tool),
            catalog.providers,
        )
        for tool in catalog.tools
    ]


def tool_outputs(jobs: list[OutputJob], each: Mapper = map_in_workers) -> list[ToolOutput]:
    """Each tool's output, in order, made by `each` (in parallel when many are made). Raise
    CatalogError with every tool codegen itself failed on."""
    made = each(make_output, jobs, least=PARALLEL_FROM, pickled=True)
    failures = [
        failure
        for job, output in zip(jobs, made, strict=True)
        if not isinstance(output, ToolOutput)
        for failure in anchored(job.source, output, job.tool.line, job.tool.path)
    ]
    if failures:
        raise CatalogError(failures)
    return [output for output in made if isinstance(output, ToolOutput)]


def findings(catalog: Catalog, outputs: list[ToolOutput]) -> list[Diagnostic]:
    """The payload findings of every tool, where each tool is now."""
    return [
        d
        for tool, output in zip(catalog.tools, outputs, strict=True)
        for d in payload_diagnostics(catalog.source, tool, list(output.findings))
    ]


def make_output(job: OutputJob) -> ToolOutput | list[Relative]:
    """A tool's output, or the report of codegen's own failure on it (a value: it crosses
    processes), relative to the tool: the memo's key leaves out where the tool is, so a failure
    kept is placed where the tool is now (`tool_outputs`)."""
    tool = job.tool
    try:
        # Rendering parses the module's body (for the names it imports): its syntax check.
        path = f"{job.package}/tools/{job.names.module}.py"
        module = format_python(path, render_tool(job.source, tool, job.names), parsed=True)
        entries, found = tool_entries(job.source, tool, job.sent, job.providers)
        doc = render_tool_doc(job.source, tool, list(job.sent.items()), job.names)
        section, shares = tool_section(tool), shares_fields(tool)
    except CatalogError as exc:
        return relative(exc.diagnostics[:1], tool.line, tool.path)
    except Exception as exc:  # noqa: BLE001 - a bug of codegen's: report it, with the place
        failure = Diagnostic(job.source, tool.line, tool.path, internal_error(exc))
        return relative([failure], tool.line, tool.path)
    texts = {name: text.encode("utf-8") for name, text in entries.items()}
    return ToolOutput(
        module.encode("utf-8"), texts, tuple(found), doc.encode("utf-8"), section, shares
    )
