// The analysis board: a position (a finished match's step from the replay page,
// /analysis?match=ID&step=K&seat=S, or one set up here) and the engine's list of its plays,
// from POST /api/analysis (docs/protocol.md, "Analysis"). The position is drawn with the
// components of the table and the replay (view.js renderSeats/renderTrick/renderInfo,
// table-hand.js drawHand, cards.js cardElement); there is no engine in the browser.

import { cardElement, reasonElement, richText } from "./cards.js";
import { api, gameFamily, gameTitle, h } from "./common.js";
import { t, translatePage } from "./i18n.js";
import { mountSettings } from "./settings.js";
import { drawHand } from "./table-hand.js";
import { renderInfo, renderSeats, renderTrick } from "./view.js";

const $ = (id) => document.getElementById(id);
const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"];
const SUITS = ["S", "H", "D", "C"];
const ORDER = new Map([...RANKS.flatMap((r, i) => SUITS.map((s, j) => [r + s, i * 4 + j])),
                       ["BJ", 60], ["RJ", 61]]);

const A = {
  presets: [], game: "zheng-shangyou/pagat", players: 4, seat: 0,
  where: new Map(),          // card -> "hand" | "table" | "played"
  tableSeat: null, counts: [], finished: null, view: null, result: null, source: null,
};

const sortCards = (cards) => [...cards].sort((a, b) => ORDER.get(a) - ORDER.get(b));
const cardsOf = (state) => sortCards([...A.where].filter(([, w]) => w === state).map(([c]) => c));
const target = () => document.querySelector('input[name="target"]:checked').value;

function preset() {
  return A.presets.find((p) => p.name === A.game) || { defaults: {}, players: [4] };
}

function pack() {
  const withJokers = preset().defaults.jokers !== false;
  const cards = SUITS.flatMap((s) => RANKS.map((r) => r + s));
  return withJokers ? cards.concat(["BJ", "RJ"]) : cards;
}

/** The most cards one hand holds: Owen deals 13 each (docs/rules/zheng-shangyou.md), the
 * other climbing games the whole pack. */
function deal() {
  return A.game.endsWith("/owen") ? 13 : Math.ceil(pack().length / A.players);
}

const dealsAll = () => !A.game.endsWith("/owen");

function seatLabel(s, me = A.seat) {
  return s === me ? t("an.seatYou", { n: s + 1 }) : t("an.seatN", { n: s + 1 });
}

// ------------------------------------------------------------------------------ set-up
function fillSelects() {
  const games = $("game");
  games.replaceChildren(...A.presets.map((p) => h("option", { value: p.name }, gameTitle(p.name))));
  games.value = A.game;
  $("players").replaceChildren(...preset().players.map((n) => h("option", { value: String(n) }, String(n))));
  $("players").value = String(A.players);
  const seats = [...Array(A.players).keys()];
  $("seat").replaceChildren(...seats.map((s) => h("option", { value: String(s) }, t("an.seatN", { n: s + 1 }))));
  $("seat").value = String(A.seat);
  $("table-seat").replaceChildren(h("option", { value: "" }, t("an.nobody")),
    ...seats.filter((s) => s !== A.seat).map((s) => h("option", { value: String(s) }, seatLabel(s))));
  $("table-seat").value = A.tableSeat === null || A.tableSeat === A.seat ? "" : String(A.tableSeat);
  fillShengJi(seats);
}

// Sheng ji is set up with words, not taps (two packs hold two of a card): the level, the
// trump, the declarer, the hand, the trick so far (the plays from the leader: the seats
// before yours), every card of the earlier tricks and the opponents' points; Zhao Pengyou
// also the declarer's friend calls and, for each, the seat that answered it (or none yet).
const isShengJi = () => gameFamily(A.game) === "sheng-ji";
const isZhaoPengyou = () => A.game.endsWith("zhao-pengyou");
const callsOf = () => $("zp-calls").value.split(",").map((x) => x.trim()).filter(Boolean);
const LEVELS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

