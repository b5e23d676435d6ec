// The playground page: plain JavaScript, no build step. Every text of the catalog or of a model
// is put in the page as text (textContent, attribute values), never as markup.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);
let catalog = null;
let current = null; // the selected tool
let form = null; // the selected tool's editor: { node, get() }
let uid = 0;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function say(text) {
  $("status").textContent = text;
}

async function ask(path, body) {
  const init = { headers: { "X-Playground-Token": token } };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

// ---- schemas -------------------------------------------------------------------------------

function resolve(schema, root) {
  let s = schema && typeof schema === "object" ? schema : {};
  for (let depth = 0; depth < 32 && typeof s.$ref === "string"; depth++) {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref);
    const name = m && decodeURIComponent(m[2]).replace(/~1/g, "/").replace(/~0/g, "~");
    const target = m && root[m[1]] && root[m[1]][name];
    if (!target) break;
    const { $ref, ...rest } = s;
    s = { ...target, ...rest };
  }
  return s;
}

function variants(s) {
  if (Array.isArray(s.anyOf)) return s.anyOf;
  if (Array.isArray(s.oneOf)) return s.oneOf;
  if (Array.isArray(s.type)) return s.type.map((type) => ({ ...s, type }));
  return null;
}

function hints(s) {
  const out = [];
  if (s.description) out.push(s.description);
  const type = s.type ? String(s.type) + (s.format ? ` (${s.format})` : "") : "";
  if (type) out.push(type);
  const bound = (key, words) => {
    if (key in s) out.push(`${words} ${JSON.stringify(s[key])}`);
  };
  bound("minimum", "at least");
  bound("exclusiveMinimum", "more than");
  bound("maximum", "at most");
  bound("exclusiveMaximum", "less than");
  bound("multipleOf", "a multiple of");
  bound("minLength", "at least this many characters:");
  bound("maxLength", "at most this many characters:");
  bound("minItems", "at least this many items:");
  bound("maxItems", "at most this many items:");
  bound("pattern", "matching");
  bound("default", "default");
  if (Array.isArray(s.examples) && s.examples.length) {
    out.push(`e.g. ${s.examples.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  return out.join(" · ");
}

function initial(s, required) {
  if ("default" in s) return s.default;
  if (required && Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  return undefined;
}

function shapeLabel(v, root, index) {
  const s = resolve(v, root);
  if (s.title) return s.title;
  if (typeof v.$ref === "string") return v.$ref.split("/").pop();
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`;
  if (s.type) return String(s.type);
  return `shape ${index + 1}`;
}

// ---- the form ------------------------------------------------------------------------------
// editor(schema, ctx) returns { node, get() }; get() is undefined for "not sent".
// ctx: { name, path, required, root, value } (value: what to start with, or undefined).

// The star is for the eye; a reader of the page hears "required" from the control itself.
function requiredMark() {
  return el("span", { class: "required", title: "required", "aria-hidden": "true", text: " *" });
}

function labelFor(id, ctx) {
  return el(
    "label",
    { for: id },
    ctx.name,
    ctx.required ? requiredMark() : null,
  );
}

function wrap(ctx, s, id, control, labelled = true) {
  const hint = hints(s);
  if (hint) control.setAttribute("aria-describedby", `${id}-hint`);
  return el(
    "div",
    { class: "field", "data-path": ctx.path },
    labelled ? labelFor(id, ctx) : null,
    control,
    hint ? el("p", { class: "hint", id: `${id}-hint`, text: hint }) : null,
    el("div", { class: "marks" }),
  );
}

function editor(schema, ctx) {
  const s = resolve(schema, ctx.root);
  const start = ctx.value !== undefined ? ctx.value : initial(s, ctx.required);
  ctx = { ...ctx, value: start };
  const shapes = variants(s);
  if (shapes && shapes.length > 1) return shapeEditor(s, shapes, ctx);
  if (shapes && shapes.length === 1) return editor({ ...s, anyOf: undefined, oneOf: undefined, ...shapes[0] }, ctx);
  if (Array.isArray(s.enum)) return choiceEditor(s, ctx, s.enum);
  if ("const" in s) return choiceEditor(s, ctx, [s.const]);
  switch (s.type) {
    case "object":
      return s.properties ? objectEditor(s, ctx) : jsonEditor(s, ctx);
    case "array":
      return arrayEditor(s, ctx);
    case "boolean":
      return choiceEditor(s, ctx, [false, true]);
    case "integer":
    case "number":
      return numberEditor(s, ctx);
    case "string":
      return textEditor(s, ctx);
    case "null":
      return { node: wrap(ctx, s, `f${++uid}`, el("span", { text: "null" }), false), get: () => null };
    default:
      return jsonEditor(s, ctx);
  }
}

function textEditor(s, ctx) {
  const id = `f${++uid}`;
  const input = el("input", {
    id,
    type: "text",
    name: ctx.path,
    placeholder: Array.isArray(s.examples) && s.examples.length ? `e.g. ${s.examples[0]}` : null,
    required: ctx.required,
  });
  if (typeof ctx.value === "string") input.value = ctx.value;
  return {
    node: wrap(ctx, s, id, input),
    get: () => (input.value === "" && !ctx.required ? undefined : input.value),
  };
}

function numberEditor(s, ctx) {
  const id = `f${++uid}`;
  const input = el("input", {
    id,
    type: "number",
    name: ctx.path,
    step: s.type === "integer" ? "1" : "any",
    min: s.minimum,
    max: s.maximum,
    required: ctx.required,
  });
  if (typeof ctx.value === "number") input.value = String(ctx.value);
  return {
    node: wrap(ctx, s, id, input),
    get: () => (input.value === "" ? undefined : Number(input.value)),
  };
}

function choiceEditor(s, ctx, choices) {
  const id = `f${++uid}`;
  const select = el("select", { id, name: ctx.path });
  if (!ctx.required) select.append(el("option", { value: "", text: "(not sent)" }));
  for (const choice of choices) {
    const option = el("option", { value: JSON.stringify(choice), text: JSON.stringify(choice) });
    select.append(option);
  }
  if (ctx.value !== undefined) select.value = JSON.stringify(ctx.value);
  return {
    node: wrap(ctx, s, id, select),
    get: () => (select.value === "" ? undefined : JSON.parse(select.value)),
  };
}

function jsonEditor(s, ctx) {
  const id = `f${++uid}`;
  const area = el("textarea", { id, rows: 3, name: ctx.path, spellcheck: "false" });
  if (ctx.value !== undefined) area.value = JSON.stringify(ctx.value);
  const node = wrap(ctx, { ...s, description: `${s.description || ""} (any JSON)`.trim() }, id, area);
  return {
    node,
    get: () => {
      if (area.value.trim() === "") return undefined;
      try {
        area.removeAttribute("aria-invalid");
        return JSON.parse(area.value);
      } catch {
        area.setAttribute("aria-invalid", "true");
        return area.value; // sent as the text it is: the parser says what it makes of it
      }
    },
  };
}

// An optional object or array is sent only when its box is ticked.
function optional(ctx, s, inner, legendText) {
  if (ctx.required) return inner;
  const id = `f${++uid}`;
  const box = el("input", { id, type: "checkbox" });
  box.checked = ctx.value !== undefined;
  const body = el("div", {}, inner.node);
  body.hidden = !box.checked;
  box.addEventListener("change", () => {
    body.hidden = !box.checked;
  });
  const node = el("div", { class: "optional" }, el("label", { for: id }, box, ` send ${legendText}`), body);
  return { node, get: () => (box.checked ? inner.get() : undefined) };
}

// An object's or an array's fields, under its name (the arguments themselves have none).
function group(s, ctx) {
  const fieldset = el("fieldset", { class: "field", "data-path": ctx.path });
  if (!ctx.name) return fieldset;
  fieldset.append(el("legend", {}, ctx.name, ctx.required ? requiredMark() : null));
  if (hints(s)) fieldset.append(el("p", { class: "hint", text: hints(s) }));
  fieldset.append(el("div", { class: "marks" }));
  return fieldset;
}

function objectEditor(s, ctx) {
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  const fieldset = group(s, ctx);
  const children = [];
  const start = ctx.value && typeof ctx.value === "object" && !Array.isArray(ctx.value) ? ctx.value : {};
  for (const [key, child] of Object.entries(s.properties || {})) {
    const sub = editor(child, {
      name: key,
      path: ctx.path ? `${ctx.path}.${key}` : key,
      required: required.has(key),
      root: ctx.root,
      value: start[key],
    });
    children.push([key, sub]);
    fieldset.append(sub.node);
  }
  if (!children.length) fieldset.append(el("p", { class: "hint", text: "No parameters." }));
  const inner = {
    node: fieldset,
    get: () => {
      const out = {};
      for (const [key, sub] of children) {
        const value = sub.get();
        if (value !== undefined) out[key] = value;
      }
      return out;
    },
  };
  return ctx.path ? optional(ctx, s, inner, ctx.name) : inner;
}

function arrayEditor(s, ctx) {
  const fieldset = group(s, ctx);
  const list = el("ol");
  const items = [];
  const renumber = () =>
    items.forEach((item, index) => {
      item.remove.textContent = `Remove item ${index + 1}`;
    });
  const add = (value) => {
    const index = items.length;
    const sub = editor(s.items || {}, {
      name: `${ctx.name} item`,
      path: `${ctx.path}[${index}]`,
      required: true,
      root: ctx.root,
      value,
    });
    const remove = el("button", { type: "button" });
    const li = el("li", {}, sub.node, remove);
    const item = { sub, li, remove };
    remove.addEventListener("click", () => {
      items.splice(items.indexOf(item), 1);
      li.remove();
      renumber();
      refresh();
    });
    items.push(item);
    list.append(li);
    renumber();
  };
  const addButton = el("button", { type: "button", text: `Add ${ctx.name} item` });
  addButton.addEventListener("click", () => {
    add(undefined);
    refresh();
  });
  for (const value of Array.isArray(ctx.value) ? ctx.value : []) add(value);
  if (!items.length && ctx.required) add(undefined);
  fieldset.append(list, addButton);
  const inner = {
    node: fieldset,
    get: () => items.map((item) => item.sub.get()).map((v) => (v === undefined ? null : v)),
  };
  return optional(ctx, s, inner, ctx.name);
}

function shapeEditor(s, shapes, ctx) {
  const id = `f${++uid}`;
  const select = el("select", { id, name: `${ctx.path} shape` });
  if (!ctx.required) select.append(el("option", { value: "", text: "(not sent)" }));
  shapes.forEach((shape, index) => select.append(el("option", { value: String(index), text: shapeLabel(shape, ctx.root, index) })));
  const body = el("div", { class: "shape" });
  let inner = null;
  const fits = (shape, value) => {
    const t = resolve(shape, ctx.root).type;
    if (value === null) return t === "null";
    if (Array.isArray(value)) return t === "array";
    if (typeof value === "number") return t === "number" || t === "integer";
    return t === typeof value;
  };
  const show = (value) => {
    body.replaceChildren();
    inner = null;
    if (select.value === "") return;
    const shape = shapes[Number(select.value)];
    const merged = { description: undefined, ...shape };
    inner = editor(merged, { name: `${ctx.name} (${shapeLabel(shape, ctx.root, Number(select.value))})`, path: ctx.path, required: true, root: ctx.root, value });
    body.append(inner.node);
  };
  const chosen = ctx.value === undefined ? -1 : shapes.findIndex((shape) => fits(shape, ctx.value));
  select.value = chosen >= 0 ? String(chosen) : ctx.required ? "0" : "";
  show(chosen >= 0 ? ctx.value : undefined);
  select.addEventListener("change", () => {
    show(undefined);
    refresh();
  });
  const node = wrap({ ...ctx, name: `${ctx.name}: shape` }, s, id, select);
  node.append(body);
  return { node, get: () => (inner ? inner.get() : undefined) };
}

// ---- the page ------------------------------------------------------------------------------

function refresh() {
  if (form) $("call-json").value = JSON.stringify(form.get() ?? {}, null, 2);
}

function select(tool) {
  current = tool;
  for (const button of $("tool-list").querySelectorAll("button")) {
    button.setAttribute("aria-current", String(button.dataset.tool === tool.name));
  }
  $("tool-name").textContent = tool.name;
  $("tool-description").textContent = tool.description;
  const root = tool.schema && typeof tool.schema === "object" ? tool.schema : {};
  form = editor(root, { name: "", path: "", required: true, root, value: undefined });
  $("tool-form").replaceChildren(form.node);
  refresh();
  $("payloads").replaceChildren(
    ...Object.entries(tool.payloads).map(([label, payload]) => copyable(label, JSON.stringify(payload, null, 2))),
  );
}

function copyable(label, text) {
  const id = `c${++uid}`;
  const area = el("textarea", { id, rows: 10, readonly: true, spellcheck: "false" });
  area.value = text;
  const button = el("button", { type: "button", text: `Copy ${label}` });
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      area.select();
      document.execCommand("copy");
    }
    say(`Copied ${label}.`);
  });
  return el("details", {}, el("summary", { text: label }), el("label", { for: id, text: `${label} for this tool` }), area, el("div", { class: "buttons" }, button));
}

