// Lists the report's items a page at a time, filters and searches them, and opens one to every
// mode and backend of the same item side by side. Reads only the JSON embedded in the page.
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const PAGE = 200;
  const FIRST = ["query", "question", "user", "reasons", "error", "expected", "gold", "retrieved", "levels",
    "surfaced", "matched", "missed", "queries", "context", "components", "records"];
  const [V, ID, MODE, BACKEND, CATEGORY, TITLE] = [0, 1, 2, 3, 4, 5];
  const rows = data.rows;
  const byId = new Map();
  rows.forEach((row, i) => { if (!byId.has(row[ID])) byId.set(row[ID], []); byId.get(row[ID]).push(i); });
  const searchText = [];
  const state = { failed: false, category: "", mode: "", backend: "", q: "", shown: PAGE };
  const open = new Set();
  const el = (tag, attrs = {}, ...kids) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v; else node.setAttribute(k, v);
    }
    for (const kid of kids) node.append(kid instanceof Node ? kid : String(kid));
    return node;
  };

  const scalar = (v) => v === null || typeof v !== "object";
  const format = (v) => typeof v === "number" && !Number.isInteger(v) ? String(+v.toPrecision(4)) : String(v);
  // what an item expected to find: every string under `expected`/`gold`, except what it must not find
  const collect = (v, into) => {
    if (typeof v === "string") into.add(v);
    else if (Array.isArray(v)) v.forEach((x) => collect(x, into));
    else if (v && typeof v === "object")
      Object.entries(v).forEach(([k, x]) => { if (!/(^|_)not_/.test(k)) collect(x, into); });
    return into;
  };
  const expectedOf = (item) => collect([item.expected, item.gold, item.levels &&
    Object.values(item.levels).map((l) => l.gold)], new Set());

  // a memory id the report holds the text of (belief reports' `memories`): the id, then its text
  const memory = (id, chip, texts) => el("span", { class: "memory" }, chip, el("span", { class: "memtext" }, texts[id]));
  const known = (texts, x) => typeof x === "string" && Object.hasOwn(texts, x);

  function value(v, hits, texts = {}) {
    if (v === null || v === undefined) return el("span", { class: "null" }, "—");
    if (typeof v === "string") {
      if (v.length > 120 || v.includes("\n")) return el("span", { class: "text" }, v);
      if (known(texts, v)) return memory(v, el("span", { class: hits.has(v) ? "chip hit" : "chip" }, v), texts);
      return hits.has(v) ? el("span", { class: "chip hit" }, v) : document.createTextNode(v);
    }
    if (scalar(v)) return document.createTextNode(format(v));
    if (Array.isArray(v)) {
      if (!v.length) return el("span", { class: "null" }, "none");
      if (v.every(scalar)) return el("span", {}, ...v.map((x) => {
        const chip = el("span", { class: hits.has(x) ? "chip hit" : "chip" }, format(x));
        return known(texts, x) ? memory(x, chip, texts) : chip;
      }));
      if (v.every((x) => Array.isArray(x) && x.every(scalar)))
        return el("span", {}, ...v.map((x) => el("span", { class: hits.has(x[0]) ? "chip hit" : "chip" }, x.map(format).join(" "))));
      if (v.every((x) => x && typeof x === "object" && !Array.isArray(x))) return table(v, hits, texts);
      return el("span", {}, ...v.map((x) => value(x, hits, texts)));
    }
    return dl(v, hits, [], texts);
  }

  function table(list, hits, texts = {}) {
    const keys = [...new Set(list.flatMap(Object.keys))];
    return el("div", { class: "scroll" }, el("table", {},
      el("thead", {}, el("tr", {}, ...keys.map((k) => el("th", {}, k)))),
      el("tbody", {}, ...list.map((x) => el("tr", {}, ...keys.map((k) => el("td", {}, value(x[k], hits, texts))))))));
  }

  function dl(object, hits, first = [], texts = {}) {
    const keys = Object.keys(object);
    const ordered = [...first.filter((k) => keys.includes(k)), ...keys.filter((k) => !first.includes(k))];
    const marked = (k) => (k === "expected" ? new Set() : hits);  // marks show what was found, not the wish list
    return el("dl", {}, ...ordered.flatMap((k) => [el("dt", {}, k), el("dd", {}, value(object[k], marked(k), texts))]));
  }

  function itemPanel(i) {
    const item = data.items[i];
    const row = rows[i];
    const rest = { ...item };
    const reasons = Array.isArray(item.reasons) ? item.reasons : [];
    delete rest.reasons;
    return el("div", { "data-index": i },
      el("h3", {}, el("span", { class: `verdict v-${row[V]}` }, row[V]), ` ${row[BACKEND]} ${row[MODE]}`),
      reasons.length ? el("ul", { class: "reasons" }, ...reasons.map((r) => el("li", {}, r))) : "",
      dl(rest, expectedOf(item), FIRST, (data.texts || {})[item.suite] || {}));
  }

  function matches(i) {
    const row = rows[i];
    if (state.failed && row[V] !== "fail" && row[V] !== "error") return false;
    if (state.category && row[CATEGORY] !== state.category) return false;
    if (state.mode && row[MODE] !== state.mode) return false;
    if (state.backend && row[BACKEND] !== state.backend) return false;
    if (state.q) {
      if (searchText[i] === undefined)
        searchText[i] = (row.join(" ") + " " + JSON.stringify(data.items[i])).toLowerCase();
      if (!searchText[i].includes(state.q)) return false;
    }
    return true;
  }

  const tbody = document.querySelector("#rows tbody");
  const more = document.getElementById("more");
  function render() {
    const shown = [];
    for (let i = 0; i < rows.length; i++) if (matches(i)) shown.push(i);
    const page = shown.slice(0, state.shown);
    const fragment = document.createDocumentFragment();
    for (const i of page) {
      const row = rows[i];
      const tr = el("tr", { class: open.has(i) ? "row open" : "row", "data-index": i, "data-id": row[ID], "data-verdict": row[V] },
        el("td", {}, el("span", { class: `verdict v-${row[V]}` }, row[V])), el("td", {}, row[ID]), el("td", {}, row[MODE]),
        el("td", {}, row[BACKEND]), el("td", {}, row[CATEGORY]), el("td", { class: "title", title: row[TITLE] }, row[TITLE]));
      fragment.append(tr);
      if (open.has(i)) {
        const siblings = [i, ...byId.get(row[ID]).filter((j) => j !== i)];
        fragment.append(el("tr", { class: "detail" }, el("td", { class: "detail", colspan: 6 },
          el("div", { class: "side" }, ...siblings.map(itemPanel)))));
      }
    }
    tbody.replaceChildren(fragment);
    document.getElementById("count").textContent = `${shown.length} of ${rows.length} shown` +
      (shown.length > page.length ? ` (first ${page.length} listed)` : "");
    more.hidden = shown.length <= page.length;
  }

  function options(select, column) {
    const values = [...new Set(rows.map((r) => r[column]).filter((v) => v !== ""))].sort();
    select.append(...values.map((v) => el("option", { value: v }, v)));
    if (values.length < 2) select.closest("label").hidden = values.length === 0;
  }

  if (tbody) {
    options(document.getElementById("filter-category"), CATEGORY);
    options(document.getElementById("filter-mode"), MODE);
    options(document.getElementById("filter-backend"), BACKEND);
    const bind = (id, key, read) => document.getElementById(id).addEventListener("input", (event) => {
      state[key] = read(event.target); state.shown = PAGE; render();
    });
    bind("filter-failed", "failed", (t) => t.checked);
    bind("filter-category", "category", (t) => t.value);
    bind("filter-mode", "mode", (t) => t.value);
    bind("filter-backend", "backend", (t) => t.value);
    bind("search", "q", (t) => t.value.trim().toLowerCase());
    more.addEventListener("click", () => { state.shown += PAGE; render(); });
    tbody.addEventListener("click", (event) => {
      const tr = event.target.closest("tr.row");
      if (!tr) return;
      const i = Number(tr.dataset.index);
      if (open.has(i)) open.delete(i); else open.add(i);
      render();
    });
    render();
  }

  const sections = document.getElementById("sections");
  for (const [name, v] of Object.entries(data.sections)) {
    const block = el("details", { open: "" }, el("summary", {}, name), value(v, new Set()));
    if (name.startsWith("Report:")) block.removeAttribute("open");
    sections.append(block);
  }
})();