function fillShengJi(seats) {
  $("setup-panel").dataset.family = isShengJi() ? "sheng-ji" : "climbing";
  const keep = (id, opts) => {
    const el = $(id);
    const v = el.value;
    el.replaceChildren(...opts.map(([value, label]) => h("option", { value }, label)));
    if (opts.some(([value]) => value === v)) el.value = v;
  };
  keep("sj-level", LEVELS.map((x) => [x, x]));
  keep("sj-trump", [...SUITS.map((x) => [x, t(`an.sj.suit.${x}`)]), ["", t("an.sj.noTrump")]]);
  keep("sj-declarer", seats.map((s) => [String(s), seatLabel(s)]));
  const plays = $("sj-trick").value.split(",").filter((x) => x.trim()).length;
  $("sj-note").textContent = plays ? t("an.sj.led", { n: ((A.seat - plays) % A.players + A.players) % A.players + 1 })
    : t("an.sj.youLead");
  $("zp-setup").hidden = !isZhaoPengyou();
  fillAnswers(seats);
}

/** One select a friend call: who answered it (played the card called), or nobody yet. The
 * choices made are kept while the calls are edited. */
function fillAnswers(seats) {
  const box = $("zp-answers");
  const before = [...box.querySelectorAll("select")].map((el) => el.value);
  box.replaceChildren(...callsOf().map((call, i) => {
    const sel = h("select", { id: `zp-answer-${i}` }, h("option", { value: "" }, t("an.zp.open")),
      ...seats.map((s) => h("option", { value: String(s) }, seatLabel(s))));
    if (before[i] !== undefined && [...sel.options].some((o) => o.value === before[i])) sel.value = before[i];
    return h("label", { class: "an-line" }, h("span", {}, t("an.zp.answered", { call })), " ", sel);
  }));
}

/** Fill the Sheng ji set-up from a view (a replay step), to change and ask again. */
function shengJiFrom(view) {
  A.game = view.game; A.players = view.players; A.seat = view.seat;
  drawSetup();
  const level = view.level;
  $("sj-level").value = level;
  $("sj-trump").value = view.trump.slice(level.length);
  $("sj-declarer").value = String(view.declarer ?? 0);
  $("sj-hand").value = (view.hand || []).join(" ");
  $("sj-trick").value = (view.trick || []).map(([, c]) => c).join(", ");
  $("sj-played").value = (view.tricks || []).flatMap((tr) => tr.plays.map(([, c]) => c)).join(" ");
  $("sj-points").value = String(view.opponents_points || 0);
  $("zp-calls").value = (view.calls || []).join(", ");
  fillShengJi([...Array(A.players).keys()]);
  (view.call_results || []).forEach((s, i) => {
    const sel = $(`zp-answer-${i}`);
    if (sel) sel.value = s === null || s === undefined ? "" : String(s);
  });
}

function shengJiBody() {
  const plays = $("sj-trick").value.split(",").map((x) => x.trim()).filter(Boolean);
  const n = A.players;
  return {
    game: A.game, players: n, seat: A.seat, hand: $("sj-hand").value.trim(),
    level: $("sj-level").value, trump: $("sj-trump").value || null,
    declarer: Number($("sj-declarer").value),
    trick: plays.map((cards, i) => [((A.seat - plays.length + i) % n + n) % n, cards]),
    played: $("sj-played").value.trim(), points: Number($("sj-points").value) || 0,
    ...(isZhaoPengyou() ? {
      calls: callsOf(),
      call_results: callsOf().map((_, i) => {
        const v = $(`zp-answer-${i}`)?.value ?? "";
        return v === "" ? null : Number(v);
      }),
    } : {}),
  };
}

