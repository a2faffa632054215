// Zhao Pengyou's friend call as a card picker: which copy (first, second, ...) and which card,
// with a warning where the call can never find a friend (the declarer holds or buried every
// copy that could be played, or fewer copies will be played than the call counts).

import { cardElement, richText } from "./cards.js";
import { h } from "./common.js";
import { t } from "./i18n.js";

function parse(move) {
  const m = /^call (\d+) (\S+)$/.exec(move);
  return m ? { ord: Number(m[1]), card: m[2].toUpperCase() } : null;
}

const count = (cards, card) => (cards || []).filter((c) => String(c).toUpperCase() === card).length;

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

/**
 * Draw the picker into `box`. opts: {hand, buried, onCall(move), disabled}. Keeps its choice in
 * box.dataset (ord, card) across redraws.
 */
export function renderCallPicker(box, calls, opts) {
  const parsed = calls.map(parse).filter(Boolean);
  const ords = [...new Set(parsed.map((p) => p.ord))].sort((a, b) => a - b);
  const decks = decksOf(calls);
  let ord = Number(box.dataset.ord) || ords[0];
  if (!ords.includes(ord)) ord = ords[0];
  const wrap = h("div", { class: "call-picker", id: "call-picker", role: "group", "aria-label": t("t.callLabel") });
  const ordRow = h("div", { class: "call-ords", role: "group", "aria-label": t("t.callWhich") });
  for (const o of ords) {
    ordRow.append(h("button", { type: "button", class: "call-ord", dataset: { ord: String(o) },
      "aria-pressed": String(o === ord), disabled: opts.disabled ? true : undefined,
      onclick: () => { box.dataset.ord = String(o); renderCallPicker(box, calls, opts); } }, ordinalWord(o)));
  }
  const grid = h("div", { class: "call-cards" });
  const chosen = box.dataset.card || "";
  for (const p of parsed.filter((x) => x.ord === ord)) {
    const move = `call ${p.ord} ${p.card}`;
    const b = cardElement(p.card, { button: true, small: true });
    b.classList.add("call-card");
    const never = !callCanFind(move, { ...opts, decks });
    if (never) b.classList.add("never");
    b.dataset.move = move;
    b.setAttribute("aria-pressed", String(p.card === chosen));
    b.classList.toggle("selected", p.card === chosen);
    b.addEventListener("click", () => { box.dataset.card = p.card; renderCallPicker(box, calls, opts); });
    grid.append(b);
  }
  const move = chosen && calls.find((m) => m.toUpperCase() === `CALL ${ord} ${chosen}`);
  const never = move && !callCanFind(move, { ...opts, decks });
  const line = h("div", { class: "call-line" },
    move ? h("span", { class: "call-choice" }, t("t.callOrd", { ord: ordinalWord(ord), card: "" }), richText(chosen)) : null,
    never ? h("span", { class: "why call-never", id: "call-never", role: "alert" }, t("t.callNever")) : null,
    h("button", { type: "button", class: "primary", id: "call-send",
      disabled: !move || opts.disabled ? true : undefined, onclick: () => move && opts.onCall(move) }, t("t.call")));
  wrap.append(ordRow, grid, line);
  box.replaceChildren(wrap);
}
