// The table page: one WebSocket to /ws/{table_id} (table-connection.js: reconnects, pings, the
// `?via=N` retry); seats and start before the match, then the game for every preset (climbing
// games and Sheng ji). See docs/protocol.md.
//
// What a player gets here beyond the game itself: a seamless resume (the seat token in
// localStorage, quick reconnects, a "Reconnecting…" banner), turn awareness (one active seat,
// a "Your turn" banner, a title marker, card and turn sounds, the room's turn timer, a screen
// reader announcement), play helpers (Play disabled with the reason, the bot's hint and the
// legal plays, readings, auto-pass, a kept selection), the last trick, a game log, keyboard
// play, settings and rules help, and two languages (i18n.js). The host's tools are in host.js,
// the ready check in table-ready.js, the rematch in table-rematch.js, the sounds in sound.js, the
// chat badge in table-unread.js, the fair-deal record in fair.js; the prompt and controls in
// table-prompt.js, Hint and Legal plays in table-hint.js, turn awareness in table-turn.js, the
// banners in table-banners.js, the log in table-log.js, the selection and how it becomes a move
// (and keyboard play) in table-compose.js, the seats before the match in table-waiting.js, the
// layout, seats, trick, hand and strip in their table-*.js modules.

import { displayName, gameFamily, gameTitle, h } from "./common.js";
import { noteDeal, sealLine } from "./fair.js";
import * as Host from "./host.js";
import { has, lang, t, translatePage } from "./i18n.js";
import { mountSettings, rulesDialog, settings } from "./settings.js";
import { initShare, initSide } from "./table-dialogs.js";
import { drawHand } from "./table-hand.js";
import { direction, fitHand, placeTable } from "./table-layout.js";
import { GameLog, addChat } from "./table-log.js";
import { kindOf, trickKey } from "./table-moves.js";
import { makeHints } from "./table-hint.js";
import { makePrompt } from "./table-prompt.js";
import { makeBanners } from "./table-banners.js";
import { makeBury } from "./table-bury.js";
import { makeCompose } from "./table-compose.js";
import { makeConnection } from "./table-connection.js";
import { makeTurn } from "./table-turn.js";
import { makeReady } from "./table-ready.js";
import { makeRematch } from "./table-rematch.js";
import { makeUnread } from "./table-unread.js";
import { makeWaiting } from "./table-waiting.js";
import { stateSounds } from "./sound.js";
import { closeSeatPop, placeSeatPop, renderTableSeats, shortName } from "./table-seats.js";
import { renderStrip } from "./table-strip.js";
import { moveLatest, renderLastTrickBox, renderTableTrick, sweepTrick } from "./table-trick.js";
import { lastTrick, renderInfo, renderResult, renderSummary } from "./view.js";

