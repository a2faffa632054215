// The lobby: presets (GET /api/presets), create a table (POST /api/tables), the open tables
// (GET /api/tables) and the finished matches (GET /api/matches).

import { api, displayName, gameTitle, h, localName } from "./common.js";
import { has, t, translatePage } from "./i18n.js";
import { mountSettings, optionDescription, rulesDialog } from "./settings.js";

const $ = (id) => document.getElementById(id);
let presets = [];

function familyOf(p) {
  if (p.game) return String(p.game).split("/")[0];
  return String(p.name).split("/")[0];
}

function currentPreset() {
  return presets.find((p) => p.name === $("game").value) || presets[0];
}

function fillPresets() {
  const sel = $("game");
  sel.replaceChildren();
  const groups = new Map();
  for (const p of presets) {
    const fam = familyOf(p);
    if (!groups.has(fam)) groups.set(fam, h("optgroup", { label: has(`family.${fam}`) ? t(`family.${fam}`) : fam }));
    groups.get(fam).append(h("option", { value: p.name }, gameTitle(p.name)));
  }
  for (const g of groups.values()) sel.append(g);
  const keep = sel.dataset.keep;
  if (keep && presets.some((p) => p.name === keep)) sel.value = keep;
  const wanted = new URLSearchParams(location.search).get("game");
  if (wanted && presets.some((p) => p.name === wanted)) sel.value = wanted;
  onPreset();
}

function onPreset() {
  const p = currentPreset();
  if (!p) return;
  const players = $("players");
  players.replaceChildren(...p.players.map((n) => h("option", { value: String(n) }, String(n))));
  const d = p.defaults || {};
  const keepN = players.dataset.keep;
  if (keepN && p.players.includes(Number(keepN))) players.value = keepN;
  else if (p.players.includes(d.players)) players.value = String(d.players);
  $("game-note").textContent = t("lobby.nPlayers", { n: p.players.join(", ") });
  const box = $("options");
  box.replaceChildren();
  for (const [name, value] of Object.entries(d)) {
    if (name === "players") continue;
    box.append(optionField(name, value));
  }
}

function optionField(name, value) {
  const id = `opt-${name}`;
  const label = optionDescription(name) || name.replace(/_/g, " ");
  if (typeof value === "boolean") {
    return h("label", { class: "field check" },
      h("input", { type: "checkbox", id, dataset: { option: name, type: "bool" },
                   checked: value ? true : undefined }),
      h("span", {}, label));
  }
  let input;
  if (typeof value === "number") {
    input = h("input", { type: "number", id, step: "1", inputmode: "numeric",
                         value: String(value), dataset: { option: name, type: "int" } });
  } else if (Array.isArray(value)) {
    input = h("input", { type: "text", id, value: value.join(", "), placeholder: t("lobby.noneValue"),
                         dataset: { option: name, type: "list" } });
  } else if (value === null || value === undefined) {
    input = h("input", { type: "text", id, value: "", placeholder: t("lobby.auto"),
                         dataset: { option: name, type: "any" } });
  } else {
    input = h("input", { type: "text", id, value: String(value),
                         dataset: { option: name, type: "str" } });
  }
  return h("label", { class: "field" }, h("span", {}, label), input);
}

function readOptions() {
  const p = currentPreset();
  const d = p.defaults || {};
  const out = {};
  for (const input of document.querySelectorAll("#options [data-option]")) {
    const name = input.dataset.option;
    const type = input.dataset.type;
    let v;
    if (type === "bool") v = input.checked;
    else {
      const raw = input.value.trim();
      if (raw === "") {
        if (type === "list") v = [];
        else continue;                     // empty: the preset's default
      } else if (type === "int") {
        const n = Number(raw);
        if (!Number.isInteger(n)) throw new Error(t("lobby.wholeNumber", { name }));
        v = n;
      } else if (type === "list") {
        v = raw.split(/[,\s]+/).filter(Boolean);
      } else if (type === "any") {
        if (/^-?\d+$/.test(raw)) v = Number(raw);
        else if (/^(true|false)$/i.test(raw)) v = raw.toLowerCase() === "true";
        else v = raw;
      } else v = raw;
    }
    if (JSON.stringify(v) !== JSON.stringify(d[name])) out[name] = v;
  }
  return out;
}