function drawPack() {
  const box = $("pack");
  box.replaceChildren();
  for (const c of pack()) {
    const b = cardElement(c, { button: true, small: true });
    const w = A.where.get(c) || "";
    b.dataset.state = w;
    b.classList.toggle("selected", w === "hand");
    b.setAttribute("aria-pressed", String(Boolean(w)));
    if (w) b.setAttribute("aria-label", `${b.getAttribute("aria-label")}: ${t(`an.t.${w}`)}`);
    b.addEventListener("click", () => {
      const want = target();
      if (A.where.get(c) === want) A.where.delete(c);
      else A.where.set(c, want);
      if (want === "table" && A.tableSeat === null) A.tableSeat = (A.seat + A.players - 1) % A.players;
      changed();
    });
    box.append(b);
  }
}

function shareCounts() {
  const n = A.players;
  const known = A.where.size;
  const unseen = pack().length - known;
  const others = [...Array(n).keys()].filter((s) => s !== A.seat);
  A.counts = Array(n).fill(0);
  A.counts[A.seat] = cardsOf("hand").length;
  others.forEach((s, i) => {
    A.counts[s] = Math.min(deal(),
      Math.floor(unseen / others.length) + (i < unseen % others.length ? 1 : 0));
  });
  A.finished = null;
}

/** The counts kept as far as they fit: the cards that came or went are taken from (given
 * to) the fullest (emptiest) other hands, so a position from a replay keeps its counts. */
function fitCounts() {
  const n = A.players;
  if (A.counts.length !== n) { shareCounts(); return; }
  const others = [...Array(n).keys()].filter((s) => s !== A.seat);
  A.counts[A.seat] = cardsOf("hand").length;
  let delta = pack().length - A.where.size - others.reduce((x, s) => x + A.counts[s], 0);
  while (delta !== 0) {
    const pick = others.filter((s) => (delta > 0 ? A.counts[s] < deal() : A.counts[s] > 0))
      .sort((a, b) => (delta > 0 ? A.counts[a] - A.counts[b] : A.counts[b] - A.counts[a]))[0];
    if (pick === undefined) break;
    A.counts[pick] += Math.sign(delta);
    delta -= Math.sign(delta);
  }
  if (A.finished && A.finished.some((s) => A.counts[s] > 0)) A.finished = null;
}

function drawCounts() {
  const box = $("counts");
  box.replaceChildren();
  for (let s = 0; s < A.players; s++) {
    const input = h("input", { type: "number", min: "0", max: "54", inputmode: "numeric",
                               id: `count-${s}`, value: String(A.counts[s] ?? 0) });
    if (s === A.seat) input.disabled = true;
    input.addEventListener("change", () => {
      A.counts[s] = Math.max(0, Math.min(54, Number(input.value) || 0));
      A.finished = null;
      drawNote();
    });
    box.append(h("label", { class: "an-count" }, h("span", {}, seatLabel(s)), input));
  }
}

/** How many unseen cards the counts leave in no hand (the whole pack is dealt): they must
 * have been played. */
function unplaced() {
  const others = A.counts.reduce((x, c, s) => x + (s === A.seat ? 0 : c), 0);
  return dealsAll() ? pack().length - A.where.size - others : 0;
}

function drawNote() {
  const n = isShengJi() ? 0 : unplaced();       // the pack's counts are the climbing games
  $("setup-note").textContent = n > 0 ? t("an.unplaced", { n }) : "";
}

function drawSetup() {
  drawNote();
  fillSelects();
  drawPack();
  const table = cardsOf("table");
  $("table-cards").replaceChildren(...(table.length ? [richText(table.join(" "))] : [t("an.leadNote")]));
  const played = cardsOf("played");
  $("played-cards").replaceChildren(played.length ? richText(played.join(" ")) : t("an.noneYet"));
  drawCounts();
}

/** Cards moved: the counts fitted, the board redrawn as the set-up stands. */
function changed() {
  fitCounts();
  drawSetup();
  drawBoard(null);
}