const tableId = decodeURIComponent(location.pathname.replace(/^\/t\//, "").split("/")[0] || "");
const TOKEN_KEY = `shangyou.token.${tableId}`;
const LOG_KEY = `shangyou.log.${tableId}`;
const $ = (id) => document.getElementById(id);

const S = {
  ws: null,
  version: null,
  table: null,          // the table part of the last state/welcome
  view: null,           // the engine view for this client
  mySeat: null,
  selected: new Set(),  // indices into view.hand
  handKey: "",
  hintShown: null,      // the hint or legal play shown, and its move (table-hint.js)
  hintMove: null,
  hintVersion: null,
  hintIndex: -1,
  callPick: {},         // the friend call being picked: {ord, card}
  choices: null,        // several readings of the selected cards: the player picks one
  busy: false,          // a move was sent and no answer came yet
  retry: 0,
  connected: false,
  everConnected: false,
  stopped: false,       // no table, or the seat was opened elsewhere: no more sending
  historyLen: null,
  alertTimer: null,
  turn: null,           // {seat, deadline (performance.now() ms) or null}
  wasMyTurn: false,
  autopassKey: null,    // the trick the auto-pass toggle holds for
  focusIndex: 0,        // the hand card that takes the keyboard focus
  log: new GameLog(LOG_KEY),
  showLast: false,
};

// the socket (table-connection.js); the closes that end it: the seat opened elsewhere (4001),
// the table closed (4410), too many sockets (4429)
const { connect, send, reconnectNow, renderConn } = makeConnection({
  S, $, tableId, onMessage: handle, showAlert,
  // the log asks for the events it lacks (all of them on a new device or tab)
  hello: () => ({ type: "hello", token: localStorage.getItem(TOKEN_KEY) || null,
                  name: Waiting.myName(), since: S.log.moves || 0,
                  ...(S.log.match ? { match: S.log.match } : {}) }),
  onDrop: () => { S.busy = false; Hints.clearHint(); },
  onEnd: (code) => {
    if (code === 4001) openedElsewhere();
    else if (code === 4410) tableClosed();
    else if (code === 4429) openedElsewhere("t.tooManySockets", "t.tryAgain");
    else return false;
    return true;
  },
});
const {
  seated, myTurn, legal, clickKind, cardPlays, playsOf, offers, selectedCards,
  onCard, sendMove, onPlay, askWhy, onClear, maybeAutopass, onKey,
} = makeCompose({
  S, $, send, showAlert, renderHand, renderMoves: () => renderMoves(),
  renderControls: () => renderControls(), playCheck: () => playCheck(),
  hints: () => Hints, bury: () => Bury,
});
// the seat token, when the seat is left or taken away (the host's token stays the host's key)
const forgetToken = () => { if (!Host.H.me) localStorage.removeItem(TOKEN_KEY); };
const { openedElsewhere, tableClosed, kicked } = makeBanners({ S, $, connect, renderConn, render, forgetToken });
const { renderTurn, tickTimer } = makeTurn({ S, $, myTurn, ctx });
const Ready = makeReady({ S, $, send, isHost: () => Host.H.proto && Host.H.me });
const Waiting = makeWaiting({ S, $, send, seated, render, forgetToken, mark: Ready.mark });
const { renderPrompt, renderMoves, playCheck, renderControls } = makePrompt({
  S, $, myTurn, legal, seated, ctx, clickKind, offers, cardPlays, playsOf, kindOf,
  selectedCards, sendMove, renderHintButtons: (usable) => Hints.renderButtons(usable),
});
const Rematch = makeRematch({ S, $, send });
const Unread = makeUnread({ $ });
const Hints = makeHints({ S, $, send, legal, myTurn, clickKind, renderMoves, renderHand, renderControls,
  buryChosen: () => Bury.chosen(), buryAdd: (m) => { const i = Bury.add(m); Bury.render(); return i; } });
const Bury = makeBury({
  S, $, legal, myTurn, sendMove, showAlert,
  redraw: () => { renderHand(); renderControls(); Bury.render(); },
  resync: () => { try { S.ws?.close(); } catch { /* the page reconnects and gets the state */ } },
});

// ------------------------------------------------------------------------ messages
function handle(msg) {
  switch (msg.type) {
    case "welcome":           // the connection's flags are set (table-connection.js)
      Host.onWelcome(msg);
      onSeat(msg);
      if (msg.table) S.table = msg.table;
      Host.onTable(S.table, S.mySeat);
      Waiting.onWelcome();
      render();
      break;
    case "state":
      S.stateAt = performance.now();
      if (msg.token) localStorage.setItem(TOKEN_KEY, msg.token);
      if ("seat" in msg) S.mySeat = msg.seat ?? null;
      S.version = msg.version;
      S.moveCount = msg.move_count ?? 0;
      if (msg.table) S.table = msg.table;
      const before = S.view;
      const catchingUp = S.resumedAt === null || S.resumedAt === undefined;
      S.view = msg.view || null;
      if (S.view && S.view.seat !== undefined) S.mySeat = S.view.seat;
      Host.onTable(S.table, S.mySeat);
      noteDeal(S.table, S.view, S.mySeat, msg);
      S.busy = false;
      onTurn(msg.turn);
      logEvents(msg.last_events || [], msg.move_count);
      render();
      if (!catchingUp) stateSounds(before, S.view, msg.last_events);
      if (S.table && S.table.status === "closed" && !S.closed) tableClosed();
      // when the page was back with its state (since the page started, or the socket dropped)
      if (S.resumedAt === null || S.resumedAt === undefined) S.resumedAt = performance.now();
      break;
    case "chat":
      addChat($("chat-log"), msg);
      Unread.onChat();
      break;
    case "pong":            // the server is there (S.heardAt was set on its arrival)
      break;
    case "hint":
      Hints.onAdvice(msg);
      break;
    case "error":
      S.busy = false;
      if (msg.code === "replaced") { openedElsewhere(); return; }
      if (msg.code === "closed") { tableClosed(); return; }
      if (msg.code === "kicked" || msg.code === "banned") { kicked(); return; }
      if (msg.code === "too_many_sockets") { openedElsewhere("t.tooManySockets", "t.tryAgain"); return; }
      if (msg.code === "moved") return;     // its socket closes with 1012: the page reconnects
      if (Hints.onError(msg)) return;
      Bury.onError(msg);
      showAlert(ERRORS[msg.code] ? t(ERRORS[msg.code]) : whyText(msg.why) || msg.message || msg.code || "error");
      if (msg.code === "no_table") {
        S.stopped = true;
        $("top-alert").textContent = t("t.noTable");
        renderConn();
      }
      renderControls();
      break;
    default:
      if ("token" in msg && "seat" in msg) { onSeat(msg); render(); }
  }
}

/** An illegal play's explanation (the rule it breaks) in the page's language, or "". */
function whyText(why) {
  return (why && why.text && (why.text[lang()] || why.text.en)) || "";
}

// errors the page words itself (the others show the server's message)
const ERRORS = { not_host: "t.notHost", hello_timeout: "t.helloTimeout", no_ready_check: "rc.none" };

function onSeat(msg) {
  if (msg.token) localStorage.setItem(TOKEN_KEY, msg.token);
  if ("seat" in msg) {
    S.mySeat = msg.seat === undefined ? null : msg.seat;
    // the host keeps their token when they do not sit: it is the host's key
    if (S.mySeat === null && !msg.token && !Host.H.me) localStorage.removeItem(TOKEN_KEY);
  }
}

/** The turn as the server timed it: {seat, left (seconds) or null}. */
function onTurn(turn) {
  if (!turn || turn.seat === null || turn.seat === undefined) { S.turn = null; return; }
  S.turn = { seat: turn.seat,
             deadline: typeof turn.left === "number" ? performance.now() + turn.left * 1000 : null };
}

// -------------------------------------------------------------------------- the log
/** One log line per action: the events of each state, kept for the match across reloads. */
function logEvents(events, moveCount) {
  if (S.log.add(events, moveCount, S.table && S.table.match_id)) renderLog();
}

function renderLog() {
  S.log.render($("log"), S.table && S.table.game, ctx());
}

function showAlert(text) {
  const a = $("alert");
  a.textContent = String(text);
  const top = $("top-alert");
  if ($("game").hidden) top.textContent = String(text);
  clearTimeout(S.alertTimer);
  S.alertTimer = setTimeout(() => { a.textContent = ""; top.textContent = ""; }, 9000);
}

// ---------------------------------------------------------------------- context
function ctx() {
  const seats = S.table && S.table.seats ? S.table.seats : null;
  // the table page names a seat as its box does (a bot: "Bot 3"); the full name is kept for
  // the seat's title and its card of details
  const names = seats ? seats.map((s) => shortName(s)) : [];
  const full = seats ? seats.map((s) => displayName(s)) : [];
  return { names, full, seats, mySeat: S.mySeat, host: S.table ? S.table.host ?? null : null };
}

// ------------------------------------------------------------------------- render
function render() {
  const tb = S.table;
  const v = S.view;
  // for tests and debugging: what this page last received
  document.body.dataset.version = String(S.version ?? "");
  document.body.dataset.seat = seated() ? String(S.mySeat) : "";
  document.body.dataset.status = (tb && tb.status) || "";
  document.body.dataset.toAct = v && v.to_act !== null && v.to_act !== undefined ? String(v.to_act) : "";
  if (tb) {
    $("table-title").textContent = t("t.title", { game: gameTitle(tb.game || (v && v.game)), n: tb.players || "" });
    $("table-status").textContent = tb.status ? t(`status.${tb.status}`) : "";
  }
  const waiting = !tb || tb.status === "waiting" || !v;
  Waiting.render(waiting);
  Ready.render();
  $("game").hidden = !v;
  $("info-panel").hidden = !v;
  if (seated()) $("kicked-banner").hidden = true;
  renderRole();
  renderRoom();
  renderTurn();
  Host.render();
  if (!v) return;

  const c = ctx();
  const handKey = `${v.hand_number}|${(v.hand || []).join(",")}|${v.phase}|${(v.pending || []).join(",")}`;
  if (handKey !== S.handKey) {
    S.handKey = handKey;
    const keepSel = S.selected.size && v.hand && S.lastHand && v.hand.join(",") === S.lastHand;
    if (!keepSel) S.selected.clear();
    S.choices = null;
    S.callPick = {};
  }
  S.lastHand = (v.hand || []).join(",");
  if (S.autopassKey !== null && S.autopassKey !== trickKey(v)) {
    S.autopassKey = null;        // the trick ended: auto-pass switches itself off
    $("autopass").checked = false;
  }

  $("strip-facts").replaceChildren(renderStrip(v, c, (tb && tb.options) || {}));
  $("seats-panel").replaceChildren(renderTableSeats(v, c));
  // the plays of a trick that just ended, where they lay (they go to the winner below)
  const tk = trickKey(v);
  const ended = S.lastTrickKey !== undefined && S.lastTrickKey !== tk;
  const old = ended ? [...$("trick-panel").querySelectorAll(".spot:not(.pass)")]
    .map((node) => ({ node, rect: node.getBoundingClientRect() })) : [];
  S.lastTrickKey = tk;
  $("trick-panel").replaceChildren(renderTableTrick(v, c));
  renderLastTrick();
  $("info-panel").replaceChildren(h("h2", {}, t("f.game")), renderInfo(v, c), sealLine(tb) || "");

  const hist = (v.history || []).length;
  const summary = renderSummary(v, c);
  if (S.historyLen !== null && hist > S.historyLen) S.freshHist = hist;
  const early = !((v.played || v.tricks || []).length);   // no trick of the new hand done yet
  if (summary && S.freshHist === hist && (early || v.result)) summary.classList.add("fresh");
  S.historyLen = hist;
  $("summary-slot").replaceChildren(...(summary ? [h("div", { class: "panel" }, summary)] : []));
  // the end of a hand or of the match comes over the table and stays there, readable, until
  // the player goes back to the table (the next hand may begin meanwhile: the overlay says so)
  const showSummary = !!summary && S.freshHist === hist && S.overlayClosed !== hist;
  const result = renderResult(v, c);
  if (result && tb && tb.match_id && (tb.status === "over" || v.phase === "over")) {
    result.append(h("p", { class: "row" },
      h("a", { class: "button", href: `/replay/${encodeURIComponent(tb.match_id)}`, id: "replay-link" },
        t("t.watchReplay")),
      h("a", { class: "button", href: "/" }, t("t.backLobby"))));
  }
  $("result-slot").replaceChildren(...(result ? [h("div", { class: "panel result-panel" }, result)] : []));
  Rematch.render();
  $("overlay").hidden = !(result || showSummary);
  $("overlay-close").hidden = !!result;
  const begun = !result && showSummary && v.phase !== "over" && hist === S.freshHist &&
    (myTurn() || (v.trick || []).length > 0 || (v.played || v.tricks || []).length > 0);
  const next = $("overlay-next");
  next.hidden = !begun;
  next.textContent = begun ? t(myTurn() ? "t.nextHandTurn" : "t.nextHandOn") : "";
  $("summary-slot").hidden = !(result || showSummary);
  const over = v.phase === "over" || !!v.result || !!S.closed;
  $("controls").hidden = over;
  // Sheng ji has no passing once the bidding is over: no auto-pass row (room for the buttons)
  $("autopass").closest(".row").hidden = over || !seated() ||
    (gameFamily(v.game) === "sheng-ji" && v.phase !== "deal");
  $("hand").hidden = over && !(v.hand || []).length;
  $("keys-help").hidden = over || !seated();
  document.body.classList.add("in-game");

  renderPrompt();
  renderMoves();
  renderHand();
  renderControls();
  Bury.render();
  Hints.afterRender();
  layout();
  if (old.length) {
    const last = lastTrick(v);
    sweepTrick($("table-area"), old, last && last.winner, { reduced: settings().motion });
  }
  maybeAutopass();
}

/** Seats and plays in their places around the cloth (after each render and resize). */
function layout() {
  const v = S.view;
  if (!v || $("game").hidden) return;
  placeTable($("table-area"), v.players, direction(v.game));
  placeSeatPop($("table-area"));
  const tr = v.trick || [];
  const last = tr[tr.length - 1];
  const key = last ? `${v.hand_number}|${trickKey(v)}|${tr.length}|${last[0]}|${last[1]}` : "";
  moveLatest($("table-area"), key, {
    reduced: settings().motion, fromHand: last && last[0] === S.mySeat ? $("hand") : null,
  });
}

function renderRole() {
  const line = $("role-line");
  const tb = S.table;
  if (S.closed) line.textContent = "";
  else if (seated()) line.textContent = t("t.role.seated", { n: S.mySeat + 1 });
  else if (tb && tb.status === "waiting") line.textContent = t("t.role.free");
  else line.textContent = t("t.role.spectator");
}

function renderRoom() {
  const room = (S.table && S.table.room) || {};
  const parts = [];
  if (room.turn_timer) parts.push(t("t.timerRoom", { s: room.turn_timer }));
  if (room.grace !== undefined && room.grace !== null) parts.push(t("t.grace", { s: room.grace }));
  $("room-line").textContent = parts.join(" ");
}

function renderHand() {
  const v = S.view;
  if (Array.isArray(v.hand)) S.focusIndex = Math.max(0, Math.min(S.focusIndex, v.hand.length - 1));
  drawHand($("hand"), v.hand, {
    selected: S.selected, pending: v.pending || [], focusIndex: S.focusIndex,
    clickable: !!clickKind(), note: seated() ? "" : t("t.spectating"), fromKitty: Bury.fromKitty(),
    onCard, onFocus: (i) => { S.focusIndex = i; },
  });
}

function renderLastTrick() {
  const box = $("last-trick");
  const btn = $("last-trick-btn");
  btn.setAttribute("aria-expanded", String(S.showLast));
  box.hidden = !S.showLast;
  if (!S.showLast || !S.view) return;
  renderLastTrickBox(box, S.view, ctx());
}

// --------------------------------------------------------------------------- setup
function translateStatic() {
  translatePage();
  for (const o of $("bot-level").options) {
    if (has(`bot.${o.value}`)) o.textContent = t(`bot.${o.value}`);
  }
  renderConn();
}

function init() {
  translateStatic();
  S.log.load();
  mountSettings($("top"), { sound: true, onLang: () => {
    translateStatic(); render(); renderLog();
    if (S.wasMyTurn) $("announce").textContent = t("t.yourTurnSay");
  } });
  const openRules = rulesDialog(() => S.table && {
    game: S.table.game, options: S.table.options || {}, room: S.table.room || null,
  });
  $("open-rules").addEventListener("click", openRules);
  const link = `${location.origin}/t/${encodeURIComponent(tableId)}`;
  $("share-link").value = link;
  initShare(link, { h, t });
  $("copy-link").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(link);
      $("copy-link").textContent = t("t.copied");
    } catch {
      $("share-link").select();
    }
  });
  Waiting.init();
  $("start").addEventListener("click", Ready.start);
  $("ready-check").addEventListener("click", Ready.ask);
  $("play").addEventListener("click", onPlay);
  $("pass").addEventListener("click", () => sendMove("pass"));
  $("play-explain").addEventListener("click", askWhy);
  $("hint").addEventListener("click", Hints.onHint);
  $("legal").addEventListener("click", Hints.onLegal);
  $("clear").addEventListener("click", onClear);
  $("last-trick-btn").addEventListener("click", () => {
    S.showLast = !S.showLast;
    renderLastTrick();
    renderControls();
  });
  $("autopass").addEventListener("change", () => {
    S.autopassKey = $("autopass").checked ? trickKey(S.view) : null;
    if ($("autopass").checked) showAlert(t("t.autopassOn"));
    maybeAutopass();
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-input").value.trim().slice(0, 200);
    if (!text) return;
    if (send({ type: "chat", text })) $("chat-input").value = "";
  });
  Host.initHost({ S, send, showAlert });
  initSide();
  // a tap on a seat opens (or closes) its card of details; a tap elsewhere closes it
  $("seats-panel").addEventListener("seatpop", (e) => {
    if (!S.view) return;
    const focused = document.activeElement === e.target;
    render();
    if (focused) $("seats-panel").querySelector(`.seat-box[data-seat="${e.target.dataset.seat}"]`)?.focus();
  });
  document.addEventListener("click", (e) => {
    if (!(e.target instanceof Element && e.target.closest(".seat-box")) && closeSeatPop() && S.view) render();
  });
  $("overlay-close").addEventListener("click", () => {
    S.overlayClosed = (S.view && (S.view.history || []).length) || 0;
    $("overlay").hidden = true;
  });
  const relayout = () => { layout(); if (!$("hand").hidden) fitHand($("hand")); };
  if (window.ResizeObserver) new ResizeObserver(relayout).observe($("table-area"));
  window.addEventListener("resize", relayout);
  // a new card size or theme from the settings dialog
  new MutationObserver(relayout).observe(document.documentElement, { attributes: true, attributeFilter: ["class"] });
  document.addEventListener("keydown", onKey);
  // come back at once when the tab is shown again or the network returns
  document.addEventListener("visibilitychange", () => { if (!document.hidden) reconnectNow(); });
  window.addEventListener("online", reconnectNow);
  setInterval(tickTimer, 250);
  renderConn();
  if (!tableId) {
    S.stopped = true;
    $("top-alert").textContent = t("t.noTableId");
    return;
  }
  connect();
}

// for the browser tests and debugging: the page's state (read it, do not change it)
window.__shangyou = S;

init();
