// Zhao Pengyou's friend call as a picker made for thumbs: which copy (first, second, ...), the
// suit, then the rank, as buttons of at least 44 px with the card written large; then Call.
// It lies over the table (the cloth is empty while the declarer calls), so the page never
// scrolls on that turn and the hand stays in view. A warning shows where the call can never
// find a friend (the declarer holds or buried every copy that could be played, or fewer copies
// will be played than the call counts). Calls are worded by view.js callWords.

import { SUITS, parseCard } from "./cards.js";
import { h } from "./common.js";
import { t } from "./i18n.js";
import { callWords } from "./view.js";

function parse(move) {
  const m = /^call (\d+) (\S+)$/.exec(move);
  return m ? { ord: Number(m[1]), card: m[2].toUpperCase() } : null;
}

const count = (cards, card) => (cards || []).filter((c) => String(c).toUpperCase() === card).length;
const SUIT_ORDER = ["S", "H", "C", "D"];
const RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/**
 * May the call `move` ever find a friend? No when every copy that will be played is the
 * declarer's, or the call counts past the copies that will be played. decks: copies per card.
 */
export function callCanFind(move, { hand, buried, decks }) {
  const p = parse(move);
  if (!p) return true;
  const played = decks - count(buried, p.card);       // buried cards are never played
  const others = played - count(hand, p.card);
  return others > 0 && p.ord <= played;
}

/** The number of copies of each card: the highest ordinal offered. */
export function decksOf(calls) {
  return Math.max(1, ...calls.map((m) => (parse(m) || { ord: 1 }).ord));
}

export function ordinalWord(o) {
  return o <= 3 ? t(`call.${o}`) : t("call.n", { n: o });
}

function suitOf(card) { return parseCard(card).suit; }
function rankOf(card) { return parseCard(card).rank; }

/**
 * Draw the picker into `box`. opts: {hand, buried, onCall(move), disabled}. Keeps its choice in
 * box.dataset (ord, suit, card) across redraws.
 */
export function renderCallPicker(box, calls, opts) {
  const parsed = calls.map(parse).filter(Boolean);
  const ords = [...new Set(parsed.map((p) => p.ord))].sort((a, b) => a - b);
  const decks = decksOf(calls);
  let ord = Number(box.dataset.ord) || ords[0];
  if (!ords.includes(ord)) ord = ords[0];
  const ofOrd = parsed.filter((x) => x.ord === ord);
  const suits = SUIT_ORDER.filter((s) => ofOrd.some((p) => suitOf(p.card) === s));
  let chosen = box.dataset.card || "";
  let suit = box.dataset.suit || (chosen ? suitOf(chosen) : "") || suits[0];
  if (!suits.includes(suit)) suit = suits[0];
  if (chosen && suitOf(chosen) !== suit) chosen = "";
  // a redraw keeps the keyboard focus on the button pressed (found again by its data)
  const redraw = (changes) => {
    const f = document.activeElement;
    const key = f && box.contains(f) ? Object.entries(f.dataset)[0] : null;
    Object.assign(box.dataset, changes);
    renderCallPicker(box, calls, opts);
    if (key) box.querySelector(`[data-${key[0]}="${CSS.escape(key[1])}"]`)?.focus();
  };
  const off = opts.disabled ? true : undefined;

  const wrap = h("div", { class: "call-picker", id: "call-picker", role: "group", "aria-label": t("t.callLabel") });
  const ordRow = h("div", { class: "call-ords", role: "group", "aria-label": t("t.callWhich") });
  for (const o of ords) {
    ordRow.append(h("button", { type: "button", class: "call-ord", dataset: { ord: String(o) },
      "aria-pressed": String(o === ord), disabled: off,
      onclick: () => redraw({ ord: String(o) }) }, ordinalWord(o)));
  }
  const suitRow = h("div", { class: "call-suits", role: "group", "aria-label": t("kitty.callSuit") });
  for (const s of suits) {
    suitRow.append(h("button", { type: "button", class: `call-suit ink-${s}`, dataset: { suit: s },
      "aria-pressed": String(s === suit), "aria-label": t(`card.${s}`), disabled: off,
      onclick: () => redraw({ suit: s, card: "" }) }, SUITS[s].glyph));
  }
  const grid = h("div", { class: "call-cards", role: "group", "aria-label": t("kitty.callRank") });
  const ofSuit = ofOrd.filter((p) => suitOf(p.card) === suit)
    .sort((a, b) => RANK_ORDER.indexOf(rankOf(a.card)) - RANK_ORDER.indexOf(rankOf(b.card)));
  for (const p of ofSuit) {
    const move = `call ${p.ord} ${p.card}`;
    const never = !callCanFind(move, { ...opts, decks });
    const held = count(opts.hand, p.card);
    const label = callWords(`${p.ord} ${p.card}`) + (held ? `, ${t("kitty.youHold", { n: held })}` : "") +
      (never ? `, ${t("kitty.never")}` : "");
    const b = h("button", { type: "button", class: `call-card ink-${suit}`, dataset: { move, card: p.card },
      "aria-pressed": String(p.card === chosen), "aria-label": label, disabled: off,
      onclick: () => redraw({ card: p.card, suit }) },
      h("span", { class: "call-rank" }, rankOf(p.card)), h("span", { class: "call-glyph" }, SUITS[suit].glyph));
    // the copies held, in a corner (drawn by CSS: the button's text stays within its name)
    if (held) b.dataset.held = `×${held}`;
    b.classList.toggle("never", never);
    b.classList.toggle("selected", p.card === chosen);
    grid.append(b);
  }
  const move = chosen && calls.find((m) => m.toUpperCase() === `CALL ${ord} ${chosen}`);
  const never = move && !callCanFind(move, { ...opts, decks });
  const line = h("div", { class: "call-line" },
    h("span", { class: "call-choice", id: "call-choice" },
      move ? callWords(`${ord} ${chosen}`) : t("kitty.callPick")),
    never ? h("span", { class: "why call-never", id: "call-never", role: "alert" }, t("t.callNever")) : null,
    h("button", { type: "button", class: "primary", id: "call-send",
      disabled: !move || opts.disabled ? true : undefined, onclick: () => move && opts.onCall(move) }, t("t.call")));
  wrap.append(h("div", { class: "call-top" }, ordRow, suitRow), grid, line);
  box.replaceChildren(wrap);
}

/**
 * The picker's place over the table: shown with `calls` (the legal friend calls), hidden with
 * none. `state` keeps the choice ({ord, suit, card}) across the page's redraws.
 */
export function showCallSheet(calls, state, opts) {
  const area = document.getElementById("table-area");
  if (!area) return;
  let sheet = document.getElementById("call-sheet");
  if (!calls.length) {
    if (sheet) sheet.hidden = true;
    document.body.classList.remove("calling");
    return;
  }
  if (!sheet) {
    sheet = h("div", { class: "call-sheet", id: "call-sheet" });
    sheet.addEventListener("click", () => {
      Object.assign(sheet.keep, { ord: sheet.dataset.ord || "", suit: sheet.dataset.suit || "", card: sheet.dataset.card || "" });
    });
    area.append(sheet);
  }
  sheet.keep = state;
  sheet.hidden = false;
  document.body.classList.add("calling");
  for (const k of ["ord", "suit", "card"]) {
    if (state[k]) sheet.dataset[k] = state[k]; else delete sheet.dataset[k];
  }
  renderCallPicker(sheet, calls, opts);
}
