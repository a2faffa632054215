// Hint and Legal plays on the table page. Hint asks the server for a bot's advice for this
// turn ({"type": "hint"}, docs/protocol.md "Hints") and shows the move it suggests, its cards
// raised and ringed in the hand, with the level that speaks ("Hint (search)"; the heuristic
// where the search could not answer, saying why) and its reason in the page's language; while the server
// thinks the button waits. Where the room's `hints` option is off for this table the button
// looks disabled and says why. Legal plays cycles through the legal moves in list order, at
// once, without the server. A suggestion belongs to the state it was made in: it goes, text
// and rings, once a move is made or the state moves on. At the bury turn the hint is for the
// card after those already chosen (they go with the request) and joins the choice, unsent
// (table-bury.js): hints followed one after another fill it, then Confirm buries.

import { reasonElement, splitPlay } from "./cards.js";
import { lang, t } from "./i18n.js";
import { callCanFind, decksOf } from "./table-call.js";
import { moveText } from "./table-moves.js";

/** The room's `hints` option as the server resolves it now: "off", "heuristic" or "search"
 * (left unset: "search" while at most one seat is held by a person, else "off"). */
export function hintMode(table) {
  const room = (table && table.room) || {};
  if (room.hints === "off" || room.hints === "heuristic" || room.hints === "search") return room.hints;
  const people = ((table && table.seats) || []).filter((s) => s.kind === "human").length;
  return people <= 1 ? "search" : "off";
}

/** Why hints are off at this table (an i18n key). */
function offKey(table) {
  return table && table.room && table.room.hints === "off" ? "t.hintOffHost" : "t.hintOffPeople";
}

/**
 * The hint's functions over the page `P`: its state `S`, `$`, `send` and its helpers (`legal`,
 * `myTurn`, `clickKind`, `renderMoves`, `renderHand`, `renderControls`) and the bury's
 * `buryChosen()` (the cards chosen, unsent) and `buryAdd(move)` (one more chosen: its index).
 */
