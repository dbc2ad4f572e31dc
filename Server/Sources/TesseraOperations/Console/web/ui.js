// Small DOM helpers shared by the pages: no innerHTML, so nothing from the server is ever parsed as markup.

/** An element with attributes (`on*` become listeners, `class`, `hidden`, `data-*` …) and children (strings become text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** A problem box: the problem's code, title and detail (or an unexpected error's message). */
export function problemBox(error) {
  const code = error && error.code ? "Error " + error.code + ": " : "";
  const title = error && error.title ? error.title : "Something went wrong";
  const detail = error && error.detail ? " — " + error.detail : (error && !error.title && error.message ? " — " + error.message : "");
  return el("div", { class: "problem", role: "alert", "data-code": error && error.code }, code + title + detail);
}

/** Runs `action`; shows its failure in `slot` (a container that is emptied first). */
export async function attempt(slot, action) {
  slot.replaceChildren();
  try { return await action(); } catch (error) { slot.append(problemBox(error)); return undefined; }
}

/** A table, or `emptyText` in an empty state when there are no rows. `columns`: [{ title, cell(row), wide }].
 * Below 760 px each row is a card of labelled cells, so nothing is cut off or needs sideways scrolling. */
export function table(columns, rows, emptyText, rowAttrs = () => ({})) {
  if (!rows.length) return el("div", { class: "empty" }, emptyText);
  const cls = (column) => (column.wide ? "wide" : undefined);
  // The roles keep the table's meaning for screen readers where a narrow window stacks its rows as cards
  // (console.css), and each cell carries its column's title for that layout.
  return el("div", { class: "table-wrap" }, el("table", { role: "table" },
    el("thead", { role: "rowgroup" }, el("tr", { role: "row" }, columns.map((c) => el("th", { class: cls(c), role: "columnheader" }, c.title)))),
    el("tbody", { role: "rowgroup" }, rows.map((row) => el("tr", Object.assign({ role: "row" }, rowAttrs(row)),
      columns.map((c) => el("td", { class: cls(c), role: "cell", "data-label": c.title }, c.cell(row))))))));
}

/** A time in milliseconds since 1970, in the browser's locale. */
export function time(ms) { return ms ? new Date(ms).toLocaleString() : "—"; }

/** A badge: `kind` is ok, bad or warn. */
export function badge(text, kind) { return el("span", { class: "badge " + kind }, text); }

/** A button that must be clicked twice (the first click arms it): no confirm() dialogs. */
export function dangerButton(text, action, attrs = {}) {
  const button = el("button", { type: "button", class: "danger", ...attrs }, text);
  button.addEventListener("click", async () => {
    if (!button.classList.contains("armed")) {
      button.classList.add("armed");
      button.textContent = "Confirm: " + text.toLowerCase();
      return;
    }
    button.disabled = true;
    await action();
    button.disabled = false;
  });
  return button;
}

/** A secret shown once, with a copy button and a warning. */
export function secretBox(label, value, kept = "Tessera keeps only a hash of it.") {
  const copy = el("button", { type: "button", class: "quiet" }, "Copy");
  const note = el("span", { class: "muted" });
  copy.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(value); note.textContent = " Copied."; } catch (_) { note.textContent = " Select the text and copy it."; }
  });
  return el("div", { class: "secret", role: "status" },
    el("strong", {}, label),
    el("code", { class: "value", id: "new-secret" }, value),
    el("div", { class: "muted" }, "Shown only this once: store it now. " + kept),
    copy, note);
}

/** A page heading with an optional line under it. */
export function heading(title, text) { return [el("h1", {}, title), text ? el("p", { class: "muted" }, text) : null]; }