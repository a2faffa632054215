// The puzzle page: a position cut from a bot game where one play is clearly best. The server
// sends the seat's view of it (GET /api/puzzles/next) and checks the answer (POST
// /api/puzzles/{id}/answer): the solution never reaches the page before. The board is the
// table's own parts: the seats, the trick and the facts (view.js), the hand (table-hand.js),
// the plays made of the picked cards (table-moves.js). A guest's puzzle rating and the puzzles
// seen are kept in this browser (localStorage); an account's on the server.

import { who } from "./account-link.js";
import { reasonElement } from "./cards.js";
import { api, gameTitle, h } from "./common.js";
import { lang, t, translatePage } from "./i18n.js";
import { mountSettings } from "./settings.js";
import { drawHand } from "./table-hand.js";
import { moveText, playsMadeOf } from "./table-moves.js";
import { renderInfo, renderSeats, renderTrick } from "./view.js";

const $ = (id) => document.getElementById(id);
const SEEN_MAX = 50;

const P = {
  families: [], puzzle: null, selected: new Set(), focus: 0, answer: null, account: null,
  busy: false, again: false,
};

// ---------------------------------------------------------------- the guest's rating
function stored(key, fallback) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    return v === null ? fallback : v;
  } catch { return fallback; }
}

function store(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode */ }
}

const ratingKey = (f) => `shangyou.puzzles.rating.${f}`;
const seenKey = (f) => `shangyou.puzzles.seen.${f}`;

function guestRating(f) {
  const r = stored(ratingKey(f), null);
  return r && typeof r.mu === "number" && typeof r.sigma === "number" ? r : null;
}

function shown(r) {
  return r ? Math.round(1500 + 40 * (r.mu - 3 * r.sigma)) : 1500;
}

function seen(f) {
  const s = stored(seenKey(f), []);
  return Array.isArray(s) ? s.filter((x) => typeof x === "string") : [];
}

function markSeen(f, id) {
  const s = seen(f).filter((x) => x !== id);
  s.push(id);
  store(seenKey(f), s.slice(-SEEN_MAX));
}

// ------------------------------------------------------------------------- choices
function family() { return $("pz-family").value || "climbing"; }

function fillChoices() {
  const fam = $("pz-family");
  const keep = fam.value || new URLSearchParams(location.search).get("family") || "climbing";
  fam.replaceChildren(...P.families.map((f) => h("option", { value: f.family },
    t(`pz.fam.${f.family}`) + ` (${f.puzzles})`)));
  if (P.families.some((f) => f.family === keep)) fam.value = keep;
  fillThemes();
}

function fillThemes() {
  const sel = $("pz-theme");
  const keep = sel.value || new URLSearchParams(location.search).get("theme") || "";
  const f = P.families.find((x) => x.family === family());
  sel.replaceChildren(h("option", { value: "" }, t("pz.anyTheme")),
    ...(f ? f.themes : []).filter((x) => x.puzzles > 0).map((x) =>
      h("option", { value: x.theme }, `${t(`pz.th.${x.theme}`)} (${x.puzzles})`)));
  if ([...sel.options].some((o) => o.value === keep)) sel.value = keep;
  showRating();
}

function showRating(change) {
  const f = family();
  let text;
  if (P.account) {
    const r = P.puzzle && P.puzzle.player ? P.puzzle.player.rating : null;
    text = r === null ? t("pz.ratingAccount", { name: P.account.username })
      : t("pz.ratingOf", { n: r, name: P.account.username });
  } else {
    text = t("pz.ratingGuest", { n: shown(guestRating(f)) });
  }
  if (change) text += " " + change;
  $("pz-rating").textContent = text;
}

// --------------------------------------------------------------------------- board
function ctx() {
  return { names: [], seats: null, mySeat: P.puzzle ? P.puzzle.seat : null };
}

function selectedCards() {
  const hand = P.puzzle.view.hand || [];
  return [...P.selected].sort((a, b) => a - b).map((i) => hand[i]);
}

function drawBoard() {
  const pz = P.puzzle;
  const view = pz.view;
  const c = ctx();
  $("pz-seats").replaceChildren(renderSeats(view, c));
  $("pz-trick").replaceChildren(renderTrick(view, c));
  $("pz-info").replaceChildren(h("h2", {}, t("f.game")), renderInfo(view, c));
  drawMine();
}

function drawMine() {
  const pz = P.puzzle;
  const done = P.answer !== null;
  drawHand($("hand"), pz.view.hand, {
    selected: P.selected, focusIndex: P.focus, clickable: !done,
    onCard: (i) => {
      if (done) return;
      if (P.selected.has(i)) P.selected.delete(i); else P.selected.add(i);
      P.focus = i;
      $("pz-readings").replaceChildren();
      drawMine();
    },
    onFocus: (i) => { P.focus = i; },
  });
  const made = P.selected.size ? playsMadeOf(pz.plays.filter((m) => m !== "pass"), selectedCards(), pz.view.game) : [];
  $("pz-play").disabled = done || P.busy || !made.length;
  $("pz-pass").hidden = !pz.plays.includes("pass");
  $("pz-pass").disabled = done || P.busy;
  $("pz-clear").disabled = done || !P.selected.size;
}

function play() {
  const made = playsMadeOf(P.puzzle.plays.filter((m) => m !== "pass"), selectedCards(), P.puzzle.view.game);
  if (made.length === 1) { answer(made[0]); return; }
  // one set of cards, several readings: the player says which
  const box = $("pz-readings");
  box.replaceChildren(h("p", {}, t("pz.which")),
    ...made.map((m) => {
      const b = h("button", { type: "button", class: "reading" }, moveText(m));
      b.addEventListener("click", () => answer(m));
      return b;
    }));
}

