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
  // what an item's expectations say of each id (the page's `marks`, read from the item by
  // harness/reports/html/marks.py): expected ids found are hits, forbidden ids are drawn as such
  // wherever they show; a tier's own marks hold within the part of the item of that name
  const marksOf = (m) => ({ hit: new Set(m.hit || []), forbidden: new Set(m.forbidden || []),
    tiers: Object.fromEntries(Object.entries(m.tiers || {}).map(([k, t]) => [k, marksOf(t)])) });
  const NONE = marksOf({});
  // the expectation itself: no hits (marks show what was found, not the wish list), forbidden ids as forbidden
  const wishes = (m) => ({ hit: new Set(), forbidden: m.forbidden,
    tiers: Object.fromEntries(Object.entries(m.tiers).map(([k, t]) => [k, wishes(t)])) });
  const within = (marks, key) => Object.hasOwn(marks.tiers, key) ? marks.tiers[key] : marks;
  const FORBIDDEN = "must not surface";
  const chip = (id, marks, text = format(id)) => marks.forbidden.has(id)
    ? el("span", { class: "chip forbidden", title: `${id}: ${FORBIDDEN}` }, text, el("span", { class: "chip-label" }, FORBIDDEN))
    : el("span", { class: marks.hit.has(id) ? "chip hit" : "chip" }, text);

  // a memory id the report holds the text of (belief reports' `memories`): the id, then its text
  const memory = (id, chipped, texts) => el("span", { class: "memory" }, chipped, el("span", { class: "memtext" }, texts[id]));
  const known = (texts, x) => typeof x === "string" && Object.hasOwn(texts, x);
  const marked = (marks, x) => marks.hit.has(x) || marks.forbidden.has(x);

  function value(v, marks, texts = {}) {
    if (v === null || v === undefined) return el("span", { class: "null" }, "—");
    if (typeof v === "string") {
      if (v.length > 120 || v.includes("\n")) return el("span", { class: "text" }, v);
      if (known(texts, v)) return memory(v, chip(v, marks), texts);
      return marked(marks, v) ? chip(v, marks) : document.createTextNode(v);
    }
    if (scalar(v)) return document.createTextNode(format(v));
    if (Array.isArray(v)) {
      if (!v.length) return el("span", { class: "null" }, "none");
      if (v.every(scalar)) return el("span", {}, ...v.map((x) => known(texts, x) ? memory(x, chip(x, marks), texts) : chip(x, marks)));
      if (v.every((x) => Array.isArray(x) && x.every(scalar)))
        return el("span", {}, ...v.map((x) => chip(x[0], marks, x.map(format).join(" "))));
      if (v.every((x) => x && typeof x === "object" && !Array.isArray(x))) return table(v, marks, texts);
      return el("span", {}, ...v.map((x) => value(x, marks, texts)));
    }
    return dl(v, marks, [], texts);
  }

  function table(list, marks, texts = {}) {
    const keys = [...new Set(list.flatMap(Object.keys))];
    return el("div", { class: "scroll" }, el("table", {},
      el("thead", {}, el("tr", {}, ...keys.map((k) => el("th", {}, k)))),
      el("tbody", {}, ...list.map((x) => el("tr", {}, ...keys.map((k) => el("td", {}, value(x[k], marks, texts))))))));
  }

  function dl(object, marks, first = [], texts = {}) {
    const keys = Object.keys(object);
    const ordered = [...first.filter((k) => keys.includes(k)), ...keys.filter((k) => !first.includes(k))];
    const inner = (k) => within(k === "expected" ? wishes(marks) : marks, k);
    return el("dl", {}, ...ordered.flatMap((k) => [el("dt", {}, k), el("dd", {}, value(object[k], inner(k), texts))]));
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
      dl(rest, (data.marks || [])[i] ? marksOf(data.marks[i]) : NONE, FIRST, (data.texts || {})[item.suite] || {}));
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
    const block = el("details", { open: "" }, el("summary", {}, name), value(v, NONE));
    if (name.startsWith("Report:")) block.removeAttribute("open");
    sections.append(block);
  }
})();