function codeLink(code, level) {
  const known = catalog.codes[code];
  const attrs = { class: `code ${level}`, text: code };
  if (!known) return el("span", attrs);
  const link = el("a", { ...attrs, href: `#code-${code}`, title: known.when });
  link.addEventListener("click", () => {
    $("code-details").open = true;
  });
  return link;
}

function marks(codes) {
  return el("div", { class: "marks" }, ...codes.warnings.map((c) => codeLink(c, "warning")), ...codes.errors.map((c) => codeLink(c, "error")));
}

const shown = (value) => (value === undefined ? "" : JSON.stringify(value));

function showCall(call, index) {
  const state = call.ok ? el("span", { class: "ok", text: "ready" }) : el("span", { class: "refused", text: "refused" });
  const article = el("article", { class: "call", "data-call": index, "data-tool": call.tool_name });
  article.append(el("h3", {}, `${call.tool_name} `, state, call.tool_call_id ? ` · ${call.tool_call_id}` : ""));
  const whole = [...call.warnings.map((e) => [e, "warning"]), ...call.errors.map((e) => [e, "error"])];
  if (whole.length) {
    const list = el("ul", { class: "whole-call", "aria-label": "About the whole call" });
    for (const [entry, level] of whole) {
      list.append(el("li", {}, codeLink(entry.code, level), entry.detail ? `: ${entry.detail}` : ""));
    }
    article.append(list);
  }
  const table = el("table", { class: "fields" });
  table.append(el("thead", {}, el("tr", {}, ...["field", "sent", "parsed", "codes"].map((h) => el("th", { scope: "col", text: h })))));
  const body = el("tbody");
  for (const field of call.fields) {
    const changed = shown(field.raw) !== shown(field.value);
    const row = el("tr", {
      "data-path": field.path,
      class: [changed ? "changed" : "", field.errors.length ? "has-error" : "", field.warnings.length ? "has-warning" : ""].join(" ").trim() || null,
    });
    row.append(
      el("td", { class: "path" }, el("code", { text: field.path })),
      el("td", { class: "raw" }, el("code", { text: shown(field.raw) })),
      el("td", { class: "value" }, el("code", { text: shown(field.value) })),
      el("td", { class: "codes" }, marks(field)),
    );
    body.append(row);
  }
  table.append(body);
  article.append(table);
  if (catalog.runnable) {
    const run = el("button", { type: "button", text: `Run ${call.tool_name}` });
    const raw = typeof call.raw_arguments === "string" ? call.raw_arguments : JSON.stringify(call.raw_arguments);
    run.addEventListener("click", () => runCall(call.tool_name, raw, call.tool_call_id));
    article.append(el("div", { class: "buttons" }, run));
  }
  return article;
}

