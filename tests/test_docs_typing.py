"""The docs' code type-checks against the providers' SDKs: every Python block of README.md,
docs/executor.md and docs/providers.md that imports the generated package passes `mypy --strict`
with openai, anthropic and google-genai installed, as a user's program that pastes it would. This is
what the glue's types are for: `OPENAI_TOOLS` is what `tools=` takes, `history_anthropic(reply)` is a
`MessageParam`, `to_openai_chat(results)` are tool messages (`_types.py`).

Each block is checked as written, inside an `async def` (so a block may `await`), with the names it
uses but does not define declared before it, typed as a user's program would have them (a
`messages` list of the SDK's message type, the handlers of the README). Blocks that import nothing
from the package are fragments of the ones before them and are not checked alone. One mypy run
checks every block (mypy is slow to start), with the cache every run of the tests shares (conftest).
"""

from __future__ import annotations

import ast
import builtins
import re
import textwrap
from pathlib import Path

from conftest import Mypy

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", ROOT / "docs" / "executor.md", ROOT / "docs" / "providers.md"]
PACKAGE = "generated.memory_tools"

# What a name a block uses but does not define is, in the program around it: per SDK the block
# imports where that matters (its message list, its client).
DECLARED = {
    "store": (
        "class _Store:\n    def search(self, query: str, limit: int) -> list[str]:\n"
        "        return [query] * limit\nstore = _Store()"
    ),
    "files": (
        "class _Files:\n    async def read(self, path: str, encoding: str) -> str:\n"
        "        return path\nfiles = _Files()"
    ),
    "search": ("def search(query: str, limit: int = 3) -> list[str]:\n    return [query] * limit"),
    "read": (
        f"from {PACKAGE} import ReadFileArgs\n"
        "async def read(args: ReadFileArgs) -> str:\n    return args.file_path"
    ),
    "prompt": 'prompt = "What do my notes say about agent state?"',
    "model": 'model = "claude-sonnet-4-5"',
    "requests": f"from {PACKAGE} import ToolCallRequest\nrequests: list[ToolCallRequest[object]] = []",
    "request": f'from {PACKAGE} import parse\nrequest = parse("search_files", "{{}}")',
    "glob": "import glob",
    "ui": "from typing import Any\nui: Any = None",
    "chunks": "chunks: list[object] = []",
}
BY_SDK = {
    "anthropic": {
        "messages": "from anthropic.types import MessageParam\nmessages: list[MessageParam] = []",
        "client": "from anthropic import Anthropic\nclient = Anthropic()",
    },
    "openai": {
        "messages": (
            "from openai.types.chat import ChatCompletionMessageParam\n"
            "messages: list[ChatCompletionMessageParam] = []"
        ),
        "client": "from openai import OpenAI\nclient = OpenAI()",
    },
}


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """Each ```python block of the page that imports the package, with its first line's number."""
    text = page.read_text(encoding="utf-8")
    return [
        (text[: match.start()].count("\n") + 2, match.group(1))
        for match in re.finditer(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
        if f"from {PACKAGE} import" in match.group(1)
    ]


def free_names(code: str) -> list[str]:
    """The names the code reads and never binds (builtins aside), in the order first read."""
    tree = ast.parse(code)
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    read = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return list(dict.fromkeys(n for n in read if n not in bound and not hasattr(builtins, n)))


def module_of(code: str) -> str:
    """The block as a module: what it uses declared first, then the block in an async function."""
    sdk = next((name for name in BY_SDK if re.search(rf"^from {name}\b", code, re.MULTILINE)), None)
    known = {**DECLARED, **BY_SDK.get(sdk or "", {})}
    missing = [name for name in free_names(code) if name not in known]
    assert not missing, f"the block uses {missing}, which the test does not declare"
    prelude = "\n".join(known[name] for name in free_names(code))
    return f"{prelude}\n\n\nasync def block() -> None:\n{textwrap.indent(code, '    ')}"


# What the docs do not show, typed the same way: the Responses and Gemini loops, and each constant
# and result as the SDK's own param type, item by item and as whole lists.
LOOPS = f"""\
from anthropic.types import MessageParam, ToolParam, ToolResultBlockParam
from google import genai
from google.genai import types
from openai import OpenAI
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionFunctionToolParam,
    ChatCompletionToolMessageParam,
)
from openai.types.responses import FunctionToolParam, ResponseInputParam
from {PACKAGE} import (
    ANTHROPIC_STRICT_TOOLS, ANTHROPIC_TOOLS, GEMINI_LEGACY_TOOLS, GEMINI_TOOLS,
    OPENAI_RESPONSES_TOOLS, OPENAI_STRICT_TOOLS, OPENAI_TOOLS, PROVIDER_NAMES, AnthropicTool,
    Executor, ToolCallResult, from_gemini, from_openai_responses, history_anthropic,
    history_gemini, history_openai_chat, history_openai_responses, to_anthropic, to_gemini,
    to_openai_chat, to_openai_responses,
)


def responses_loop(client: OpenAI, executor: Executor, prompt: str) -> str:
    items: ResponseInputParam = [{{"role": "user", "content": prompt}}]
    while True:
        response = client.responses.create(
            model="gpt-5", input=items, tools=OPENAI_RESPONSES_TOOLS
        )
        items += history_openai_responses(response)
        requests = from_openai_responses(response)
        if not requests:
            return response.output_text
        items += to_openai_responses(executor.execute(request) for request in requests)


def gemini_loop(client: genai.Client, executor: Executor, prompt: str) -> str | None:
    tool = types.Tool.model_validate({{"functionDeclarations": GEMINI_TOOLS}})
    legacy = types.Tool.model_validate({{"functionDeclarations": GEMINI_LEGACY_TOOLS}})
    config = types.GenerateContentConfig(tools=[tool, legacy])
    contents: list[types.ContentUnionDict] = [prompt]
    while True:
        response = client.models.generate_content(
            model="gemini-2.5-flash", contents=contents, config=config
        )
        contents.append(history_gemini(response))
        requests = from_gemini(response)
        if not requests:
            return response.text
        parts = to_gemini([executor.execute(r) for r in requests], PROVIDER_NAMES["gemini"])
        contents.append(types.Content.model_validate({{"role": "user", "parts": parts}}))


def items(result: ToolCallResult) -> None:
    chat_tools: list[ChatCompletionFunctionToolParam] = OPENAI_TOOLS + OPENAI_STRICT_TOOLS
    responses_tools: list[FunctionToolParam] = OPENAI_RESPONSES_TOOLS
    anthropic_tools: list[ToolParam] = ANTHROPIC_TOOLS + ANTHROPIC_STRICT_TOOLS
    eager: list[AnthropicTool] = [{{**t, "eager_input_streaming": True}} for t in ANTHROPIC_TOOLS]
    tool_message: ChatCompletionToolMessageParam = to_openai_chat([result])[0]
    assistant: ChatCompletionAssistantMessageParam = history_openai_chat(None)
    block: ToolResultBlockParam = to_anthropic([result])[0]
    turn: MessageParam = history_anthropic(None)
    content: types.ContentDict = history_gemini(None)
    print(chat_tools, responses_tools, anthropic_tools, tool_message, assistant, block)
    print(turn, content, eager)
"""

# Types that say something: each line marked `# refused` is an error, and no other line is.
REFUSED = f"""\
from anthropic import Anthropic
from anthropic.types import MessageParam
from openai import OpenAI
from openai.types.chat import ChatCompletionMessageParam
from {PACKAGE} import (
    ANTHROPIC_TOOLS, OPENAI_TOOLS, history_anthropic, history_openai_chat, to_anthropic,
    to_openai_chat,
)

chat: list[ChatCompletionMessageParam] = []
anthropic: list[MessageParam] = []
OpenAI().chat.completions.create(model="m", messages=chat, tools=ANTHROPIC_TOOLS)  # refused
Anthropic().messages.create(model="m", max_tokens=9, messages=[], tools=OPENAI_TOOLS)  # refused
chat.append(history_anthropic(None))  # refused
chat.extend(to_anthropic([]))  # refused
anthropic.append(history_openai_chat(None))  # refused
anthropic.append({{"role": "user", "content": to_openai_chat([])}})  # refused
name: int = OPENAI_TOOLS[0]["function"]["name"]  # refused
"""


def test_the_docs_code_passes_mypy_strict_with_the_sdks(tmp_path: Path, mypy: Mypy) -> None:
    modules = {}
    for page in PAGES:
        for line, code in python_blocks(page):
            name = f"{page.stem.lower().replace('-', '_')}_line_{line}"
            path = tmp_path / f"{name}.py"
            path.write_text(module_of(code), encoding="utf-8")
            modules[path] = f"{page.relative_to(ROOT)}:{line}"
    # The README's two agent loops, the streaming one and the adapters' blocks at least.
    assert len(modules) >= 8, modules
    loops, refused = tmp_path / "loops.py", tmp_path / "refused.py"
    loops.write_text(LOOPS, encoding="utf-8")
    refused.write_text(REFUSED, encoding="utf-8")
    done = mypy(*map(str, [*modules, loops, refused]), path=ROOT)
    errors = [line for line in done.stdout.splitlines() if ": error: " in line]
    where = "\n".join(f"{path.name}: {block}" for path, block in modules.items())
    others = [line for line in errors if not line.startswith(str(refused))]
    assert not others, f"{done.stdout}{done.stderr}\nblocks:\n{where}"
    refused_lines = {int(line.split(":")[1]) for line in errors}
    marked = {n for n, text in enumerate(REFUSED.splitlines(), 1) if text.endswith("# refused")}
    assert refused_lines == marked, done.stdout
