// The lobby: presets (GET /api/presets); Play now (POST /api/play: a table of the chosen game
// with bots in the other seats, the player seated and the match started, in one tap); create a
// table (POST /api/tables: the creator keeps the answer's host token as the table's token, so
// the table page says hello as the host), the open tables a page at a time
// (GET /api/tables?offset=&limit=) and the finished matches (GET /api/matches). The game and
// players menus start at the game last played here (lastgame.js); on a phone the other options
// are folded under "More options" so that Play now, the game and the players fit the screen.
// A logged-in person also finds "Rated" there: Create table then makes a rated table
// (room.rated, no bots: docs/protocol.md, *Accounts*); Play now always seats bots.

import { who } from "./account-link.js";
import { api, displayName, gameTitle, h, localName } from "./common.js";
import { has, t, translatePage } from "./i18n.js";
import { lastGame, rememberGame } from "./lastgame.js";
import { formWords, optionFields, packsFor, readOptionValues, readRoom, same } from "./options.js";
import { mountSettings, rulesDialog } from "./settings.js";

const $ = (id) => document.getElementById(id);
const NAME_KEY = "shangyou.name";
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
  const last = lastGame();        // the game last played here (a first visit: Pagat for 4)
  if (presets.some((p) => p.name === last.game)) sel.value = last.game;
  const keep = sel.dataset.keep;
  if (keep && presets.some((p) => p.name === keep)) sel.value = keep;
  const wanted = new URLSearchParams(location.search).get("game");
  if (wanted && presets.some((p) => p.name === wanted)) sel.value = wanted;
  const players = $("players");
  if (!players.dataset.keep && sel.value === last.game) players.dataset.keep = String(last.players);
  onPreset();
  delete sel.dataset.keep;
  delete players.dataset.keep;
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
  box.append(...optionFields(d));
  fitPacks();
  playNote();
}

/** What Play now starts: the game, the players, the bots. */
function playNote() {
  const p = currentPreset();
  if (!p) return;
  const bots = $("bots");
  const level = bots.value;
  $("play-now-note").textContent = t("lobby.playNowNote", {
    game: gameTitle(p.name), n: Number($("players").value) - 1,
    level: has(`bot.${level}`) ? t(`bot.${level}`) : level });
}

/** Offer only the numbers of packs the preset allows for the chosen number of players. */
function fitPacks() {
  const p = currentPreset();
  const old = $("opt-decks");
  if (!p || !old) return;
  const allowed = packsFor(p.name, $("players").value);
  if (!allowed) return;
  const was = Number(old.value);
  const keep = allowed.includes(was) ? was : allowed.includes(p.defaults.decks) ? p.defaults.decks : allowed[0];
  const sel = h("select", { id: "opt-decks", dataset: { option: "decks", type: "int" } },
    ...allowed.map((n) => h("option", { value: String(n), selected: n === keep ? true : undefined }, String(n))));
  old.replaceWith(sel);
}

function readOptions() {
  const d = currentPreset().defaults || {};
  const out = {};
  for (const [name, v] of Object.entries(readOptionValues($("options")))) {
    if (!same(v, d[name])) out[name] = v;
  }
  return out;
}

/** Play now: a table of this game with bots, seated and started (POST /api/play). */
async function onPlayNow() {
  const err = $("create-error");
  err.textContent = "";
  const btn = $("play-now");
  btn.disabled = true;
  btn.setAttribute("aria-busy", "true");
  try {
    const p = currentPreset();
    const read = readRoom(document, "room");
    const body = {
      game: p.name,
      players: Number($("players").value),
      options: readOptions(),
      bots: $("bots").value,
      // a table of one person and bots is link only: bot matches do not fill the open tables
      room: { turn_timer: read.turn_timer, listed: false, ...("grace" in read ? { grace: read.grace } : {}) },
    };
    let name = "";
    try { name = (localStorage.getItem(NAME_KEY) || "").trim().slice(0, 24); } catch { /* private mode */ }
    if (name) body.name = name;
    const res = await api("/api/play", { method: "POST", body });
    try { localStorage.setItem(`shangyou.token.${res.table_id}`, res.token); } catch { /* private mode */ }
    rememberGame(body.game, body.players);
    location.href = res.url && res.url.startsWith("/") ? res.url
      : `/t/${encodeURIComponent(res.table_id)}`;
  } catch (ex) {
    err.textContent = formWords(ex.message || String(ex));
    btn.disabled = false;
    btn.removeAttribute("aria-busy");
  }
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
    const read = readRoom(document, "room");
    const room = {};
    if (rated()) {
      room.rated = true;              // people with accounts only: no bots' level to send
      delete body.bots;
    }
    if (read.turn_timer) room.turn_timer = read.turn_timer;
    if ("grace" in read) room.grace = read.grace;
    if (!read.listed) room.listed = false;        // listed is the default
    if (Object.keys(room).length) body.room = room;
    const res = await api("/api/tables", { method: "POST", body });
    rememberGame(body.game, body.players);
    if (res.host_token && res.table_id) {
      // the host's secret: the table page says hello with it (as with a seat token)
      try { localStorage.setItem(`shangyou.token.${res.table_id}`, res.host_token); } catch { /* private mode */ }
    }
    location.href = res.url && res.url.startsWith("/") ? res.url
      : `/t/${encodeURIComponent(res.table_id)}`;
  } catch (ex) {
    err.textContent = formWords(ex.message || String(ex));
    btn.disabled = false;
  }
}

