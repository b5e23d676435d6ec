"""The `codegen` command: build, validate, parse. Exit 0 ok, 1 build or check failure, 2 usage."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import importlib
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any, NoReturn

from codegen import __version__
from codegen.build import UsageError, build, check_catalogs, find_sources
from codegen.cache import DIRECTORY, BuildCache
from codegen.config import Config, ConfigError, load_config
from codegen.diagnostics import CatalogError, Diagnostic
from codegen.emit import (
    OutputError,
    os_message,
    plan,
    refuse_unsafe_output,
    work_directory,
    write,
)
from codegen.guarded_fs import LinkRefused, UnsafeOutput, shown
from codegen.importers import FORMATS, UnreadableToolList, import_functions, import_tools
from codegen.importers.dialect import Notes
from codegen.memory import BuildMemory
from codegen.python.format import GeneratedSyntaxError
from codegen.watch import watch

OK, FAILED, USAGE = 0, 1, 2
# Each command imports the modules only it needs where it runs (`_import`, `_lint`, `_parse`):
# a build, the command run most, does not pay for them at start.


def main(argv: Sequence[str] | None = None, *, ends_process: bool = False) -> int:
    """The command; `ends_process`: the process ends with it (`run`), so what it made need not
    be freed."""
    parser = _parser()
    args = parser.parse_args(argv)
    args.ends_process = ends_process
    try:
        config = load_config(Path.cwd())
    except ConfigError as exc:
        print(f"codegen: {exc}", file=sys.stderr)
        return USAGE
    sources = (
        [Path(s) for s in args.sources] if getattr(args, "sources", None) else list(config.sources)
    )
    if getattr(args, "watch", False):
        if args.check:
            print("codegen: --watch writes; it cannot go with --check", file=sys.stderr)
            return USAGE
        args.memory = memory = BuildMemory()
        return watch(sources, lambda: _run(args, sources, config), after=lambda: _finish(memory))
    return _run(args, sources, config)


def run() -> NoReturn:
    """The `codegen` command as a process: `main`, then out without tearing the interpreter down.
    A build leaves millions of objects behind, and freeing them one by one at exit took 0.05 to
    0.08 s of a one-tool rebuild at 2,000 tools (mypy leaves the same way, for the same reason).
    Every file a command writes is closed by then; only the standard streams are flushed here."""
    code = main(ends_process=True)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a reader that went away: what it missed cannot be said
        code = code or FAILED
    os._exit(code)


def _finish(memory: BuildMemory) -> None:
    """What a watch's build left for after its output; a failure is said, and the watch goes on
    (a build cache that cannot be written only makes later builds slower)."""
    try:
        memory.finish()
    except OSError as exc:
        print(f"codegen: {os_message(exc)} (while storing the build in the cache)", file=sys.stderr)
    except LinkRefused as exc:
        print(f"codegen: {exc} (while storing the build in the cache)", file=sys.stderr)


def _run(args: argparse.Namespace, sources: list[Path], config: Config) -> int:
    """One run of the command, every failure reported in words and as an exit code."""
    try:
        return int(args.run(args, sources, config))
    except (UsageError, ConfigError, UnsafeOutput) as exc:
        print(f"codegen: {exc}", file=sys.stderr)
        return USAGE
    except CatalogError as exc:
        _report(_kept(config, exc.diagnostics))
        # The warnings reported beside the errors are said above; the count is of the errors.
        errors = [d for d in exc.diagnostics if d.level == "error"]
        files = len({d.file for d in errors})
        outcome = "; nothing was written" if args.command == "build" and not args.check else ""
        print(
            f"codegen: {_count(len(errors), 'error')} in {_count(files, 'file')}{outcome}",
            file=sys.stderr,
        )
        return FAILED
    except (OutputError, LinkRefused) as exc:
        print(f"codegen: {exc}", file=sys.stderr)
        return FAILED
    except OSError as exc:  # a full or read-only disk, a name too long: the system's words
        print(f"codegen: {os_message(exc)}", file=sys.stderr)
        return FAILED
    except GeneratedSyntaxError as exc:
        print(f"codegen: internal error, please report it: {exc}", file=sys.stderr)
        return FAILED
    except Exception as exc:  # noqa: BLE001 - a bug of codegen's is a report, never a traceback
        print(
            f"codegen: internal error, please report it: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return FAILED


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codegen", description="Schema-first code generation for LLM tool calling."
    )
    parser.add_argument("--version", action="version", version=f"codegen {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    build_cmd = commands.add_parser("build", help="generate the packages of catalogs")
    build_cmd.add_argument(
        "sources",
        nargs="*",
        metavar="SOURCE",
        help="catalog files or directories (default: [tool.codegen] sources, else schemas/)",
    )
    build_cmd.add_argument(
        "--out", type=Path, help="output directory (default: [tool.codegen] out, else generated/)"
    )
    build_cmd.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 listing stale, missing and orphaned files",
    )
    build_cmd.add_argument(
        "--no-cache",
        action="store_true",
        help=f"render and format every module again, without reading or writing {DIRECTORY}/",
    )
    build_cmd.add_argument("--strict", action="store_true", help=STRICT_HELP)
    build_cmd.add_argument(
        "--watch",
        action="store_true",
        help="build, then build again each time a catalog changes, until Ctrl-C",
    )
    # `memory`: what a build keeps for the next one of the same process (`--watch`).
    build_cmd.set_defaults(run=_build, memory=None)

    validate_cmd = commands.add_parser(
        "validate", help="report catalog errors and every build warning"
    )
    validate_cmd.add_argument("sources", nargs="*", metavar="SOURCE")
    validate_cmd.add_argument("--strict", action="store_true", help=STRICT_HELP)
    validate_cmd.set_defaults(run=_validate)

    import_cmd = commands.add_parser(
        "import",
        help="turn a tool list people already have into a catalog (YAML)",
        description="Turn a tool list people already have into a catalog (YAML). With --from "
        "python, codegen imports the module: that runs the module's code, as `python -c "
        "'import module'` would, so import only modules you trust.",
    )
    import_cmd.add_argument(
        "source",
        metavar="SOURCE",
        help="a JSON or YAML file with the tool list (- for stdin); with --from python, "
        "package.module[:function] (imported: this runs the module's code)",
    )
    import_cmd.add_argument(
        "--from", dest="source_format", choices=("auto", *FORMATS, "python"), default="auto"
    )
    import_cmd.add_argument("--name", help="the catalog's name (default: the file's name)")
    import_cmd.add_argument(
        "-o", "--output", type=Path, help="the catalog to write (default: stdout)"
    )
    import_cmd.add_argument(
        "--names",
        type=Path,
        metavar="PROVIDER_NAMES.json",
        help="a build's provider_names map: aliases a provider was sent become wire names again",
    )
    import_cmd.set_defaults(run=_import)

    lint_cmd = commands.add_parser(
        "lint", help="what makes catalogs harder for a model to use, with stable rule codes"
    )
    lint_cmd.add_argument("sources", nargs="*", metavar="SOURCE")
    lint_cmd.add_argument("--format", choices=("text", "json"), default="text")
    lint_cmd.set_defaults(run=_lint)

    parse_cmd = commands.add_parser(
        "parse",
        help="parse one call with a catalog and print the result as JSON (exit 1 when the call has errors)",
    )
    parse_cmd.add_argument("source", metavar="SOURCE", help="a catalog file")
    parse_cmd.add_argument(
        "tool", metavar="TOOL", help="the tool's wire name, or a provider's alias of it"
    )
    parse_cmd.add_argument(
        "raw",
        metavar="RAW",
        nargs="?",
        default="-",
        help="the arguments as the model sent them (- or nothing: stdin)",
    )
    parse_cmd.set_defaults(run=_parse)

    playground_cmd = commands.add_parser(
        "playground",
        help="a local page for a built catalog: its tools as forms, the parser on any model text,"
        " each provider's payload; Ctrl-C stops it",
    )
    playground_cmd.add_argument(
        "catalog",
        metavar="CATALOG",
        nargs="?",
        help="a built package's directory, or a catalog's name in the output directory"
        " (default: the only catalog there)",
    )
    playground_cmd.add_argument(
        "--handlers",
        metavar="MODULE:HANDLERS",
        help="the handler map (imported: this runs the module's code); the page can then run calls",
    )
    playground_cmd.add_argument(
        "--port", type=int, default=0, help="the port on 127.0.0.1; 0 picks a free one"
    )
    playground_cmd.set_defaults(run=_playground)
    return parser


def _build(args: argparse.Namespace, sources: list[Path], config: Config) -> int:
    out: Path = args.out or config.out
    # Before anything is built: `--out .` would swap the project away.
    refuse_unsafe_output(out, config.root, [*sources, *find_sources(sources)])
    # `--check` writes nothing: it reads the cache, and never creates or fills it.
    cache = BuildCache(None if args.no_cache else config.root / DIRECTORY, writable=not args.check)
    result = build(sources, config.root, cache, config.providers, args.memory)
    if args.ends_process and args.memory is None:
        # The process ends with this build: what the build made lives to its end, and a pass of
        # the cyclic collector over it while the output is compared and written (0.03 s at
        # 2,000 tools) would free nothing. (A watch collects between its builds.)
        gc.freeze()
    findings = _kept(config, result.warnings)
    _refuse_warnings_when_strict(args, config, findings)
    _summarize(findings)
    if args.check:
        outcome = plan(result, out, config.root)
        for label, paths in (
            ("stale", outcome.stale),
            ("missing", outcome.missing),
            ("orphaned", outcome.orphaned),
        ):
            for path in paths:
                print(f"{label}: {out / path}")
        for debris in outcome.debris:
            left = " (left by an interrupted build)" if debris == work_directory(out) else ""
            print(f"debris: {shown(debris)}{left}")
        if not outcome.clean:
            print(f"codegen: {out} is out of date; run `codegen build`", file=sys.stderr)
            return FAILED
        print(f"codegen: {out} is up to date ({_count(len(result.packages), 'catalog')})")
        return OK
    outcome = write(result, out, config.root, args.memory)
    written = len(outcome.missing) + len(outcome.stale)
    print(
        f"codegen: built {_count(len(result.packages), 'catalog')} into {out}: "
        f"{written} written, {len(outcome.unchanged)} unchanged, {len(outcome.orphaned)} removed"
    )
    return OK


def _validate(args: argparse.Namespace, sources: list[Path], config: Config) -> int:
    catalogs, found = check_catalogs(find_sources(sources), config.root, config.providers)
    found = _kept(config, found)
    _refuse_warnings_when_strict(args, config, found)
    _report(found)
    tools = sum(len(c.tools) for c in catalogs)
    warnings = sum(d.level == "warning" for d in found)
    notes = len(found) - warnings
    print(
        f"codegen: {_count(len(catalogs), 'catalog')} valid ({_count(tools, 'tool')}, "
        f"{_count(warnings, 'warning')}, {_count(notes, 'note')})"
    )
    return OK


def _import(args: argparse.Namespace, sources: list[Path], config: Config) -> int:
    try:
        if args.source_format == "python":
            fmt = "python"
            catalog, notes = import_functions(args.source, Path.cwd(), args.name)
        else:
            catalog, fmt, notes = _import_document(args)
    except UnreadableToolList as exc:
        raise UsageError(f"{args.source}: {exc}") from None
    for note in notes:
        print(f"{args.source}: warning: {note}", file=sys.stderr)
    from codegen.importers.yaml_out import to_yaml

    text = to_yaml(catalog)
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")
    print(
        f"codegen: imported {_count(len(catalog['tools']), 'tool')} ({fmt}) with "
        f"{_count(len(notes), 'change')}",
        file=sys.stderr,
    )
    return OK


def _import_document(args: argparse.Namespace) -> tuple[dict[str, Any], str, Notes]:
    text = sys.stdin.read() if args.source == "-" else _read(Path(args.source))
    from codegen.importers.document import read_document

    document = read_document(text)
    names = json.loads(_read(args.names)) if args.names else None
    name = args.name or ("imported_tools" if args.source == "-" else Path(args.source).stem)
    return import_tools(document, args.source_format, name, names)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: {exc}") from None


def _lint(args: argparse.Namespace, sources: list[Path], config: Config) -> int:
    """Exit 1 when a finding is at error level: a catalog error, or a contradiction."""
    from codegen.lint import lint

    findings = lint(find_sources(sources), config.root)
    if args.format == "json":
        print(json.dumps([f.as_json() for f in findings], indent=2, ensure_ascii=False))
    else:
        for finding in findings:
            print(finding)
        levels = Counter(f.level for f in findings)
        counts = f"{_count(levels['error'], 'error')}, {_count(levels['warning'], 'warning')}, "
        counts += f"{levels['info']} info"
        print(f"codegen: {_count(len(findings), 'finding')} ({counts})", file=sys.stderr)
    return FAILED if any(f.level == "error" for f in findings) else OK


def _parse(args: argparse.Namespace, sources: list[Path], config: Config) -> int:
    source = Path(args.source)
    if source.is_dir():
        raise UsageError(f"{source}: `codegen parse` takes one catalog file, not a directory")
    (source,) = find_sources([source])
    raw = sys.stdin.read() if args.raw == "-" else args.raw
    from codegen.sandbox import parse_with_catalog

    result = parse_with_catalog(source, args.tool, raw, config.root)
    print(json.dumps(result, indent=2, ensure_ascii=False, default=_json_default))
    return OK if not result["errors"] else FAILED


def _playground(args: argparse.Namespace, sources: list[Path], config: Config) -> int:
    from codegen.playground.catalog import Playground, import_package, locate
    from codegen.playground.server import PlaygroundServer

    package = import_package(locate(args.catalog, config.out))
    try:
        handlers = (
            None
            if args.handlers is None
            else importlib.import_module(f"{package.__name__}.mcp").load_handlers(args.handlers)
        )
        # The executor checks each handler against its tool here, before anything is served.
        playground = Playground(package, handlers)
    except (ImportError, ValueError, TypeError) as exc:
        raise UsageError(f"--handlers {args.handlers}: {exc}") from None
    with PlaygroundServer(playground, args.port) as server:
        print(f"codegen: the playground of {package.CATALOG} is at {server.url}", flush=True)
        print("codegen: Ctrl-C stops it", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return OK


def _json_default(value: object) -> object:
    # `values` hold dates and datetimes as such; JSON gets their ISO-8601 text.
    return value.isoformat() if isinstance(value, (date, datetime)) else repr(value)


def _report(diagnostics: list[Diagnostic]) -> None:
    for diagnostic in diagnostics:
        print(diagnostic, file=sys.stderr)


STRICT_HELP = "every build warning is an error, notes are not (also [tool.codegen] strict = true)"


def _kept(config: Config, findings: list[Diagnostic]) -> list[Diagnostic]:
    """The findings whose codes `[tool.codegen] ignore` does not silence."""
    return [d for d in findings if d.code not in config.ignore]


def _refuse_warnings_when_strict(
    args: argparse.Namespace, config: Config, findings: list[Diagnostic]
) -> None:
    warnings = [d for d in findings if d.level == "warning"]
    if (args.strict or config.strict) and warnings:
        raise CatalogError([dataclasses.replace(w, level="error") for w in warnings])


# Above this many warnings a build shows the first few and a count of each kind.
SHOWN_WARNINGS = 10


def _summarize(findings: list[Diagnostic]) -> None:
    """Every warning when there are few; else the first ones and how many of each kind there are
    (`codegen validate` lists them all, and the notes, which a build only counts)."""
    warnings = [d for d in findings if d.level == "warning"]
    if len(warnings) <= 2 * SHOWN_WARNINGS:
        _report(warnings)
    else:
        _report(warnings[:SHOWN_WARNINGS])
        kinds = Counter(_kind_of(w.message) for w in warnings)
        print(f"codegen: {len(warnings)} warnings, by kind:", file=sys.stderr)
        for kind, count in sorted(kinds.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {count:>6}  {kind}", file=sys.stderr)
        print("codegen: `codegen validate` lists every one of them", file=sys.stderr)
    notes = len(findings) - len(warnings)
    if notes:
        print(
            f"codegen: {_count(notes, 'note')}: what a provider format cannot say and the parser "
            "enforces anyway (`codegen validate` lists them)",
            file=sys.stderr,
        )


def _kind_of(message: str) -> str:
    """A warning's message with what is particular to it (names, values, numbers) taken out."""
    return _PARTICULAR.sub("…", message)


# Quoted text (a quote that does not touch a word: "parameter's" is not one), numbers, constants.
_PARTICULAR = re.compile(
    r"(?<!\w)'(?:[^'\\]|\\.)*+'(?!\w)|-?\b\d+(?:\.\d+)?\b|\b(?:True|False|None)\b"
)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