function setupBody() {
  if (isShengJi()) return shengJiBody();
  const table = cardsOf("table");
  const body = {
    game: A.game, players: A.players, seat: A.seat, hand: cardsOf("hand").join(" "),
    table: table.length && A.tableSeat !== null ? { seat: A.tableSeat, cards: table.join(" ") } : null,
    played: cardsOf("played").join(" "), counts: A.counts.slice(0, A.players),
  };
  if (A.finished) body.finished = A.finished;
  return body;
}

/** Fill the set-up from a climbing game's view (a replay step), to change and ask again. */
function setupFrom(view) {
  A.game = view.game; A.players = view.players; A.seat = view.seat;
  A.where = new Map();
  for (const c of view.hand || []) A.where.set(c, "hand");
  const plays = (view.played || []).flat().concat(view.trick || []);
  const last = view.last;
  for (const [, text] of plays) {
    if (text === "pass") continue;
    for (const c of text.split(/\s+/)) if (ORDER.has(c)) A.where.set(c, "played");
  }
  A.tableSeat = null;
  if (last && last.seat !== view.seat) {
    A.tableSeat = last.seat;
    for (const c of last.cards.split(/\s+/)) if (ORDER.has(c)) A.where.set(c, "table");
  }
  A.counts = [...view.counts];
  A.finished = (view.finished || []).length ? [...view.finished] : null;
}

// ------------------------------------------------------------------------------ board
function drawBoard(view) {
  A.view = view;
  if (!view && isShengJi()) {           // nothing to draw until the server built the view
    $("seats-panel").replaceChildren(); $("trick-panel").replaceChildren(); $("hand").replaceChildren();
    return;
  }
  const shown = view || {
    game: A.game, players: A.players, seat: A.seat, phase: "play", to_act: A.seat,
    hand: cardsOf("hand"), counts: A.counts,
    trick: cardsOf("table").length && A.tableSeat !== null ? [[A.tableSeat, cardsOf("table").join(" ")]] : [],
    played: [], finished: [], scores: Array(A.players).fill(0),
  };
  // the view's own seat is "you" (a replay step's view comes before the set-up takes its seat)
  const ctx = { names: [...Array(shown.players).keys()].map((s) => seatLabel(s, shown.seat)), seats: null,
                mySeat: shown.seat, replay: true };
  $("seats-panel").replaceChildren(renderSeats(shown, ctx));
  $("trick-panel").replaceChildren(renderTrick(shown, ctx));
  if (view) $("seats-panel").append(renderInfo(view, ctx));
  const hand = shown.hand || [];
  const clickable = gameFamily(shown.game) !== "sheng-ji";
  drawHand($("hand"), hand, {
    selected: new Set(), focusIndex: 0, clickable,
    // a card of the hand tapped goes back to the unseen cards
    onCard: (i) => { if (clickable) { A.where.delete(hand[i]); changed(); } },
    onFocus: () => {},
  });
}

function showResult(a) {
  A.result = a;
  const rows = $("result-rows");
  rows.replaceChildren();
  if (!a) {
    $("result-table").hidden = true;
    $("result-note").textContent = t("an.none");
    return;
  }
  const unit = t(`an.unit.${a.unit}`);
  const which = a.plays === "all" ? t("an.allPlays", { n: a.listed })
    : a.plays === "capped" ? t("an.capped", { n: a.listed, legal: a.legal })
      : t("an.candidates", { n: a.listed, legal: a.legal });
  $("result-note").textContent = t("an.note", { which, worlds: a.worlds, unit });
  const lang = document.documentElement.lang === "zh-CN" ? "zh" : "en";
  const fmt = (x) => (Math.round(x * 100) / 100).toFixed(2);
  a.rows.forEach((r, i) => {
    rows.append(h("tr", { class: i === 0 ? "best" : "", dataset: { play: r.play } },
      h("td", { class: "an-play" }, r.play === "pass" ? t("c.passes") : richText(r.play, [r.play]),
        r.heuristic ? h("span", { class: "tag" }, t("an.heur")) : null),
      h("td", { class: "an-value" }, fmt(r.mean),
        i > 0 ? h("div", { class: "muted" }, t("an.behind", { x: fmt(r.behind) })) : null),
      h("td", { class: "an-spread" }, t("an.sd", { x: fmt(r.sd) }),
        h("div", { class: "muted" }, t("an.range", { lo: fmt(r.low), hi: fmt(r.high) }))),
      h("td", { class: "an-reason" }, reasonElement(r.reason, lang))));
  });
  $("result-table").hidden = false;
}

