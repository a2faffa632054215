// The table page's move composer: what this seat may do now (its legal moves, the kind of move
// a click on a card makes), the selection of cards and how it becomes a move (Play, a reading
// picked among several, "Why not?", Clear, auto-pass), and keyboard play. The prompt and the
// buttons are drawn by table-prompt.js, Hint and Legal plays are table-hint.js's, the choice of
// cards to bury table-bury.js's.

import { sameCards, splitPlay } from "./cards.js";
import { t } from "./i18n.js";
import { playsMadeOf } from "./table-moves.js";

/**
 * The composer over the page `P`: its state `S`, `$` (an element by id), `send(msg)`,
 * `showAlert(text)`, the redraws `renderHand()`, `renderMoves()`, `renderControls()`,
 * `playCheck()` (whether Play may send the selection: table-prompt.js), and `hints()` and
 * `bury()` (the page's Hint and bury controls, made after this).
 */
export function makeCompose(P) {
  const { S, $ } = P;

  // ------------------------------------------------------------ what this seat may do now
  function seated() {
    return S.mySeat !== null && S.mySeat !== undefined;
  }

  function myTurn() {
    const v = S.view;
    return !!(v && !S.stopped && seated() && v.to_act === S.mySeat &&
              Array.isArray(v.legal_moves) && v.legal_moves.length && v.phase !== "over" &&
              !v.result);
  }

  function legal() {
    return myTurn() ? S.view.legal_moves : [];
  }

  /** A kind of move made by clicking one card of the hand: "bury 3D", "give 2S", "pick 5C". */
  function clickKind() {
    const moves = legal();
    if (!moves.length) return null;
    for (const k of ["give", "discard", "bury", "pick"]) {
      if (moves.some((m) => m.startsWith(k + " "))) return k;
    }
    if (S.view.pending && S.view.pending.length && moves.some((m) => m.startsWith("throw "))) {
      return "throw";
    }
    return null;
  }

  function cardPlays() {
    return legal().filter((m) => splitPlay(m));
  }

  /** The legal plays made of exactly the selected cards (table-moves.js). */
  function playsOf(sel) {
    return playsMadeOf(cardPlays(), sel, S.view.game);
  }

  function offers() {
    return legal().filter((m) => m.startsWith("offer "));
  }

  // --------------------------------------------------------- from the selection to a move
  function onCard(i) {
    const v = S.view;
    if (!v || !v.hand || S.busy || S.stopped) return;
    S.focusIndex = i;
    if (P.bury().active()) { P.bury().toggle(i); return; }     // chosen, sent on Confirm (table-bury.js)
    const ck = clickKind();
    if (ck && myTurn()) {
      const want = `${ck} ${v.hand[i]}`.toUpperCase();
      const m = legal().find((x) => x.toUpperCase() === want);
      if (m) sendMove(m);
      else P.showAlert(ck === "give" ? t("t.cannotGive", { card: v.hand[i] }) : t("t.cannot", { card: v.hand[i] }));
      return;
    }
    if (S.selected.has(i)) S.selected.delete(i); else S.selected.add(i);
    S.choices = null;
    if (S.hintMove) {
      const p = splitPlay(S.hintMove);
      if (!p || !sameCards(p.cards, selectedCards())) S.hintMove = null;
    }
    P.renderMoves();
    P.renderHand();
    P.renderControls();
    P.hints().renderHint();
  }

  function selectedCards() {
    const hand = (S.view && S.view.hand) || [];
    return [...S.selected].sort((a, b) => a - b).map((i) => hand[i]).filter(Boolean);
  }

  function sendMove(move) {
    if (S.busy || !myTurn()) return;
    if (P.send({ type: "move", move, version: S.version })) {
      S.busy = true;
      S.choices = null;
      P.hints().clearHint();
      if (move !== "pass") S.selected.clear();
      P.renderControls();
      setTimeout(() => { if (S.busy) { S.busy = false; P.renderControls(); } }, 6000);
    }
  }

  function onPlay() {
    const sel = selectedCards();
    if (!sel.length || !P.playCheck().ok) return;
    const offs = offers();
    if (offs.length) {
      if (sel.length !== 2) { P.showAlert(t("t.offerTwo")); return; }
      const m = offs.find((o) => sameCards(o.split(" ").slice(1), sel));
      if (m) sendMove(m); else sendMove(`offer ${sel.join(" ")}`);
      return;
    }
    if (S.hintMove) {
      const p = splitPlay(S.hintMove);
      if (p && sameCards(p.cards, sel)) { sendMove(S.hintMove); return; }
    }
    const matches = playsOf(sel);
    if (matches.length === 1) { sendMove(matches[0]); return; }
    if (matches.length > 1) {
      // the same cards read several ways (wild cards, throws): ask which one
      S.choices = matches;
      P.renderMoves();
      P.renderControls();
      $("moves").querySelector("button")?.focus();
      return;
    }
    // not among the listed moves (e.g. a Sheng ji throw): the server judges it
    sendMove(sel.join(" "));
  }

  /** Send the selected cards, which the page found no legal play, for the server to judge: it
   * refuses them with the rule they break (an `error` whose `why` the alert shows); the
   * selection stays. */
  function askWhy() {
    const sel = selectedCards();
    if (!sel.length || S.busy || !myTurn()) return;
    if (P.send({ type: "move", move: sel.join(" "), version: S.version })) {
      S.busy = true;
      P.renderControls();
      setTimeout(() => { if (S.busy) { S.busy = false; P.renderControls(); } }, 6000);
    }
  }

  function onClear() {
    S.selected.clear(); S.choices = null;
    P.hints().clearHint();
    P.renderMoves(); P.renderHand(); P.renderControls(); P.bury().render();
  }

  /** Auto-pass: while the toggle is on, pass at each turn of this trick where passing is legal. */
  function maybeAutopass() {
    if (!$("autopass").checked || S.busy || !myTurn()) return;
    if (legal().includes("pass")) sendMove("pass");
  }

  // ---------------------------------------------------------------------------- keyboard
  /** Keyboard play: arrows along the hand, Enter or P plays, X passes, C clears, H and L ask
   * for a hint and the legal plays (docs/protocol.md). */
  function onKey(e) {
    if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
    if (document.querySelector("dialog[open]")) return;
    const tg = e.target;
    const typing = tg && (tg.tagName === "INPUT" || tg.tagName === "SELECT" || tg.tagName === "TEXTAREA");
    if (typing || !S.view) return;
    const inHand = tg && tg.classList && tg.classList.contains("card") && $("hand").contains(tg);
    const cards = [...$("hand").querySelectorAll(".card")];
    if (inHand && (e.key === "ArrowRight" || e.key === "ArrowLeft" || e.key === "Home" || e.key === "End")) {
      const i = cards.indexOf(tg);
      let j = i;
      if (e.key === "ArrowRight") j = Math.min(cards.length - 1, i + 1);
      else if (e.key === "ArrowLeft") j = Math.max(0, i - 1);
      else if (e.key === "Home") j = 0;
      else j = cards.length - 1;
      e.preventDefault();
      S.focusIndex = j;
      cards.forEach((c, k) => { c.tabIndex = k === j ? 0 : -1; });
      cards[j].focus();
      return;
    }
    const onButton = tg && tg.tagName === "BUTTON" && !inHand;
    if (e.key === "Enter" && (inHand || !onButton) && !(tg && tg.tagName === "A")) {
      if (!$("play").disabled) { e.preventDefault(); onPlay(); }
      else if (P.bury().ready()) { e.preventDefault(); P.bury().confirm(); }     // the cards to bury
      else if (inHand) e.preventDefault();      // Enter plays; Space selects
      return;
    }
    if (onButton && e.key === " ") return;
    const k = e.key.toLowerCase();
    if (k === "h" && !$("hint").disabled) { e.preventDefault(); P.hints().onHint(); }
    else if (k === "l" && !$("legal").disabled) { e.preventDefault(); P.hints().onLegal(); }
    else if (k === "x" && !$("pass").disabled && !$("pass").hidden) { e.preventDefault(); sendMove("pass"); }
    else if (k === "c" && !$("clear").disabled) { e.preventDefault(); onClear(); }
    else if (k === "p" && !$("play").disabled) { e.preventDefault(); onPlay(); }
  }

  return {
    seated, myTurn, legal, clickKind, cardPlays, playsOf, offers, selectedCards,
    onCard, sendMove, onPlay, askWhy, onClear, maybeAutopass, onKey,
  };
}
