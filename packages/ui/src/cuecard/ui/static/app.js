// cuecard review UI: a little progressive JavaScript. Pages are server-rendered and readable
// without it; every change is sent as JSON with the page's token, and every answer is shown.
"use strict";

const TOKEN = document.querySelector('meta[name="cuecard-token"]').content;

function flash(message, kind) {
  const box = document.getElementById("flash");
  box.textContent = message;
  box.className = "flash " + (kind || "ok");
  box.hidden = false;
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Cuecard-Token": TOKEN },
    body: JSON.stringify(body || {}),
  });
  let data = {};
  try { data = await response.json(); } catch (e) { data = { message: "the server's answer was not JSON" }; }
  return { status: response.status, data: data };
}

function describe(result) {
  const d = result.data;
  if (d.errors) return d.errors.map(e => (e.field === "(record)" ? "" : e.field + ": ") + e.message).join("; ");
  return d.message || d.error || ("HTTP " + result.status);
}

// Remember a message (and its kind) across the reload that follows a change.
function reloadWith(message, kind) {
  sessionStorage.setItem("cuecard-flash", message);
  sessionStorage.setItem("cuecard-flash-kind", kind || "ok");
  window.location.reload();
}

const saved = sessionStorage.getItem("cuecard-flash");
if (saved) {
  const kind = sessionStorage.getItem("cuecard-flash-kind") || "ok";
  sessionStorage.removeItem("cuecard-flash");
  sessionStorage.removeItem("cuecard-flash-kind");
  flash(saved, kind);
}

// Buttons carrying data-post: confirm when asked, send, report, reload.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-post]");
  if (!button) return;
  const question = button.dataset.confirm;
  if (question && !window.confirm(question)) { flash("Nothing changed.", "note"); return; }
  button.disabled = true;
  const result = await post(button.dataset.post, JSON.parse(button.dataset.body || "{}"));
  button.disabled = false;
  if (result.status === 200) {
    let message = result.data.message;
    if (result.data.refused && result.data.refused.length) {
      message += ". Refused: " + result.data.refused.map(r => (r.title || r.id) + " (" + r.reasons.join("; ") + ")").join(", ");
    }
    const warnings = result.data.warnings || [];  // what the vault had to say: a lock wait, a mirror
    if (warnings.length) message += ". " + warnings.join(" ");
    reloadWith(message, warnings.length ? "note" : "ok");
  } else {
    flash("Refused: " + describe(result), "error");
  }
});

// ---- the memory page: edit form, clauses, dry run -------------------------------------------

function linesOf(text) { return text.split("\n").map(s => s.trim()).filter(Boolean); }

function renumber() {
  document.querySelectorAll("#clauses fieldset.clause").forEach((set, i) => {
    set.dataset.field = "triggers[" + i + "]";
    set.querySelector("legend").textContent = "Clause " + (i + 1);
    set.querySelector(".remove-clause").textContent = "Remove clause " + (i + 1);
    set.querySelectorAll("[data-field]").forEach(el => {
      el.dataset.field = el.dataset.field.replace(/^triggers\[\d+\]/, "triggers[" + i + "]");
    });
    set.querySelectorAll("[data-error-for]").forEach(el => {
      el.dataset.errorFor = el.dataset.errorFor.replace(/^triggers\[\d+\]/, "triggers[" + i + "]");
    });
  });
}

function triggersOf(form) {
  return Array.from(form.querySelectorAll("#clauses fieldset.clause")).map(set => {
    const clause = { on: Array.from(set.querySelectorAll('input[name="on"]:checked')).map(i => i.value) };
    for (const dim of ["paths", "symbols", "commands", "keywords"]) {
      const values = linesOf(set.querySelector('textarea[name="' + dim + '"]').value);
      if (values.length) clause[dim] = values;
    }
    return clause;
  });
}

function clearErrors(form) {
  form.querySelectorAll(".field-error").forEach(el => { el.hidden = true; el.textContent = ""; });
  form.querySelectorAll("[aria-invalid]").forEach(el => el.removeAttribute("aria-invalid"));
}