// ------------------------------------------------------------------------ the server
async function next() {
  if (P.busy) { P.again = true; return; }   // asked again meanwhile: once this one is done
  P.busy = true;
  P.again = false;
  $("pz-alert").textContent = "";
  const f = family();
  const q = new URLSearchParams({ family: f });
  if ($("pz-theme").value) q.set("theme", $("pz-theme").value);
  if (!P.account) {
    q.set("rating", String(Math.max(0, shown(guestRating(f)))));
    const s = seen(f);
    if (s.length) q.set("skip", s.join(","));
  }
  try {
    P.puzzle = await api(`/api/puzzles/next?${q}`);
    document.body.dataset.puzzle = P.puzzle.id;
    P.selected = new Set();
    P.focus = 0;
    P.answer = null;
    $("pz-result").hidden = true;
    $("pz-result").replaceChildren();
    $("pz-readings").replaceChildren();
    $("pz-task").hidden = false;
    $("pz-board").hidden = false;
    P.busy = false;
    showTask();
    drawBoard();
    showRating();
  } catch (e) {
    P.busy = false;
    $("pz-alert").textContent = e.status === 404 ? t("pz.none") : String(e.message || e);
  }
  if (P.again) next();
}

function showTask() {
  const pz = P.puzzle;
  $("pz-prompt").textContent = t("pz.prompt");
  $("pz-about").textContent = t("pz.about", {
    game: gameTitle(pz.preset), players: pz.players, theme: t(`pz.th.${pz.theme}`),
    rating: pz.rating,
  });
}

async function answer(move) {
  if (P.busy || P.answer) return;
  P.busy = true;
  const f = P.puzzle.family;
  const body = { move };
  if (!P.account) {
    const r = guestRating(f);
    if (r) body.guest = r;
    body.rated = !seen(f).includes(P.puzzle.id);
  }
  try {
    P.answer = await api(`/api/puzzles/${encodeURIComponent(P.puzzle.id)}/answer`, { method: "POST", body });
  } catch (e) {
    P.busy = false;
    $("pz-alert").textContent = String(e.message || e);
    drawMine();
    return;
  }
  P.busy = false;
  if (!P.account) {
    if (P.answer.player && P.answer.player.rated) store(ratingKey(f), { mu: P.answer.player.mu, sigma: P.answer.player.sigma });
    markSeen(f, P.puzzle.id);
  }
  showAnswer();
}

function showAnswer() {
  const a = P.answer;
  const box = $("pz-result");
  const fmt = (x) => (x === null || x === undefined ? "–" : Number(x).toFixed(2));
  const rows = a.values.map((v) => h("tr", {
    class: [v.move === a.solution ? "best" : "", v.move === a.move ? "mine" : ""].filter(Boolean).join(" "),
  }, h("td", {}, moveText(v.move)), h("td", { class: "num" }, fmt(v.value)), h("td", { class: "num" }, fmt(v.spread))));
  const unit = t(`pz.unit.${a.unit}`);
  box.replaceChildren(
    h("h2", { class: a.correct ? "pz-right" : "pz-wrong", id: "pz-verdict" },
      a.correct ? t("pz.right") : t("pz.wrong")),
    h("p", {}, t("pz.youPlayed"), " ", moveText(a.move)),
    h("p", { id: "pz-solution" }, t("pz.solution"), " ", moveText(a.solution)),
    h("p", { class: "pz-reason", id: "pz-reason" }, t("pz.why"), " ", reasonElement(a.reason, lang())),
    h("table", { class: "acct-table pz-values" },
      h("caption", {}, t("pz.values", { worlds: a.worlds, unit })),
      h("thead", {}, h("tr", {}, h("th", {}, t("pz.colPlay")), h("th", {}, t("pz.colValue")), h("th", {}, t("pz.colSpread")))),
      h("tbody", {}, ...rows)),
    h("p", { class: "muted" }, t("pz.puzzleRating", { n: a.puzzle_rating })),
  );
  const more = h("button", { type: "button", class: "primary", id: "pz-again" }, t("pz.next"));
  more.addEventListener("click", next);
  box.append(more);
  box.hidden = false;
  let change = "";
  if (a.player && a.player.rated) {
    const d = a.player.rating - a.player.before;
    change = t("pz.change", { before: a.player.before, after: a.player.rating, d: d >= 0 ? `+${d}` : String(d) });
    if (P.puzzle.player) P.puzzle.player.rating = a.player.rating;
  } else if (a.player) {
    change = t("pz.notRated");
  }
  showRating(change);
  drawMine();
  box.scrollIntoView({ block: "nearest" });
}

// ---------------------------------------------------------------------------- start
async function start() {
  translatePage();
  mountSettings($("top"), { onLang: () => { translatePage(); fillChoices(); if (P.puzzle) { showTask(); drawBoard(); } if (P.answer) showAnswer(); } });
  $("pz-family").addEventListener("change", () => { fillThemes(); next(); });
  $("pz-theme").addEventListener("change", next);
  $("pz-next").addEventListener("click", next);
  $("pz-play").addEventListener("click", play);
  $("pz-pass").addEventListener("click", () => answer("pass"));
  $("pz-clear").addEventListener("click", () => { P.selected.clear(); $("pz-readings").replaceChildren(); drawMine(); });
  try {
    const [fams, me] = await Promise.all([api("/api/puzzles/families"), who]);
    P.families = fams.families;
    P.account = me;
  } catch (e) {
    $("pz-alert").textContent = String(e.message || e);
    return;
  }
  fillChoices();
  await next();
  document.body.dataset.ready = "1";
}

start();
