// detact-service console: a plain-JavaScript client of the public API (GET version, POST parse).
// No framework and no build step; the page's Content-Security-Policy allows only this origin.
"use strict";

(() => {
  const FORMATS = "json,caap,detact";
  const KEY_STORAGE = "detact-api-key";
  const STATE_NAMES = ["selected", "focused", "highlighted", "disabled"];

  const $ = (id) => document.getElementById(id);
  const el = (tag, props = {}, ...children) => {
    const node = document.createElement(tag);
    Object.assign(node, props);
    node.append(...children);
    return node;
  };

  const ui = {
    version: $("version"), profile: $("profile"), task: $("task"), maxElements: $("max-elements"),
    file: $("file"), reparse: $("reparse"), options: $("options"),
    auth: $("auth"), authForm: $("auth-form"), apiKey: $("api-key"), message: $("message"),
    types: $("types"), drop: $("drop"), hint: $("drop-hint"), stage: $("stage"),
    screenshot: $("screenshot"), boxes: $("boxes"),
    search: $("search"), count: $("count"), cutNote: $("cut-note"), table: $("elements"),
    agentTask: $("agent-task"), agentNote: $("agent-note"), agentList: $("agent-list"),
    caap: $("out-caap"), detact: $("out-detact"), json: $("out-json"),
    timings: $("timings"), timingsTotal: $("timings-total"),
  };

  const state = {
    file: null,        // the File being parsed
    imageUrl: null,    // its blob: URL
    response: null,    // the last ParseResponse
    shown: [],         // the elements on display (the response's, cut to max elements)
    hiddenTypes: new Set(),
    request: 0,        // number of the latest parse request; older answers are dropped
  };

  // --- API -----------------------------------------------------------------------------------------

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  function authHeaders() {
    const key = sessionStorage.getItem(KEY_STORAGE);
    return key ? { Authorization: `Bearer ${key}` } : {};
  }

  /** Call the API; resolves to the JSON body, rejects with an ApiError carrying the API's message. */
  async function api(path, options = {}) {
    let response;
    try {
      response = await fetch(path, { ...options, headers: { ...authHeaders(), ...options.headers } });
    } catch (err) {
      throw new ApiError(0, "network_error", `the service could not be reached (${err.message})`);
    }
    const text = await response.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!response.ok) {
      if (response.status === 401) showAuth();
      const error = body && body.error;
      if (error && error.message) throw new ApiError(response.status, error.code, error.message);
      const detail = text.trim().slice(0, 300) || response.statusText || "no details";
      throw new ApiError(response.status, `http_${response.status}`, detail);
    }
    if (body === null || typeof body !== "object") {
      throw new ApiError(response.status, "bad_response", "the service did not answer with JSON");
    }
    return body;
  }

  // --- messages and authentication -----------------------------------------------------------------

  function showMessage(text, isError = false) {
    ui.message.replaceChildren(text);
    ui.message.classList.toggle("error", isError);
    ui.message.hidden = !text;
  }

  function showError(err) {
    if (!(err instanceof ApiError)) {
      console.error(err);
      err = new ApiError(0, "console_error", String(err && err.message ? err.message : err));
    }
    const status = err.status ? ` (HTTP ${err.status})` : "";
    ui.message.replaceChildren(el("code", { textContent: err.code }), ` ${err.message}${status}`);
    ui.message.classList.add("error");
    ui.message.hidden = false;
  }

  function showAuth() {
    ui.auth.hidden = false;
    ui.apiKey.focus();
  }

  ui.authForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = ui.apiKey.value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORAGE, key);
    ui.apiKey.value = "";
    ui.auth.hidden = true;
    showMessage("");
    loadVersion();
    if (state.file) parse();
  });

  // --- profiles ------------------------------------------------------------------------------------

  async function loadVersion() {
    let info;
    try {
      info = await api("version");
    } catch (err) {
      showError(err);
      return;
    }
    ui.version.textContent = `${info.version}${info.device ? ` · ${info.device}` : ""}`;
    const chosen = ui.profile.value;
    const options = [el("option", { value: "", textContent: `server default (${info.default_profile})` })];
    for (const profile of info.profiles || []) {
      options.push(el("option", {
        value: profile.name,
        textContent: profile.available ? profile.name : `${profile.name} (unavailable)`,
        disabled: !profile.available,
        title: profile.reason || profile.description || "",
      }));
    }
    ui.profile.replaceChildren(...options);
    ui.profile.value = chosen;
  }

  // --- input: file picker, drag and drop, paste ----------------------------------------------------

  function setFile(file) {
    if (!file) return;
    state.file = file;
    if (state.imageUrl) URL.revokeObjectURL(state.imageUrl);
    state.imageUrl = URL.createObjectURL(file);
    clearResult();
    ui.screenshot.src = state.imageUrl;
    ui.stage.hidden = false;
    ui.hint.hidden = true;
    ui.reparse.disabled = false;
    parse();
  }

  ui.screenshot.addEventListener("error", () => {
    ui.stage.hidden = true;
    ui.hint.hidden = false;
  });

  ui.file.addEventListener("change", () => {
    setFile(ui.file.files[0]);
    ui.file.value = "";  // choosing the same file again parses it again
  });

  ui.options.addEventListener("submit", (event) => {
    event.preventDefault();
    if (state.file) parse();
  });

  ui.maxElements.addEventListener("change", () => {
    if (state.response) render(state.response);
  });

  document.addEventListener("dragover", (event) => {
    event.preventDefault();
    ui.drop.classList.add("dragging");
  });
  document.addEventListener("dragleave", (event) => {
    if (!event.relatedTarget) ui.drop.classList.remove("dragging");
  });
  document.addEventListener("drop", (event) => {
    event.preventDefault();
    ui.drop.classList.remove("dragging");
    setFile(event.dataTransfer && event.dataTransfer.files[0]);
  });

  document.addEventListener("paste", (event) => {
    const files = event.clipboardData ? [...event.clipboardData.files] : [];
    const image = files.find((file) => file.type.startsWith("image/"));
    if (!image) return;  // plain text pastes into the focused field as usual
    event.preventDefault();
    setFile(image);
  });

  // --- parsing -------------------------------------------------------------------------------------

  function maxElements() {
    const value = Number.parseInt(ui.maxElements.value, 10);
    return Number.isFinite(value) && value > 0 ? value : null;
  }

  async function parse() {
    const request = ++state.request;
    const form = new FormData();
    form.append("image", state.file, state.file.name || "pasted.png");
    form.append("formats", FORMATS);
    if (ui.profile.value) form.append("profile", ui.profile.value);
    if (ui.task.value.trim()) form.append("task", ui.task.value.trim());
    const max = maxElements();
    if (max !== null) form.append("max_elements", String(max));

    document.body.dataset.state = "parsing";
    showMessage(`Parsing ${state.file.name || "the pasted image"}…`);
    try {
      const body = await api("parse", { method: "POST", body: form });
      if (request !== state.request) return;
      render(body);
      showMessage("");
      document.body.dataset.state = "done";
    } catch (err) {
      if (request !== state.request) return;
      showError(err);
      document.body.dataset.state = "error";
    }
  }

  // --- rendering the result ------------------------------------------------------------------------

  function clearResult() {
    state.response = null;
    state.shown = [];
    ui.boxes.replaceChildren();
    ui.types.replaceChildren();
    ui.table.tHead.rows[0].replaceChildren();
    ui.table.tBodies[0].replaceChildren();
    for (const pre of [ui.caap, ui.detact, ui.json]) pre.textContent = "";
    ui.agentList.replaceChildren();
    ui.agentTask.textContent = "";
    ui.timings.replaceChildren();
    ui.timingsTotal.textContent = "";
    ui.count.textContent = "";
    ui.cutNote.hidden = true;
    ui.agentNote.hidden = true;
  }

  function render(body) {
    clearResult();
    state.response = body;
    const elements = Array.isArray(body.elements) ? body.elements : [];
    const max = maxElements();
    state.shown = selectTop(elements, max);
    if (state.shown.length < elements.length) {
      const which = hasRelevance(elements) ? "most relevant" : "first";
      ui.cutNote.textContent = `The API answered with ${elements.length} elements; the ${which} ${max} ` +
        "are shown, cut here in the browser.";
      ui.cutNote.hidden = false;
    }
    drawBoxes(state.shown, body.image);
    renderTypes(state.shown);
    renderTable(state.shown);
    renderAgentView(body, max);
    const text = body.text || {};
    ui.caap.textContent = typeof text.caap === "string" ? text.caap : "";
    ui.detact.textContent = typeof text.detact === "string" ? text.detact : "";
    ui.json.textContent = JSON.stringify(body, null, 2);
    renderTimings(body.timings_ms || {});
    applyFilters();
  }

  const hasRelevance = (elements) => elements.some((e) => typeof e.relevance === "number");

  /** The ``max`` most relevant elements in reading order, ranked as the API's task filter ranks them. */
  function selectTop(elements, max) {
    if (max === null || max >= elements.length) return elements;
    const rank = (e) => (typeof e.relevance === "number" ? -e.relevance : Infinity);
    const order = elements.map((_, i) => i).sort((a, b) => rank(elements[a]) - rank(elements[b]) || a - b);
    const keep = new Set(order.slice(0, max));
    return elements.filter((_, i) => keep.has(i));
  }

  function drawBoxes(elements, image) {
    const width = image && image.width ? image.width : ui.screenshot.naturalWidth || 1;
    const height = image && image.height ? image.height : ui.screenshot.naturalHeight || 1;
    const area = (e) => (e.bbox[2] - e.bbox[0]) * (e.bbox[3] - e.bbox[1]);
    // Large boxes first, so smaller ones lie on top and stay clickable.
    const ordered = [...elements].sort((a, b) => area(b) - area(a));
    const boxes = ordered.map((element) => {
      const [x1, y1, x2, y2] = element.bbox;
      const box = el("div", { className: "box", title: describe(element) },
        el("span", { className: "num", textContent: String(element.id) }));
      box.dataset.id = element.id;
      box.dataset.type = element.type;
      box.style.left = `${(100 * x1) / width}%`;
      box.style.top = `${(100 * y1) / height}%`;
      box.style.width = `${(100 * (x2 - x1)) / width}%`;
      box.style.height = `${(100 * (y2 - y1)) / height}%`;
      box.addEventListener("click", () => select(element.id, "row"));
      return box;
    });
    ui.boxes.replaceChildren(...boxes);
  }

  function renderTypes(elements) {
    const counts = new Map();
    for (const element of elements) counts.set(element.type, (counts.get(element.type) || 0) + 1);
    const toggles = [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([type, count]) => {
      const input = el("input", { type: "checkbox", checked: !state.hiddenTypes.has(type) });
      input.dataset.type = type;
      input.addEventListener("change", () => {
        if (input.checked) state.hiddenTypes.delete(type);
        else state.hiddenTypes.add(type);
        applyFilters();
      });
      const swatch = el("span", { className: "swatch" });
      swatch.dataset.type = type;
      return el("label", {}, input, swatch, `${type} (${count})`);
    });
    ui.types.replaceChildren(...toggles);
  }

  function stateText(elementState) {
    if (!elementState) return "";
    const parts = [];
    if (elementState.checked !== null && elementState.checked !== undefined) {
      parts.push(elementState.checked ? "checked" : "unchecked");
    }
    for (const name of STATE_NAMES) if (elementState[name]) parts.push(name);
    return parts.join(", ");
  }

  function describe(element) {
    const label = element.text ? ` "${element.text}"` : element.icon ? ` (${element.icon})` : "";
    return `${element.id}: ${element.type}${label}`;
  }

  function renderTable(elements) {
    const relevance = hasRelevance(elements);
    const columns = ["id", "type", "text", "icon", "colour", "state", "score"];
    if (relevance) columns.push("relevance");
    ui.table.tHead.rows[0].replaceChildren(...columns.map((name) => el("th", { textContent: name })));
    const rows = elements.map((element) => {
      const chip = el("span", { className: "chip", textContent: element.type });
      chip.dataset.type = element.type;
      const cells = [
        el("td", { className: "num", textContent: String(element.id) }),
        el("td", {}, chip),
        el("td", { className: "text", textContent: element.text || "" }),
        el("td", { textContent: element.icon || "" }),
        el("td", { textContent: element.color || "" }),
        el("td", { textContent: stateText(element.state) }),
        el("td", { className: "num", textContent: formatNumber(element.score) }),
      ];
      if (relevance) cells.push(el("td", { className: "num", textContent: formatNumber(element.relevance) }));
      const row = el("tr", {}, ...cells);
      row.dataset.id = element.id;
      row.dataset.type = element.type;
      row.addEventListener("mouseenter", () => hover(element.id, true));
      row.addEventListener("mouseleave", () => hover(element.id, false));
      row.addEventListener("click", () => select(element.id, "box"));
      return row;
    });
    ui.table.tBodies[0].replaceChildren(...rows);
  }

  function formatNumber(value) {
    return typeof value === "number" ? value.toFixed(2) : "";
  }

  const lineId = (line) => {
    const match = /^- ID: element_(\d+),/.exec(line);
    return match ? Number(match[1]) : null;
  };

  /** What the agent is given for the task, in order: the caap lines of the elements on display. */
  function renderAgentView(body, max) {
    const task = body.task || ui.task.value.trim();
    ui.agentTask.textContent = task ? `Task: ${task}` : "No task given: the agent gets every element.";
    const caap = body.text && typeof body.text.caap === "string" ? body.text.caap : "";
    const lines = caap.split("\n").filter((line) => line.trim());
    const shown = new Set(state.shown.map((e) => e.id));
    const given = lines.filter((line) => lineId(line) === null || shown.has(lineId(line)));
    if (given.length < lines.length) {
      ui.agentNote.textContent =
        `${lines.length} caap lines; the agent gets ${given.length} (max elements: ${max}).`;
      ui.agentNote.hidden = false;
    }
    const items = given.map((line) => {
      const item = el("li", { textContent: line });
      const id = lineId(line);
      if (id !== null) {
        item.addEventListener("mouseenter", () => hover(id, true));
        item.addEventListener("mouseleave", () => hover(id, false));
        item.addEventListener("click", () => select(id, "box"));
      }
      return item;
    });
    ui.agentList.replaceChildren(...items);
  }

  function renderTimings(timings) {
    const stages = Object.entries(timings).filter(([name, ms]) => name !== "total" && typeof ms === "number");
    const longest = Math.max(1, ...stages.map(([, ms]) => ms));
    const cells = [];
    for (const [name, ms] of stages) {
      const fill = el("div", { className: "fill" });
      fill.style.width = `${(100 * ms) / longest}%`;
      cells.push(
        el("span", { textContent: name }),
        el("div", { className: "track" }, fill),
        el("span", { className: "ms", textContent: `${ms.toFixed(1)} ms` }),
      );
    }
    ui.timings.replaceChildren(...cells);
    ui.timingsTotal.textContent = typeof timings.total === "number"
      ? `Pipeline total: ${timings.total.toFixed(1)} ms` : "";
  }

  // --- linking boxes and rows ----------------------------------------------------------------------

  const boxOf = (id) => ui.boxes.querySelector(`.box[data-id="${id}"]`);
  const rowOf = (id) => ui.table.tBodies[0].querySelector(`tr[data-id="${id}"]`);

  function hover(id, on) {
    for (const node of [boxOf(id), rowOf(id)]) if (node) node.classList.toggle("hover", on);
  }

  /** Select an element: highlight its box and row, and scroll the other side ("box" or "row") to it. */
  function select(id, scrollTo) {
    for (const node of document.querySelectorAll(".box.selected, tr.selected")) {
      node.classList.remove("selected");
    }
    const box = boxOf(id);
    const row = rowOf(id);
    if (box) box.classList.add("selected");
    if (row) row.classList.add("selected");
    const target = scrollTo === "box" ? box : row;
    if (scrollTo === "row") showTab("elements");
    if (target) target.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  // --- filters: type toggles and search ------------------------------------------------------------

  function applyFilters() {
    const query = ui.search.value.trim().toLowerCase();
    let visible = 0;
    for (const row of ui.table.tBodies[0].rows) {
      const show = !state.hiddenTypes.has(row.dataset.type) &&
        (!query || row.textContent.toLowerCase().includes(query));
      row.hidden = !show;
      if (show) visible += 1;
    }
    for (const box of ui.boxes.children) box.hidden = state.hiddenTypes.has(box.dataset.type);
    const total = state.shown.length;
    ui.count.textContent = total ? `${visible} of ${total} elements` : "";
  }

  ui.search.addEventListener("input", applyFilters);

  // --- tabs and copy buttons -----------------------------------------------------------------------

  const tabs = [...document.querySelectorAll('[role="tab"]')];

  function showTab(name) {
    for (const tab of tabs) {
      const active = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", String(active));
      $(`tab-${tab.dataset.tab}`).hidden = !active;
    }
  }

  for (const tab of tabs) tab.addEventListener("click", () => showTab(tab.dataset.tab));

  async function copyText(text) {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const area = el("textarea", { value: text });
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
  }

  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", async () => {
      await copyText($(button.dataset.copy).textContent);
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 1200);
    });
  }

  loadVersion();
})();
