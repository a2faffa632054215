// Burying the kitty (Sheng ji, Zhao Pengyou): the player taps cards to choose them (a second
// tap puts one back), sees how many are still to choose, and sends nothing until Confirm,
// which is enabled only when exactly the kitty's size is chosen; Undo puts back the last card
// chosen (the controls' Clear all of them). The cards that came from the kitty are marked in the hand (the
// view's `kitty_taken`, which only the seat burying gets).
//
// The engine buries one card per move (`bury 3D`), so Confirm sends the chosen cards one after
// another: each once the state that answers the one before has come (its version is the one the
// next move names). A refusal stops the rest, says why, and the page takes the table's state
// again (it reconnects, and the server sends it); the cards already buried stay buried.
// Hint at the bury turn asks for the card after those chosen (the hint names them) and adds
// it to the choice, sending nothing: hints followed one after another fill it, then Confirm.
// docs/protocol.md, "Burying the kitty".

import { h } from "./common.js";
import { t } from "./i18n.js";

/**
 * The bury controls over the page `P`: its state `S`, `$`, `legal()`, `myTurn()`,
 * `sendMove(move)`, `showAlert(text)`, `redraw()` (the hand and the controls) and `resync()`.
 */
export function makeBury(P) {
  const { S, $ } = P;
  let order = [];          // the chosen hand indices, in the order they were chosen
  let queue = [];          // cards confirmed and not sent yet
  let sentAt = null;       // the version the last bury move of the queue was chosen in

  /** The bury moves legal now (none: not this seat's bury turn). */
  function buryMoves() {
    return P.myTurn() ? P.legal().filter((m) => m.startsWith("bury ")) : [];
  }

  function active() {
    return buryMoves().length > 0;
  }

  /** How many cards are still to bury (those of a queue being sent count as buried). */
  function need() {
    const v = S.view || {};
    return Math.max(0, (v.kitty_size || 0) - (v.buried || []).length - queue.length);
  }

  /** The indices of the hand's cards that came from the kitty and are not buried yet. */
  function fromKitty() {
    const v = S.view;
    const out = new Set();
    if (!v || !Array.isArray(v.kitty_taken) || !Array.isArray(v.hand)) return out;
    const left = [...v.kitty_taken];
    for (const b of v.buried || []) {
      const k = left.indexOf(b);
      if (k >= 0) left.splice(k, 1);
    }
    v.hand.forEach((c, i) => {
      const k = left.indexOf(c);
      if (k >= 0) { left.splice(k, 1); out.add(i); }
    });
    return out;
  }

  /** Keep `order` the same set as S.selected (Clear, a new hand or a hint may change it). */
  function sync() {
    order = order.filter((i) => S.selected.has(i));
    for (const i of [...S.selected].sort((a, b) => a - b)) if (!order.includes(i)) order.push(i);
  }

  /** A tap on hand card `i` during the bury turn: choose it or put it back. */
  function toggle(i) {
    const v = S.view;
    if (!v || !Array.isArray(v.hand) || queue.length) return;
    sync();
    if (S.selected.has(i)) {
      S.selected.delete(i);
    } else {
      const card = v.hand[i];
      if (!buryMoves().some((m) => m.toUpperCase() === `BURY ${card}`.toUpperCase())) {
        P.showAlert(t("t.cannot", { card }));
        return;
      }
      if (S.selected.size >= need()) {
        P.showAlert(t("kitty.enough", { n: need() }));
        return;
      }
      S.selected.add(i);
    }
    sync();
    P.redraw();
  }

  /** The cards chosen to bury and not sent yet (what a hint asked now names). */
  function chosen() {
    const v = S.view;
    if (!active() || queue.length || !v || !Array.isArray(v.hand)) return [];
    sync();
    return order.map((i) => v.hand[i]);
  }

  /** A hint's `bury X`: one more card of `X` chosen (a copy not chosen yet), if there is room
   * and it may be buried; its hand index, or -1. Nothing is sent. */
  function add(move) {
    const v = S.view;
    const card = move.split(" ")[1] || "";
    if (!v || !Array.isArray(v.hand) || queue.length || !active()) return -1;
    sync();
    if (S.selected.size >= need()) return -1;
    if (!buryMoves().some((m) => m.toUpperCase() === move.toUpperCase())) return -1;
    const i = v.hand.findIndex((c, j) => !S.selected.has(j) && c.toUpperCase() === card.toUpperCase());
    if (i < 0) return -1;
    S.selected.add(i);
    sync();
    return i;
  }

  function undo() {
    sync();
    const last = order.pop();
    if (last !== undefined) S.selected.delete(last);
    P.redraw();
  }

  function confirm() {
    sync();
    const v = S.view;
    if (!v || order.length !== need() || !order.length) return;
    queue = order.map((i) => v.hand[i]);
    order = [];
    $("alert").textContent = "";          // an older refusal no longer applies
    sentAt = null;
    next();
  }

  /** Send the next card of the queue, once the state answering the last one has come. */
  function next() {
    if (!queue.length || S.busy) return;
    if (!active()) {                    // the turn is over (or never was): nothing to send
      queue = [];
      return;
    }
    if (sentAt !== null && S.version === sentAt) return;     // still waiting for the answer
    const card = queue[0];
    const m = buryMoves().find((x) => x.toUpperCase() === `BURY ${card}`.toUpperCase());
    if (!m) {
      stop(t("t.cannot", { card }));
      return;
    }
    queue.shift();
    sentAt = S.version;
    P.sendMove(m);
    if (!S.busy) {                      // not sent (no connection): the rest stays unsent
      queue = [];
      sentAt = null;
    }
  }

  /** The server refused a move of the queue: the rest is dropped and the state taken again. */
  function stop(text) {
    const had = queue.length > 0 || sentAt !== null;
    queue = [];
    sentAt = null;
    order = [];
    S.selected.clear();
    if (text) P.showAlert(text);
    if (had) P.resync();
  }

  /** An error message from the server (the page shows it): a bury move of this page was
   * refused, the rest is dropped. */
  function onError() {
    if (sentAt !== null || queue.length) stop("");
  }

  /** Draw the bury box (after the page's render), and go on with a confirmed queue. */
  function render() {
    let box = $("bury-box");
    if (!box) {
      box = h("div", { class: "bury-box", id: "bury-box", role: "group", "aria-label": t("kitty.label") });
      $("moves").after(box);
    }
    const on = active() || queue.length > 0;
    if (!on && sentAt !== null && !queue.length) sentAt = null;
    box.hidden = !on;
    document.body.classList.toggle("burying", on);
    if (!on) { box.replaceChildren(); return; }
    sync();
    const n = need();
    const chosen = S.selected.size;
    const sending = queue.length > 0 || S.busy;
    box.replaceChildren(
      h("span", { class: "bury-count", id: "bury-count", "aria-live": "polite" },
        sending ? t("kitty.sending") : t("kitty.count", { n, k: chosen })),
      h("span", { class: "bury-buttons" },
        h("button", { type: "button", id: "bury-undo", disabled: sending || !chosen ? true : undefined,
                      onclick: undo }, t("kitty.undo")),
        h("button", { type: "button", class: "primary", id: "bury-confirm",
                      disabled: sending || !n || chosen !== n ? true : undefined, onclick: confirm },
          t("kitty.confirm"))));
    next();
  }

  /** May Confirm be pressed now (the right number chosen, nothing being sent)? */
  function ready() {
    sync();
    return active() && !queue.length && !S.busy && need() > 0 && order.length === need();
  }

  return { active, toggle, fromKitty, render, onError, stop, ready, confirm, chosen, add };
}