export function makeHints(P) {
  const { S, $, send, legal, myTurn, clickKind, renderMoves, renderHand, renderControls } = P;
  const buryChosen = P.buryChosen || (() => []);
  const buryAdd = P.buryAdd || (() => -1);
  // S.hintShown: the suggestion shown ({kind: "legal", move, i, n}, {kind: "advice", move,
  // reason, by, fallback}, {kind: "wait"} or {kind: "off"}); S.hintMove: its move while the selection is
  // still its cards (Play then makes exactly it); S.hintVersion: the state it was made in;
  // S.hintIndex: the place in the legal moves' cycle

  /** The legal moves in the order Legal plays shows them: plays, other moves, pass last. */
  function listed() {
    const moves = legal();
    const ck = clickKind();
    const words = moves.filter((m) => !splitPlay(m) && m !== "pass" &&
                                      (!m.startsWith("throw ") || ck === "throw"));
    // a friend call that can never find a friend is never suggested
    const calls = words.filter((m) => m.startsWith("call "));
    if (calls.length) {
      const opts = { hand: S.view.hand || [], buried: S.view.buried || [], decks: decksOf(calls) };
      const good = calls.filter((m) => callCanFind(m, opts));
      if (good.length) words.splice(0, words.length, ...words.filter((m) => !m.startsWith("call ") || good.includes(m)));
    }
    return [...moves.filter((m) => splitPlay(m)), ...words, ...(moves.includes("pass") ? ["pass"] : [])];
  }

  /** The hand's indices of the cards a move names (a play, an offer, or a card to click). */
  function cardsOf(m) {
    const p = splitPlay(m);
    const ck = clickKind();
    let cards = p ? p.cards : [];
    if (!p && ck && m.startsWith(ck + " ")) cards = [m.split(" ")[1]];
    if (m.startsWith("offer ")) cards = m.split(" ").slice(1);
    const hand = S.view.hand || [];
    const used = new Set();
    for (const c of cards) {
      const i = hand.findIndex((x, j) => !used.has(j) && x.toUpperCase() === c.toUpperCase());
      if (i >= 0) used.add(i);
    }
    return { used, select: !!p || m.startsWith("offer ") };
  }

  /** Suggest move `m`: a play's (or an offer's) cards selected, ready for Play. */
  function suggest(m, shown) {
    S.hintMove = m;
    S.hintShown = { ...shown, move: m };
    S.hintVersion = S.version;
    S.choices = null;
    if (m.startsWith("bury ") && shown.kind === "advice") {
      // the card joins the cards chosen to bury (the hint was asked after them); nothing is sent
      S.hintShown.at = buryAdd(m);
      S.hintMove = null;
    } else {
      S.selected.clear();
      const { used, select } = cardsOf(m);
      if (select) for (const i of used) S.selected.add(i);
    }
    renderMoves();
    renderHand();
    renderControls();
    renderHint();
  }

  /** The hint's text and rings as the state says (after each render and language change). */
  function renderHint() {
    const ht = $("hint-text");
    const sh = S.hintShown;
    for (const e of document.querySelectorAll(".hinted")) e.classList.remove("hinted");
    if (!sh) {
      ht.replaceChildren();
      for (const k of ["move", "source", "by", "fallback", "loading"]) delete ht.dataset[k];
      return;
    }
    const m = sh.move || null;
    if (sh.kind === "wait") {
      ht.replaceChildren(t("t.hintWait"));
      ht.dataset.loading = "1";
    } else if (sh.kind === "off") {
      ht.replaceChildren(t(offKey(S.table)));
      delete ht.dataset.loading;
    } else {
      delete ht.dataset.loading;
      const what = moveText(m);
      if (sh.kind === "legal") {
        ht.replaceChildren(t("t.legalN", { i: sh.i, n: sh.n }), what);
      } else {
        ht.replaceChildren(t("t.hintSays", { level: levelName(sh.by) }), what, " — ",
          reasonNode(sh.reason), fallbackNote(sh.fallback));
      }
    }
    ht.dataset.source = sh.kind;
    if (m) ht.dataset.move = m; else delete ht.dataset.move;
    if (sh.by) ht.dataset.by = sh.by; else delete ht.dataset.by;
    if (sh.fallback) ht.dataset.fallback = sh.fallback; else delete ht.dataset.fallback;
    if (!m || !S.view) return;
    for (const b of document.querySelectorAll("#moves button, #call-sheet button")) {
      b.classList.toggle("hinted", b.dataset.move === m);
    }
    $("pass").classList.toggle("hinted", m === "pass");
    const at = sh.at >= 0 ? [sh.at] : cardsOf(m).used;      // a bury hint: the card it added
    for (const i of at) $("hand").children[i]?.classList.add("hinted");
  }

  /** The level that speaks, in the page's language. */
  function levelName(level) {
    return level === "search" ? t("t.hintLevelSearch") : t("t.hintLevelHeuristic");
  }

  /** Why the heuristic spoke where the search was asked ("" when it did not). */
  function fallbackNote(why) {
    if (why === "time") return t("t.hintFallbackTime");
    if (why === "failed") return t("t.hintFallbackFailed");
    return "";
  }

  function reasonNode(reason) {
    const span = document.createElement("span");
    span.id = "hint-reason";
    span.append(reasonElement(reason, lang()));
    return span;
  }

  /** The suggestion goes: its text, its rings, the cards it selected stay as the player left them. */
  function clearHint() {
    S.hintMove = null;
    S.hintShown = null;
    S.hintVersion = null;
    S.hintIndex = -1;
    renderHint();
  }

  /** After each render: a suggestion of an older state, or of a turn that is over, goes. */
  function afterRender() {
    if (S.hintShown && (S.hintVersion !== S.version || !myTurn())) {
      clearHint();
    } else {
      renderHint();
    }
  }

  function onLegal() {
    const list = listed();
    if (!list.length) return;
    const i = S.hintShown && S.hintShown.kind === "legal" ? (S.hintIndex + 1) % list.length : 0;
    S.hintIndex = i;
    suggest(list[i], { kind: "legal", i: i + 1, n: list.length });
  }

  function onHint() {
    if (!myTurn() || (S.hintShown && S.hintShown.kind === "wait")) return;
    if (hintMode(S.table) === "off") {
      S.hintMove = null;
      S.hintShown = { kind: "off" };
      S.hintVersion = S.version;
      renderHint();
      return;
    }
    const bury = buryChosen();         // the cards chosen to bury: the hint is for the next one
    if (!send(bury.length ? { type: "hint", bury } : { type: "hint" })) return;
    S.hintMove = null;
    S.hintShown = { kind: "wait" };
    S.hintVersion = S.version;
    renderHint();
    renderControls();
  }

  /** The server's {"type": "hint"}: shown if it is still this state's turn and a legal move. */
  function onAdvice(msg) {
    const waiting = S.hintShown && S.hintShown.kind === "wait";
    // where the plays are offered in groups (choose ...), advice is a whole play: accepted too
    const whole = !!splitPlay(msg.move) && legal().some((m) => m.startsWith("choose "));
    if (!waiting || msg.version !== S.version || !myTurn() || !(legal().includes(msg.move) || whole)) {
      if (waiting) clearHint();
      renderControls();
      return;
    }
    S.hintIndex = -1;
    suggest(msg.move, { kind: "advice", reason: msg.reason || null,
                        by: String(msg.level || msg.by || ""), fallback: msg.fallback || null });
  }

  /** A refused hint: `hints_off` says why in the hint's place; the others end the wait.
   * Returns true when the error is shown here. */
  function onError(msg) {
    const waiting = S.hintShown && S.hintShown.kind === "wait";
    if (msg.code === "hints_off" && waiting) {
      S.hintShown = { kind: "off" };
      renderHint();
      renderControls();
      return true;
    }
    if (waiting) { clearHint(); renderControls(); }
    return false;
  }

  /** The Hint and Legal plays buttons (from renderControls). */
  function renderButtons(usable) {
    const off = hintMode(S.table) === "off";
    const waiting = !!(S.hintShown && S.hintShown.kind === "wait");
    const hint = $("hint");
    hint.disabled = !usable || waiting;
    hint.setAttribute("aria-busy", String(waiting));
    hint.classList.toggle("off", off);
    if (off) {
      hint.setAttribute("aria-disabled", "true");
      hint.title = t(offKey(S.table));
    } else {
      hint.removeAttribute("aria-disabled");
      hint.removeAttribute("title");
    }
    $("legal").disabled = !usable;
  }

  return { onHint, onLegal, onAdvice, onError, clearHint, afterRender, renderButtons, renderHint };
}