// The codes of the call of the selected tool, on the form's own fields as well.
function markForm(call) {
  for (const node of $("tool-form").querySelectorAll(".marks")) node.replaceChildren();
  if (!call || !current || call.tool_name !== current.name) return;
  for (const field of call.fields) {
    if (!field.warnings.length && !field.errors.length) continue;
    const target = [...$("tool-form").querySelectorAll(".field")].find((node) => node.dataset.path === field.path);
    if (target) target.querySelector(":scope > .marks").replaceChildren(...marks(field).children);
  }
}

async function parse() {
  const reading = $("parse-reading").value;
  say("Parsing…");
  try {
    const answer = await ask("/api/parse", { text: $("parse-text").value, reading, tool: current ? current.name : "" });
    const out = $("parse-output");
    out.replaceChildren(...answer.calls.map(showCall));
    if (!answer.calls.length) out.append(el("p", { text: "No call in this text." }));
    for (const problem of answer.problems) {
      out.append(el("p", { class: "line-problem" }, `Line ${problem.line}: `, codeLink(problem.reason, "problem"), ` ${problem.detail}: `, el("code", { text: problem.text })));
    }
    markForm(answer.calls[0]);
    say(`Parsed: ${answer.calls.length} call(s), ${answer.problems.length} problem(s).`);
  } catch (error) {
    say(`Parse failed: ${error.message}`);
  }
}