// ------------------------------------------------------------------------------ asking
async function ask(body) {
  $("alert").textContent = "";
  $("analyse").disabled = true;
  $("result-note").textContent = t("an.thinking");
  try {
    const out = await api("/api/analysis", { method: "POST", body });
    drawBoard(out.view);
    showResult(out.analysis);
    return out;
  } catch (ex) {
    $("alert").textContent = t("an.error", { msg: ex.message });
    showResult(null);
    return null;
  } finally {
    $("analyse").disabled = false;
  }
}

function showSource() {
  const s = A.source;
  const box = $("source");
  box.replaceChildren();
  if (!s) return;
  box.append(t("an.fromReplay", { k: s.step, n: s.seat + 1 }), " ",
             h("a", { href: `/replay/${encodeURIComponent(s.match)}#k=${s.step}&seat=${s.seat}` },
               t("an.backToReplay")));
}

async function init() {
  translatePage();
  mountSettings($("top"), { onLang: () => { translatePage(); drawSetup(); drawBoard(A.view); showResult(A.result); showSource(); } });
  try {
    A.presets = await api("/api/presets");
  } catch (ex) {
    $("alert").textContent = t("an.error", { msg: ex.message });
  }
  $("game").addEventListener("change", () => {
    A.game = $("game").value;
    const ps = preset().players;
    if (!ps.includes(A.players)) A.players = ps.includes(4) ? 4 : ps[0];
    A.where = new Map(); A.tableSeat = null; A.seat = Math.min(A.seat, A.players - 1);
    A.counts = [];
    changed();
  });
  $("players").addEventListener("change", () => {
    A.players = Number($("players").value);
    A.seat = Math.min(A.seat, A.players - 1);
    if (A.tableSeat !== null && A.tableSeat >= A.players) A.tableSeat = null;
    A.counts = [];
    changed();
  });
  $("seat").addEventListener("change", () => {
    A.seat = Number($("seat").value);
    if (A.tableSeat === A.seat) A.tableSeat = null;
    A.counts = [];
    changed();
  });
  $("table-seat").addEventListener("change", () => {
    const v = $("table-seat").value;
    A.tableSeat = v === "" ? null : Number(v);
    if (A.tableSeat === null) for (const [c, w] of A.where) if (w === "table") A.where.delete(c);
    changed();
  });
  $("share").addEventListener("click", () => { shareCounts(); drawCounts(); drawNote(); });
  $("sj-trick").addEventListener("input", () => fillShengJi([...Array(A.players).keys()]));
  $("zp-calls").addEventListener("input", () => fillAnswers([...Array(A.players).keys()]));
  $("clear").addEventListener("click", () => {
    A.where = new Map(); A.tableSeat = null; A.counts = []; changed(); showResult(null);
  });
  $("analyse").addEventListener("click", () => { A.source = null; showSource(); ask({ position: setupBody() }); });

  const q = new URLSearchParams(location.search);
  const match = q.get("match");
  const step = Number(q.get("step"));
  const seat = Number(q.get("seat"));
  if (match && Number.isInteger(step) && step >= 0 && Number.isInteger(seat) && seat >= 0) {
    A.source = { match, step, seat };
    showSource();
    const out = await ask({ match, step, seat });
    if (out && gameFamily(out.view.game) !== "sheng-ji") {
      setupFrom(out.view);
      drawSetup();
    } else if (out && out.view.trump) {
      shengJiFrom(out.view);
    } else if (out) {
      drawSetup();
      $("setup-note").textContent = t("an.shengJiSetup");
    }
    return;
  }
  changed();
}

init();
