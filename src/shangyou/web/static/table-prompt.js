// The player's prompt and controls on the table page: what to do now (bid, bury, lead, follow,
// beat a play...), the buttons of moves that are not cards (bids, calls, takes; the friend-call
// picker), whether the selected cards may be played (and why not, under Play), and which
// controls are enabled (Hint and Legal plays: table-hint.js).

import { richText, splitPlay } from "./cards.js";
import { gameFamily, h } from "./common.js";
import { has, t } from "./i18n.js";
import { showCallSheet } from "./table-call.js";
import { moveText } from "./table-moves.js";
import { seatRef, withSeat } from "./table-seats.js";

/**
 * The prompt's functions over the page `P`: its state `S`, `$` (an element by id) and its
 * helpers (`myTurn`, `legal`, `seated`, `ctx`, `clickKind`, `offers`, `cardPlays`, `playsOf`,
 * `kindOf`, `selectedCards`, `sendMove`, `renderHintButtons`).
 */
export function makePrompt(P) {
  const { S, $, myTurn, legal, seated, ctx, clickKind, offers, cardPlays, playsOf, kindOf,
          selectedCards, sendMove } = P;

  function renderPrompt() {
    const v = S.view;
    const p = $("prompt");
    p.replaceChildren();
    p.classList.toggle("my-turn", myTurn());
    const c = ctx();
    if (v.phase === "over" || v.result || S.closed) {
      p.append(S.closed ? t("t.closed") : t("t.over"));
      return;
    }
    if (!seated()) {
      if (v.to_act !== null && v.to_act !== undefined) p.append(...withSeat("t.toPlay", c, v.to_act));
      return;
    }
    if (!myTurn()) {
      if (v.to_act !== null && v.to_act !== undefined) p.append(...withSeat("t.waitingFor", c, v.to_act));
      else p.append(t("t.waiting"));
      return;
    }
    p.append(h("div", { class: "turn-flag", id: "your-turn" }, t("t.yourTurn")));
    const moves = legal();
    const fam = gameFamily(v.game);
    let text = "";
    if (fam === "sheng-ji") {
      if (v.phase === "deal") text = t("t.p.bid");
      else if (v.phase === "bury") {
        if (moves.some((m) => m.startsWith("bury "))) {
          text = t("t.p.bury", { n: (v.kitty_size || 0) - (v.buried || []).length });
        } else text = t("t.p.overcall");
      } else if (v.phase === "call") text = t("t.p.call");
      else if (v.phase === "play") {
        if (moves.some((m) => m.startsWith("pick "))) text = t("t.p.pick");
        else if ((v.pending || []).length) text = t("t.p.throw");
        else if (!(v.trick || []).length) text = t("t.p.lead");
        else text = t("t.p.follow", { n: v.trick[0][1].split(" ").length });
      }
    } else if (v.phase === "exchange") {
      const kind = clickKind();
      if (kind === "give") text = t("t.p.give");
      else if (kind === "discard") text = t("t.p.discard");
      else if (offers().length) text = t("t.p.offer");
      else if (moves.some((m) => m.startsWith("take "))) text = t("t.p.take");
    } else if (v.last) {
      // the reading (the engine's name of the combination) is notation, like the cards: it
      // goes in its own span, the same in both languages
      const reading = v.last.reading && v.last.reading !== v.last.kind &&
        !justTheRank(v.last.reading, v.last.cards) ? v.last.reading : "";
      const kind = has(`kind.${v.last.kind}`) ? t(`kind.${v.last.kind}`) : v.last.kind;
      const parts = t("t.p.beat", { name: "\u0002", cards: "\u0000",
                                    kind: kind + (reading ? " \u0001" : "") }).split(/([\u0000-\u0002])/);
      for (const part of parts) {
        if (part === "\u0000") p.append(richText(v.last.cards));
        else if (part === "\u0001") { if (reading) p.append(h("span", { class: "reading" }, reading)); }
        else if (part === "\u0002") p.append(seatRef(c, v.last.seat));
        else p.append(part);
      }
      return;
    } else {
      text = t("t.p.leadAny");
    }
    p.append(text);
  }

  /** A reading that only repeats the rank of every card played ("3" for a single 3) says
   * nothing: it is left out. */
  function justTheRank(reading, cards) {
    const r = String(reading).trim().toUpperCase();
    const p = splitPlay(cards || "");
    return !!p && /^[0-9JQKA]+$/.test(r) && p.cards.every((c) => c.toUpperCase().slice(0, -1) === r);
  }

  /** A move button's words: its verb in the page's language ("bid 2S": "Bid 2♠", "叫主 ♠2"),
   * then the cards. */
  function moveLabel(m) {
    if (m === "play") return t("t.finishThrow");
    return moveText(m);
  }

  function renderMoves() {
    const box = $("moves");
    box.replaceChildren();
    if (!myTurn()) { showCallSheet([], S.callPick, {}); return; }
    if (S.choices) {
      box.append(h("span", { class: "muted", id: "readings-q" }, t("t.readings")));
      for (const m of S.choices) {
        box.append(h("button", { type: "button", class: "move-btn reading-btn", dataset: { move: m },
          onclick: () => sendMove(m) }, richText(m)));
      }
      return;
    }
    const moves = legal();
    const buttons = [];
    const calls = moves.filter((m) => m.startsWith("call "));
    for (const m of moves) {
      const k = kindOf(m);
      if (k === "bid" || k === "take" || m === "play" ||
          (k === "give" && moves.length <= 6) || (k === "call" && calls.length <= 12)) {
        buttons.push(m);
      }
    }
    for (const m of buttons) {
      box.append(h("button", { type: "button", class: "move-btn", dataset: { move: m },
        onclick: () => sendMove(m) }, moveLabel(m)));
    }
    // many calls: the picker over the table (table-call.js); the choice survives redraws
    showCallSheet(calls.length > 12 ? calls : [], S.callPick,
                  { hand: S.view.hand || [], buried: S.view.buried || [], onCall: (m) => sendMove(m) });
  }

  /**
   * May the selected cards be played now? {ok, reason}: the reason is shown under the Play
   * button, which stays disabled while the selection is not a play.
   */
  function playCheck() {
    const v = S.view;
    if (!myTurn()) return { ok: false, reason: "" };
    if (S.busy) return { ok: false, reason: t("t.why.busy") };
    if (clickKind()) return { ok: false, reason: "" };
    const sel = selectedCards();
    const offs = offers();
    if (offs.length) {
      if (sel.length !== 2) return { ok: false, reason: t("t.offerTwo") };
      return { ok: true, reason: "" };
    }
    const plays = cardPlays();
    if (!sel.length) return { ok: false, reason: plays.length ? t("t.why.select") : "" };
    if (playsOf(sel).length) return { ok: true, reason: "" };
    // very many plays: they are offered in groups ("choose <cards> <kind> <ranks>"); the
    // selected cards are sent as a whole play (onPlay) and the server judges them
    if (legal().some((m) => m.startsWith("choose ") && Number(m.split(" ")[1]) === sel.length)) {
      return { ok: true, reason: "" };
    }
    if (gameFamily(v.game) === "sheng-ji" && v.phase === "play") {
      const trick = v.trick || [];
      if (!trick.length) {
        // a lead is all of one suit, the trumps counting as one; a throw is judged by the server
        if (new Set(sel.map(shengJiSuit)).size > 1) return { ok: false, reason: t("t.why.oneSuit") };
        return { ok: true, reason: "" };
      }
      const n = trick[0][1].split(" ").length;
      if (sel.length !== n) return { ok: false, reason: t("t.why.count", { n }) };
      return { ok: false, reason: t("t.why.follow") };
    }
    if (!plays.length) return { ok: false, reason: "" };
    if (v.last) {
      const n = splitPlay(v.last.cards || "")?.cards.length || 0;
      // no play of this many cards may be made now (a bomb would be among the legal plays)
      if (n && sel.length !== n && !plays.some((m) => splitPlay(m).cards.length === sel.length)) {
        const kind = has(`kind.${v.last.kind}`) ? t(`kind.${v.last.kind}`) : String(v.last.kind || "");
        return { ok: false, reason: t("t.why.countLast", { n, kind }) };
      }
      return { ok: false, reason: t("t.why.notBeat") };
    }
    return { ok: false, reason: t("t.why.notCombo") };
  }

  /** The suit a card plays in, in Sheng ji: "T" for trumps (jokers, level cards, the trump suit,
   * the 5 of hearts with red_five), otherwise its own suit. */
  function shengJiSuit(card) {
    const v = S.view;
    const c = String(card).toUpperCase();
    if (c === "BJ" || c === "RJ") return "T";
    const rank = c.slice(0, -1);
    const suit = c.slice(-1);
    if (String(v.level) === rank) return "T";
    if (v.options && v.options.red_five && c === "5H") return "T";
    const tr = String(v.trump || "");
    if (tr.length >= 2 && /[SHDC]$/.test(tr) && tr.slice(-1) === suit) return "T";
    return suit;
  }

  function renderControls() {
    const v = S.view;
    if (!v) return;
    const mine = myTurn() && !S.busy;
    const moves = legal();
    const ck = clickKind();
    const offs = offers();
    const play = $("play");
    play.textContent = offs.length ? t("t.offer") : t("t.play");
    const check = playCheck();
    play.disabled = !(mine && check.ok);
    const why = $("play-why");
    const reason = myTurn() && !ck ? check.reason : "";
    if (why.textContent !== reason) why.textContent = reason;
    why.classList.toggle("neutral", reason === t("t.why.select"));   // a prompt, not a refusal
    // a refused selection: the judge (the server) can say which rule it breaks; only where
    // the legal plays are listed whole, so the selection surely is not one of them
    $("play-explain").hidden = !(mine && !check.ok && reason && reason !== t("t.why.select") &&
      selectedCards().length && !moves.some((m) => m.startsWith("pick ") || m.startsWith("choose ")));
    $("pass").disabled = !(mine && moves.includes("pass"));
    // there is no passing in Sheng ji's play phase
    // (nor on the bury turn, where the kitty is buried: room for its own buttons)
    $("pass").hidden = gameFamily(v.game) === "sheng-ji" &&
      (v.phase === "play" || (v.phase === "bury" && moves.some((m) => m.startsWith("bury "))));
    $("autopass").disabled = !seated() || S.stopped || (gameFamily(v.game) === "sheng-ji" && v.phase === "play");
    P.renderHintButtons(!!(mine && moves.length));
    $("clear").disabled = S.selected.size === 0 && !S.hintShown;
    const lt = $("last-trick-btn");
    lt.querySelector(".lbl-long").textContent = S.showLast ? t("t.hideLastTrick") : t("t.lastTrick");
    lt.querySelector(".lbl-short").textContent = S.showLast ? t("t.hideLastShort") : t("t.lastShort");
    // a spectator has no player controls: only the last trick (table.css hides the others)
    document.body.classList.toggle("spectator", !seated());
    for (const b of document.querySelectorAll("#moves button")) b.disabled = !mine;
    for (const b of document.querySelectorAll("#hand .card")) b.setAttribute("aria-disabled", String(S.busy || S.stopped));
    document.body.classList.toggle("my-turn", mine);
  }

  return { renderPrompt, renderMoves, playCheck, renderControls };
}