async function runCall(tool, args, id) {
  say(`Running ${tool}…`);
  try {
    const answer = await ask("/api/run", { tool, arguments: args, id: id || "" });
    $("run-output").replaceChildren(
      el("p", {}, "Status: ", el("strong", { id: "run-status", text: answer.status })),
      el("pre", { class: "result", id: "run-text", text: answer.text }),
      el("p", { text: "The tool message for OpenAI Chat:" }),
      el("pre", { class: "result", text: JSON.stringify(answer.openai_chat, null, 2) }),
    );
    say(`Ran ${tool}: ${answer.status}.`);
    $("run").scrollIntoView();
  } catch (error) {
    say(`Run failed: ${error.message}`);
  }
}

function filter() {
  const words = $("search").value.trim().toLowerCase();
  for (const item of $("tool-list").children) {
    const tool = catalog.tools[Number(item.dataset.index)];
    item.hidden = words !== "" && !`${tool.name} ${tool.description}`.toLowerCase().includes(words);
  }
}

async function start() {
  try {
    catalog = await ask("/api/catalog");
  } catch (error) {
    say(`The catalog could not be loaded: ${error.message}`);
    return;
  }
  $("catalog-name").textContent = `${catalog.catalog} ${catalog.version}`;
  document.title = `${catalog.catalog} · codegen playground`;
  catalog.tools.forEach((tool, index) => {
    const button = el("button", { type: "button", "data-tool": tool.name, text: tool.name });
    button.addEventListener("click", () => select(tool));
    $("tool-list").append(el("li", { "data-index": index }, button));
  });
  $("search").addEventListener("input", filter);
  filter(); // words typed while the catalog was on its way
  $("tool-form").addEventListener("input", refresh);
  $("tool-form").addEventListener("change", refresh);
  $("tool-form").addEventListener("submit", (event) => event.preventDefault());
  $("copy-call").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("call-json").value);
    } catch {
      $("call-json").select();
      document.execCommand("copy");
    }
    say("Copied the call.");
  });
  $("parse-call").addEventListener("click", () => {
    $("parse-text").value = $("call-json").value;
    $("parse-reading").value = "arguments";
    parse();
  });
  $("parse-button").addEventListener("click", parse);
  if (catalog.runnable) {
    $("run").hidden = false;
    $("run-call").hidden = false;
    $("run-call").addEventListener("click", () => runCall(current.name, $("call-json").value, ""));
  }
  $("prompts").replaceChildren(...Object.entries(catalog.prompts).map(([label, text]) => copyable(label, text)));
  const rows = Object.entries(catalog.codes).map(([code, row]) =>
    el("tr", { id: `code-${code}` }, el("td", {}, el("code", { text: code })), el("td", { text: row.level }), el("td", { text: row.when })),
  );
  $("code-table").querySelector("tbody").replaceChildren(...rows);
  if (catalog.tools.length) select(catalog.tools[0]);
  say(`${catalog.tools.length} tools.${catalog.runnable ? " Calls can be run." : ""}`);
}

start();