/** Whether the Rated box is shown (a logged-in person) and ticked. */
function rated() {
  return !$("room-rated-field").hidden && $("room-rated").checked;
}

/** Show the Rated choice to a logged-in person; a rated table has no bots to choose. */
async function offerRated() {
  const me = await who;
  $("room-rated-field").hidden = !me;
  $("room-rated-note").hidden = !me;
  $("room-rated").addEventListener("change", () => { $("bots").disabled = rated(); });
}

function seatSummary(seats, host = null) {
  const taken = seats.filter((s) => s.kind !== "empty");
  const names = taken.map((s) => (displayName(s) || "?") + (s.seat === host ? ` ${t("lobby.hostMark")}` : ""));
  return t("lobby.seated", { n: taken.length, m: seats.length }) + (names.length ? ": " + names.join(", ") : "");
}

let lastTables = null;
let lastMatches = null;
const PAGE = 20;                 // tables a page
let tablesOffset = 0;
let tablesTicket = 0;            // the latest request: an older answer arriving late is dropped

async function loadTables() {
  let data;
  const ticket = ++tablesTicket;
  try {
    data = await api(`/api/tables?offset=${tablesOffset}&limit=${PAGE}`);
  } catch (ex) {
    if (ticket !== tablesTicket) return;
    $("tables").replaceChildren(h("li", { class: "muted" }, t("lobby.errTables", { msg: ex.message })));
    return;
  }
  if (ticket !== tablesTicket) return;
  // a page {tables, total, offset, limit}; an older server answers with the plain list
  lastTables = Array.isArray(data)
    ? { tables: data, total: data.length, offset: 0, limit: data.length, paged: false }
    : { tables: data.tables || [], total: Number(data.total) || 0, offset: Number(data.offset) || 0,
        limit: Number(data.limit) || PAGE, paged: true };
  if (lastTables.paged && !lastTables.tables.length && tablesOffset > 0 && lastTables.total > 0) {
    // the tables of this page are gone: back to the last page there is
    tablesOffset = Math.max(0, Math.floor((lastTables.total - 1) / PAGE) * PAGE);
    loadTables();
    return;
  }
  showTables();
}

function turnPage(step) {
  tablesOffset = Math.max(0, tablesOffset + step * PAGE);
  loadTables();
}

function showPager() {
  const p = lastTables;
  const pager = $("tables-pager");
  const many = p && p.paged && (p.total > p.tables.length || p.offset > 0);
  pager.hidden = !many;
  if (!many) return;
  $("tables-range").textContent = t("lobby.range", {
    a: p.tables.length ? p.offset + 1 : 0, b: p.offset + p.tables.length, n: p.total });
  $("tables-prev").disabled = p.offset <= 0;
  $("tables-next").disabled = p.offset + p.tables.length >= p.total;
}

function showTables() {
  const ul = $("tables");
  if (!lastTables) return;
  const tables = lastTables.tables;
  showPager();
  if (!tables.length) {
    ul.replaceChildren(h("li", { class: "muted" }, t("lobby.none")));
    return;
  }
  ul.replaceChildren(...tables.map((tb) => {
    const free = (tb.seats || []).some((s) => s.kind === "empty");
    const action = tb.status === "waiting" && free ? t("lobby.join") : t("lobby.watch");
    return h("li", { dataset: { table: tb.table_id } },
      h("span", { class: "item-text" }, h("strong", {}, gameTitle(tb.game)), ` · ${t("lobby.nPlayers", { n: tb.players })} · `,
        has(`status.${tb.status}`) ? t(`status.${tb.status}`) : tb.status, " · ", seatSummary(tb.seats || [], tb.host)),
      h("a", { class: "button", href: `/t/${encodeURIComponent(tb.table_id)}` }, action));
  }));
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
    playNote();
  } });
  const openRules = rulesDialog(() => {
    const p = currentPreset();
    return p && { game: p.name, defaults: p.defaults, options: null };
  });
  $("lobby-rules").addEventListener("click", openRules);
  $("game").addEventListener("change", onPreset);
  $("players").addEventListener("change", () => { fitPacks(); playNote(); });
  $("bots").addEventListener("change", playNote);
  $("play-now").addEventListener("click", onPlayNow);
  // a wide screen has room for every option; a phone folds them under "More options"
  if (window.matchMedia && window.matchMedia("(min-width: 760px)").matches) $("more-options").open = true;
  $("create-form").addEventListener("submit", onCreate);
  $("refresh").addEventListener("click", () => { loadTables(); loadMatches(); });
  $("tables-prev").addEventListener("click", () => turnPage(-1));
  $("tables-next").addEventListener("click", () => turnPage(1));
  loadTables();
  loadMatches();
  offerRated();
  setInterval(() => { if (!document.hidden) { loadTables(); loadMatches(); } }, 5000);
  try {
    presets = await api("/api/presets");
    fillPresets();
    $("play-now").disabled = false;         // Play now needs a game to start
  } catch (ex) {
    $("create-error").textContent = t("lobby.errGames", { msg: ex.message });
  }
  addBotLevels($("bots"));
}

// levels of other installed packages (GET /api/bots) join the built-in ones
async function addBotLevels(select) {
  try {
    const { levels } = await api("/api/bots");
    const have = new Set([...select.options].map((o) => o.value));
    for (const lvl of levels) if (!have.has(lvl)) select.append(h("option", { value: lvl }, lvl));
  } catch (ex) { /* the built-in levels stay */ }
}

init();