async function onCreate(e) {
  e.preventDefault();
  const err = $("create-error");
  err.textContent = "";
  const btn = $("create");
  btn.disabled = true;
  try {
    const body = {
      game: currentPreset().name,
      players: Number($("players").value),
      options: readOptions(),
      bots: $("bots").value,
    };
    const room = {};
    const timer = Number($("room-timer").value || 0);
    const grace = Number($("room-grace").value);
    if (!Number.isInteger(timer) || timer < 0) throw new Error(t("lobby.wholeNumber", { name: t("lobby.timer") }));
    if ($("room-grace").value !== "" && (!Number.isInteger(grace) || grace < 0)) {
      throw new Error(t("lobby.wholeNumber", { name: t("lobby.grace") }));
    }
    if (timer) room.turn_timer = timer;
    if ($("room-grace").value !== "") room.grace = grace;
    if (Object.keys(room).length) body.room = room;
    const res = await api("/api/tables", { method: "POST", body });
    location.href = res.url && res.url.startsWith("/") ? res.url
      : `/t/${encodeURIComponent(res.table_id)}`;
  } catch (ex) {
    err.textContent = ex.message || String(ex);
    btn.disabled = false;
  }
}

function seatSummary(seats) {
  const taken = seats.filter((s) => s.kind !== "empty");
  const names = taken.map((s) => displayName(s) || "?");
  return t("lobby.seated", { n: taken.length, m: seats.length }) + (names.length ? ": " + names.join(", ") : "");
}

let lastTables = null;
let lastMatches = null;

async function loadTables() {
  try {
    lastTables = await api("/api/tables");
  } catch (ex) {
    $("tables").replaceChildren(h("li", { class: "muted" }, t("lobby.errTables", { msg: ex.message })));
    return;
  }
  showTables();
}

function showTables() {
  const ul = $("tables");
  const tables = lastTables;
  if (!tables) return;
  {
    if (!tables.length) {
      ul.replaceChildren(h("li", { class: "muted" }, t("lobby.none")));
      return;
    }
    ul.replaceChildren(...tables.map((tb) => {
      const free = (tb.seats || []).some((s) => s.kind === "empty");
      const action = tb.status === "waiting" && free ? t("lobby.join") : t("lobby.watch");
      return h("li", { dataset: { table: tb.table_id } },
        h("span", { class: "item-text" }, h("strong", {}, gameTitle(tb.game)), ` · ${t("lobby.nPlayers", { n: tb.players })} · `,
          has(`status.${tb.status}`) ? t(`status.${tb.status}`) : tb.status, " · ", seatSummary(tb.seats || [])),
        h("a", { class: "button", href: `/t/${encodeURIComponent(tb.table_id)}` }, action));
    }));
  }
}

function resultText(m) {
  const r = m.result || {};
  const names = m.names || [];
  const nm = (s) => localName(names[s]) || t("t.seatN", { n: s + 1 });
  const w = r.match_winners || r.winners || (r.winner !== undefined && r.winner !== null ? [r.winner] : []);
  if (!w.length) return "";
  return ` · ${t("lobby.wonBy", { names: w.map(nm).join(", ") })}`;
}

async function loadMatches() {
  try {
    lastMatches = await api("/api/matches");
  } catch (ex) {
    $("matches").replaceChildren(h("li", { class: "muted" }, t("lobby.errMatches", { msg: ex.message })));
    return;
  }
  showMatches();
}

function showMatches() {
  const ul = $("matches");
  const matches = lastMatches;
  if (!matches) return;
  {
    if (!matches.length) {
      ul.replaceChildren(h("li", { class: "muted" }, t("lobby.noMatches")));
      return;
    }
    ul.replaceChildren(...matches.map((m) => {
      const when = m.finished_at ? new Date(m.finished_at).toLocaleString() : "";
      return h("li", { dataset: { match: m.match_id } },
        h("span", { class: "item-text" }, h("strong", {}, gameTitle(m.game)), ` · ${t("lobby.nPlayers", { n: m.players })}`,
          when ? ` · ${when}` : "", resultText(m)),
        h("a", { class: "button", href: `/replay/${encodeURIComponent(m.match_id)}` }, t("lobby.replay")));
    }));
  }
}

function translateStatic() {
  translatePage();
  for (const o of $("bots").options) {
    if (has(`bot.${o.value}`)) o.textContent = t(`bot.${o.value}`);
  }
}

async function init() {
  translateStatic();
  mountSettings($("top"), { onLang: () => {
    translateStatic();
    if (presets.length) {
      $("game").dataset.keep = $("game").value;
      $("players").dataset.keep = $("players").value;
      fillPresets();
    }
    showTables();
    showMatches();
  } });
  const openRules = rulesDialog(() => {
    const p = currentPreset();
    return p && { game: p.name, defaults: p.defaults, options: null };
  });
  $("lobby-rules").addEventListener("click", openRules);
  $("game").addEventListener("change", onPreset);
  $("create-form").addEventListener("submit", onCreate);
  $("refresh").addEventListener("click", () => { loadTables(); loadMatches(); });
  loadTables();
  loadMatches();
  setInterval(() => { if (!document.hidden) { loadTables(); loadMatches(); } }, 5000);
  try {
    presets = await api("/api/presets");
    fillPresets();
  } catch (ex) {
    $("create-error").textContent = t("lobby.errGames", { msg: ex.message });
  }
}

init();