// Show each error next to the field it names, or the nearest enclosing one.
function showErrors(form, errors) {
  let first = null;
  for (const error of errors) {
    let name = error.field;
    let slot = null;
    while (name) {
      slot = form.querySelector('[data-error-for="' + CSS.escape(name) + '"]');
      if (slot) break;
      const shorter = name.replace(/(\[\d+\]|\.[A-Za-z_]+)$/, "");
      if (shorter === name) break;
      name = shorter;
    }
    slot = slot || form.querySelector('[data-error-for="(record)"]');
    slot.textContent = (slot.textContent ? slot.textContent + " " : "") + error.message;
    slot.hidden = false;
    const input = form.querySelector('[data-field="' + CSS.escape(name) + '"]');
    if (input) { input.setAttribute("aria-invalid", "true"); first = first || input; }
    first = first || slot;
  }
  if (first && first.focus) first.focus();
}

function parseJsonField(form, name, fallback, errors) {
  const text = form.querySelector('[name="' + name + '"]').value.trim();
  if (!text) return fallback;
  try { return JSON.parse(text); } catch (e) {
    errors.push({ field: name, message: name + " is not valid JSON (" + e.message + ")" });
    return fallback;
  }
}

const form = document.getElementById("edit-form");
if (form) {
  const url = "/api/memories/" + form.dataset.memory;
  const template = document.getElementById("clause-template");
  document.getElementById("add-clause").addEventListener("click", () => {
    const node = template.content.firstElementChild.cloneNode(true);
    document.getElementById("clauses").appendChild(node);
    renumber();
    node.querySelector('input[name="on"]').focus();
  });
  form.addEventListener("click", (event) => {
    const remove = event.target.closest(".remove-clause");
    if (!remove) return;
    remove.closest("fieldset.clause").remove();
    renumber();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(form);
    const errors = [];
    const value = name => form.querySelector('[name="' + name + '"]').value;
    const changes = {
      title: value("title"), topic: value("topic"), kind: value("kind"), batch: value("batch"),
      body: value("body"), not_derivable: value("not_derivable"),
      triggers: triggersOf(form),
      check: parseJsonField(form, "check", null, errors),
      evidence: parseJsonField(form, "evidence", [], errors),
    };
    if (errors.length) { showErrors(form, errors); flash("Not saved: fix the marked fields.", "error"); return; }
    const result = await post(url + "/edit", { changes: changes });
    if (result.status === 200) { reloadWith(result.data.message); return; }
    if (result.data.errors) showErrors(form, result.data.errors);
    flash("Not saved: " + describe(result), "error");
  });
  document.getElementById("dry-run").addEventListener("click", async () => {
    clearErrors(form);
    const result = await post(url + "/dryrun", { triggers: triggersOf(form) });
    const section = document.getElementById("dry-run-section");
    const body = document.getElementById("dry-run-hits");
    body.replaceChildren();
    if (result.status !== 200) {
      if (result.data.errors) showErrors(form, result.data.errors);
      flash("Dry run refused: " + describe(result), "error");
      return;
    }
    section.hidden = false;
    document.getElementById("dry-run-summary").textContent = result.data.message;
    for (const hit of result.data.dryrun.hits.slice().reverse()) {
      const row = document.createElement("tr");
      for (const text of [hit.session.slice(0, 16), hit.event, String(hit.clause + 1), hit.dimension]) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.appendChild(cell);
      }
      body.appendChild(row);
    }
    flash(result.data.message, "ok");
  });
}

// ---- settings ----------------------------------------------------------------------------------

const settings = document.getElementById("settings-form");
if (settings) {
  settings.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearErrors(settings);
    const limit = Number(settings.querySelector('[name="delivery_limit"]').value);
    const result = await post("/api/settings", {
      auto_accept: settings.querySelector('[name="auto_accept"]').checked,
      delivery_limit: limit,
    });
    if (result.status === 200) { reloadWith(result.data.message); return; }
    if (result.data.errors) showErrors(settings, result.data.errors);
    flash("Not saved: " + describe(result), "error");
  });
}
